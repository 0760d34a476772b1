"""nbconvert's exporters made once per process for the same settings: a notebook page builds none again.

mkdocs-jupyter constructs a new ``HTMLExporter`` (``nb2html``) and a new ``MarkdownExporter``
(``nb2md``, for the table of contents) for every notebook: traitlets' configuration, the template
folders searched and their ``conf.json`` read, the preprocessors made, then a new Jinja environment
with every template loaded into it again. nbconvert's own command converts many notebooks with one
exporter. While :func:`kept_exporters` is active, an exporter asked for with the same class and the
same arguments, told by value (:func:`by_value`: the configuration, the template, the preprocessors'
classes, each filter by its function and what it closes over), is the one made before, with its
record of the notebooks it converted cleared, as a new exporter starts; arguments that cannot be
told by value get a new exporter, as before.

And nbconvert validates the notebook against its schema after each preprocessor, enabled or not; a
disabled one hands the notebook on as it was, so the validation after it repeats the one before.
:func:`validated_once` skips exactly those (8 of 13 in the HTML export, 5 of 11 in the Markdown one).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Mapping
from typing import Any, Callable

KEPT_LIMIT = 16  # distinct settings kept (a book has two: the page and its table of contents)
NAMES = ("HTMLExporter", "MarkdownExporter")  # the classes mkdocs_jupyter.nbconvert2 constructs

_kept: dict[str, Any] = {}


class NotByValue(Exception):
    """An argument whose behaviour cannot be told from its value."""


def by_value(value: Any) -> Any:
    """``value`` as JSON that two arguments share exactly when they behave alike; NotByValue otherwise.

    A class and a function are named by where they are defined (a function also by what it closes
    over and its defaults); a mapping, a list, a set by what they hold; no other object is."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return [type(value).__name__, value]
    if isinstance(value, Mapping):
        if not all(isinstance(k, str) for k in value):
            raise NotByValue(f"a mapping with a key that is not a string: {value!r:.80}")
        return {"mapping": {k: by_value(v) for k, v in sorted(value.items())}}
    if isinstance(value, (list, tuple)):
        return {type(value).__name__: [by_value(v) for v in value]}
    if isinstance(value, (set, frozenset)):
        return {"set": sorted((by_value(v) for v in value), key=json.dumps)}
    if isinstance(value, type):
        return {"class": f"{value.__module__}.{value.__qualname__}"}
    if callable(value) and hasattr(value, "__code__") and not hasattr(value, "__self__"):
        code = value.__code__
        return {"function": f"{value.__module__}.{value.__qualname__}", "at": [code.co_filename, code.co_firstlineno],
                "closure": [by_value(cell.cell_contents) for cell in value.__closure__ or ()],
                "defaults": by_value(value.__defaults__ or ()), "kwdefaults": by_value(value.__kwdefaults__ or {})}
    raise NotByValue(f"{type(value).__qualname__} {value!r:.80}")


def exporter_key(cls: type, args: tuple, kwargs: dict[str, Any], scope: str) -> str | None:
    """What an exporter made by ``cls(*args, **kwargs)`` is made of, in ``scope``; None: not by value."""
    try:
        return json.dumps({"class": by_value(cls), "args": by_value(list(args)), "kwargs": by_value(kwargs),
                           "scope": scope}, sort_keys=True)
    except (NotByValue, ValueError, TypeError, RecursionError):
        return None


def kept(cls: type, scope: str) -> Callable[..., Any]:
    """``cls``'s constructor, giving the exporter made before for the same arguments (see the module)."""
    def make(*args: Any, **kwargs: Any) -> Any:
        key = exporter_key(cls, args, kwargs, scope)
        if key is None:
            return cls(*args, **kwargs)
        exporter = _kept.get(key)
        if exporter is None:
            if len(_kept) >= KEPT_LIMIT:
                _kept.clear()
            exporter = _kept[key] = cls(*args, **kwargs)
        fresh(exporter)
        return exporter

    make.kept_class = cls
    return make


def fresh(exporter: Any) -> None:
    """What a used exporter holds of its earlier conversions, cleared: each notebook's metadata by its
    name (``Exporter._nb_metadata``, empty in a new exporter)."""
    record = getattr(exporter, "_nb_metadata", None)
    if isinstance(record, dict):
        record.clear()


@contextlib.contextmanager
def kept_exporters(scope: str) -> Iterator[None]:
    """While inside, mkdocs-jupyter's conversions get their exporters through :func:`kept`. ``scope``
    (the folder Jinja keeps compiled templates in) is part of each key: an exporter's environment
    keeps writing there. Another mkdocs-jupyter, without these classes, converts as it does."""
    try:
        from mkdocs_jupyter import nbconvert2
    except ImportError:
        yield
        return
    saved = {name: getattr(nbconvert2, name, None) for name in NAMES}
    if not all(isinstance(cls, type) for cls in saved.values()):
        yield
        return
    for name, cls in saved.items():
        setattr(nbconvert2, name, kept(cls, scope))
    try:
        yield
    finally:
        for name, cls in saved.items():
            setattr(nbconvert2, name, cls)


def unchanging(preprocessor: Any) -> bool:
    """A preprocessor that returns the notebook it is given as it is: a disabled one whose call is nbconvert's
    ``Preprocessor.__call__`` (``if self.enabled: ... return nb, resources``)."""
    try:
        from nbconvert.preprocessors import Preprocessor
    except ImportError:
        return False
    return isinstance(preprocessor, Preprocessor) and type(preprocessor).__call__ is Preprocessor.__call__ \
        and preprocessor.enabled is False


def validating_changes(validate: Callable[[Any, Any, Any], None]) -> Callable[[Any, Any, Any], None]:
    """``Exporter._validate_preprocessor`` that validates each notebook the preprocessors made: the validation
    after a preprocessor that changed nothing (:func:`unchanging`) of the very notebook that passed the one
    before is that one's result again, and skipped."""
    if getattr(validate, "validating_changes", False):
        return validate

    def check(exporter: Any, notebook: Any, preprocessor: Any) -> None:
        if unchanging(preprocessor) and getattr(exporter, "_kernelbook_valid", None) is notebook:
            return
        validate(exporter, notebook, preprocessor)
        exporter._kernelbook_valid = notebook  # held, not its id: no other notebook can take its place

    check.validating_changes = True
    return check


@contextlib.contextmanager
def validated_once() -> Iterator[None]:
    """While inside, nbconvert's exporters validate a notebook after each preprocessor only when it may
    have changed (:func:`validating_changes`). mkdocs-jupyter's HTML export runs 13 preprocessors, 5 of
    them enabled; its Markdown export 11, 6 enabled: 13 validations a notebook page of an unchanged notebook."""
    try:
        from nbconvert.exporters.exporter import Exporter
    except ImportError:
        yield
        return
    validate = Exporter.__dict__.get("_validate_preprocessor")
    if validate is None or getattr(validate, "validating_changes", False):
        yield
        return
    Exporter._validate_preprocessor = validating_changes(validate)
    try:
        yield
    finally:
        Exporter._validate_preprocessor = validate
