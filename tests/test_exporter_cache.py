"""nbconvert's exporters kept per process (site/caches/exporters.py): the same exporter only for the same
arguments told by value, a new one for anything else; the notebook pages converted with kept exporters are
the pages converted without."""

from __future__ import annotations

import pytest

from conftest import ROOT
from kernelbook.site.caches import exporters


class Recorder:
    """An exporter class that counts how often it is made."""

    made = 0

    def __init__(self, *args, **kwargs):
        type(self).made += 1
        self.args, self.kwargs = args, kwargs
        self._nb_metadata = {}


def closing_over(classes: str):
    def highlight(source, language=None, metadata=None):
        return classes + source
    return highlight


def other_closing_over(classes: str):
    def highlight(source, language=None, metadata=None):
        return source + classes
    return highlight


class SubCell:  # a stand-in preprocessor class
    pass


class OtherSubCell:
    pass


BASE = {"config": {"SubCell": {"enabled": True, "start": 0, "end": None}, "TagRemovePreprocessor": {"remove_cell_tags": {"x"}}},
        "template_file": "mkdocs_html/notebook.html.j2", "extra_template_paths": ["/t"], "preprocessors": [SubCell],
        "filters": {"highlight_code": closing_over("a")}, "theme": "light"}


@pytest.fixture(autouse=True)
def empty_kept(monkeypatch):
    monkeypatch.setattr(exporters, "_kept", {})
    Recorder.made = 0


def key(**changed):
    return exporters.exporter_key(Recorder, (), {**BASE, **changed}, "scope")


@pytest.mark.parametrize("changed", [
    {"config": {**BASE["config"], "SubCell": {"enabled": True, "start": 1, "end": None}}},
    {"config": {**BASE["config"], "TagRemovePreprocessor": {"remove_cell_tags": {"y"}}}},
    {"template_file": "mkdocs_md/md-no-codecell.md.j2"},
    {"extra_template_paths": ["/t", "/u"]},
    {"preprocessors": [OtherSubCell]},
    {"filters": {"highlight_code": closing_over("b")}},  # the same function closing over another value
    {"filters": {"highlight_code": other_closing_over("a")}},  # another function
    {"theme": "dark"},
    {"theme": 1},  # not the same as "1"
])
def test_the_key_changes_with_each_argument(changed):
    assert key() == key(filters={"highlight_code": closing_over("a")})  # a new closure, the same behaviour
    assert key(**changed) != key()


def test_the_scope_class_and_positional_arguments_are_part_of_the_key():
    assert exporters.exporter_key(Recorder, (), BASE, "a") != exporters.exporter_key(Recorder, (), BASE, "b")
    assert exporters.exporter_key(Recorder, (), BASE, "a") != exporters.exporter_key(SubCell, (), BASE, "a")
    assert exporters.exporter_key(Recorder, (1,), BASE, "a") != exporters.exporter_key(Recorder, (), BASE, "a")


@pytest.mark.parametrize("opaque", [object(), Recorder(), Recorder.__init__.__get__(Recorder()), {1: "x"}])
def test_an_argument_not_told_by_value_gets_a_new_exporter(opaque):
    assert key(filters={"highlight_code": opaque}) is None
    make = exporters.kept(Recorder, "scope")
    first, second = make(**{**BASE, "theme": opaque}), make(**{**BASE, "theme": opaque})
    assert first is not second and Recorder.made == 2


def test_the_same_arguments_get_the_exporter_made_before_its_record_cleared():
    make = exporters.kept(Recorder, "scope")
    first = make(**BASE)
    first._nb_metadata["a/notebook.ipynb"] = {"kernelspec": {}}
    again = make(**{**BASE, "filters": {"highlight_code": closing_over("a")}})
    assert again is first and again._nb_metadata == {} and Recorder.made == 1
    other = make(**{**BASE, "theme": "dark"})
    assert other is not first and Recorder.made == 2


def test_kept_exporters_puts_mkdocs_jupyters_classes_back():
    from mkdocs_jupyter import nbconvert2
    from nbconvert.exporters.html import HTMLExporter

    with exporters.kept_exporters("scope"):
        assert nbconvert2.HTMLExporter.kept_class is HTMLExporter
        with exporters.kept_exporters("scope"):  # inside: left as it is
            assert nbconvert2.HTMLExporter.kept_class is HTMLExporter
    assert nbconvert2.HTMLExporter is HTMLExporter


def test_the_books_notebooks_convert_to_the_same_pages_with_kept_exporters():
    from mkdocs_jupyter import nbconvert2
    from mkdocs_jupyter.plugin import _get_nb_toc_tokens

    notebooks = [str(p) for p in sorted(ROOT.glob("docs/*/ch*/notebook.ipynb"))[:3]]
    assert notebooks, "the book has no chapter notebooks"
    fresh = [(nbconvert2.nb2html(nb), _get_nb_toc_tokens(nb, 3)) for nb in notebooks]
    with exporters.kept_exporters("scope"):
        kept = [(nbconvert2.nb2html(nb), _get_nb_toc_tokens(nb, 3)) for nb in notebooks + notebooks[::-1]]
    assert len(exporters._kept) == 2  # the page's exporter and its table of contents'
    assert kept == fresh + fresh[::-1]


def validations(preprocessors, notebooks=None):
    """Which preprocessors' validations ran, through exporters.validating_changes, for one exporter."""
    ran = []
    check = exporters.validating_changes(lambda exporter, nb, preprocessor: ran.append(preprocessor.name))
    exporter = Recorder()
    notebook = {"cells": []}
    for i, preprocessor in enumerate(preprocessors):
        check(exporter, notebooks[i] if notebooks else notebook, preprocessor)
    return ran


def preprocessor(name, enabled, call=None):
    from nbconvert.preprocessors import Preprocessor

    cls = type(name, (Preprocessor,), {} if call is None else {"__call__": call})
    made = cls(enabled=enabled)
    made.name = name
    return made


def test_a_validation_after_a_disabled_preprocessor_of_the_notebook_just_validated_is_skipped():
    ran = validations([preprocessor("off0", False), preprocessor("on", True), preprocessor("off1", False),
                       preprocessor("off2", False), preprocessor("on2", True)])
    assert ran == ["off0", "on", "on2"]  # the first always: nothing validated that notebook yet


def test_every_other_validation_runs():
    own_call = preprocessor("own", False, call=lambda self, nb, resources: (nb, resources))  # may change it
    assert validations([preprocessor("on", True), own_call]) == ["on", "own"]
    other = [{"cells": []}, {"cells": []}]  # another notebook (equal, not the same)
    assert validations([preprocessor("on", True), preprocessor("off", False)], other) == ["on", "off"]


def test_validated_once_puts_nbconverts_validation_back():
    from nbconvert.exporters.exporter import Exporter

    validate = Exporter._validate_preprocessor
    with exporters.validated_once():
        outer = Exporter._validate_preprocessor
        assert outer is not validate and outer.validating_changes
        with exporters.validated_once():
            assert Exporter._validate_preprocessor is outer  # not wrapped twice
    assert Exporter._validate_preprocessor is validate


def test_an_invalid_notebook_still_fails_with_validated_once(tmp_path):
    import nbformat
    from mkdocs_jupyter import nbconvert2

    notebook = tmp_path / "nb.ipynb"
    notebook.write_text('{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "markdown", '
                        '"metadata": {}, "source": "x", "id": "a"}, {"cell_type": "markdown", "metadata": {}, '
                        '"id": "b"}]}', encoding="utf-8")  # a cell without its source
    with pytest.raises(nbformat.ValidationError):
        nbconvert2.nb2html(str(notebook))
    with exporters.validated_once(), pytest.raises(nbformat.ValidationError):
        nbconvert2.nb2html(str(notebook))
