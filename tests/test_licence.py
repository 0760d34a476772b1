"""What a course may reuse: code under MIT, text and figures under CC BY 4.0, and how to cite the book.

The CC BY 4.0 text is compared with the copy check-jsonschema vendors (the Citation File
Format schema is published under it), and CITATION.cff is validated against the CFF 1.2.0
schema check-jsonschema vendors: both offline.
"""

from __future__ import annotations

import importlib.resources
import json
import re
import subprocess
import sys

import pytest
import yaml

from conftest import ROOT, book_settings

VENDOR = importlib.resources.files("check_jsonschema.builtin_schemas.vendor")


def pyproject(key: str) -> str:
    """A string setting of pyproject.toml's [project] (tomllib is Python 3.11+; the book runs on 3.10)."""
    found = re.search(rf'^{re.escape(key)} = (.+?)\s*(?:#.*)?$', (ROOT / "pyproject.toml").read_text(encoding="utf-8"), re.M)
    assert found, f"pyproject.toml sets no {key}"
    return found.group(1)


def test_code_is_mit_licensed_to_the_kernelbook_authors():
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n\nCopyright (c) ") and "the kernelbook authors" in text.splitlines()[2]
    assert "Permission is hereby granted, free of charge" in text and 'THE SOFTWARE IS PROVIDED "AS IS"' in text
    assert pyproject("license") == '"MIT"' and pyproject("license-files") == '["LICENSE"]'


def test_text_and_figures_are_cc_by_4_0_in_full():
    text = (ROOT / "LICENSE-CONTENT").read_text(encoding="utf-8")
    legalcode = VENDOR.joinpath("licenses", "LICENSE.citation-file-format").read_text(encoding="utf-8")
    assert legalcode.startswith("Creative Commons Attribution 4.0 International Public License")
    assert text.endswith(legalcode), "LICENSE-CONTENT does not end with the CC BY 4.0 legal code, word for word"
    preamble = text[: -len(legalcode)]
    assert "https://creativecommons.org/licenses/by/4.0/legalcode" in preamble and "the kernelbook authors" in preamble
    for covered in ("docs/**/*.md", "snippets/*/captures/", "LICENSE"):  # what each licence covers, said once
        assert covered in preamble, covered


def test_citation_cff_is_valid_cff_1_2_0_and_agrees_with_the_book():
    done = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.citation-file-format",
                           str(ROOT / "CITATION.cff")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    schema = json.loads(VENDOR.joinpath("citation-file-format.json").read_text(encoding="utf-8"))
    assert schema["$id"] == "https://citation-file-format.github.io/1.2.0/schema.json" and cff["cff-version"] == "1.2.0"
    assert f'"{cff["version"]}"' == pyproject("version")
    assert sorted(cff["license"]) == ["CC-BY-4.0", "MIT"]
    assert cff["url"] == book_settings().site_url
    assert cff["repository-code"] == f"https://github.com/{book_settings().repository}"
    assert cff["authors"] == [{"name": "the kernelbook authors"}]


def test_the_validator_rejects_a_broken_citation(tmp_path):
    broken = tmp_path / "CITATION.cff"
    broken.write_text(re.sub(r"(?ms)^authors:.*?^version:", "version:", (ROOT / "CITATION.cff").read_text(encoding="utf-8")))
    done = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.citation-file-format", str(broken)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "'authors' is a required property" in done.stdout


@pytest.mark.parametrize(("page", "words"), [("index.html", ("本文と図は", "CC BY 4.0", "MIT ライセンス")),
                                             ("en/index.html", ("Text and figures", "CC BY 4.0", "MIT licence"))])
def test_the_site_footer_states_both_licences_in_the_pages_language(built_site, page, words):
    from bs4 import BeautifulSoup

    footer = BeautifulSoup((built_site / page).read_text(encoding="utf-8"), "html.parser").select_one(".md-copyright")
    assert footer is not None, f"{page}: no copyright in the footer"
    text = footer.get_text(" ", strip=True)
    assert all(w in text for w in words), text
    links = {a.get_text(strip=True): a["href"] for a in footer.select('a[rel="license"]')}
    assert links["CC BY 4.0"].startswith("https://creativecommons.org/licenses/by/4.0/")
    assert any(href == "https://opensource.org/license/mit" for href in links.values())


@pytest.mark.parametrize(("lang", "words"), [("ja", "本文は [CC BY 4.0]"), ("en", "Text: [CC BY 4.0]")])
def test_each_notebook_says_its_licences_in_its_first_cell(lang, words):
    first = json.loads((ROOT / "docs" / lang / "ch01" / "notebook.ipynb").read_text(encoding="utf-8"))["cells"][0]
    source = "".join(first["source"])
    assert first["cell_type"] == "markdown" and words in source and "MIT" in source and "opensource.org/license/mit" in source


def test_readme_says_what_may_be_reused():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Licence"):]
    for name in ("LICENSE", "LICENSE-CONTENT", "CITATION.cff", "CC BY 4.0", "MIT"):
        assert name in section, name
