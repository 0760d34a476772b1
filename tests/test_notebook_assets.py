"""A notebook page's stylesheet and pictures as files (notebook_assets.py): what is kept, what is left out."""

from __future__ import annotations

import base64

import pytest

from kernelbook.site.notebooks import assets as A

SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><title>t</title></svg>'
PAGE = ('<div class="jupyter-wrapper"><style type="text/css">\n.jupyter-wrapper{--jp-x: 1}'
        ".jupyter-wrapper :root{--jp-icon: url(data:image/svg+xml;base64,AAAA)}"
        ".jupyter-wrapper .bp3-button{color:red}"
        ".jupyter-wrapper .jp-Cell{margin:0}"
        ".jupyter-wrapper .jp-Cell:not(.jp-mod-active){padding:0}"
        "@media print{.jupyter-wrapper .bp3-card{x:y}.jupyter-wrapper .jp-Cell{z:w}}"
        "@media screen{.jupyter-wrapper .bp3-only{x:y}}"
        ".bp3-a,.jupyter-wrapper p{color:blue}"
        "/* a } in a comment */ .md-typeset .jp-Missing, .jp-Other{a:b}"
        '.x[title="}"]{c:d}'
        "</style>\n<style>.jupyter-wrapper .highlight-ipynb .k{font-weight:bold}</style>"
        f'<div class="jp-Cell"><img alt="a figure" src="data:image/svg+xml;base64,{base64.b64encode(SVG).decode()}"></div></div>')


def test_styles_become_one_file_without_the_rules_nothing_matches():
    html, files = A.externalize(PAGE)
    css = next(data for name, data in files.items() if name.endswith(".css")).decode()
    assert "<style" not in html and html.count('<link rel="stylesheet"') == 1
    for kept in (".jupyter-wrapper{--jp-x: 1}", ".jupyter-wrapper .jp-Cell{margin:0}", ":not(.jp-mod-active){padding:0}",
                 "@media print{.jupyter-wrapper .jp-Cell{z:w}}", ".bp3-a,.jupyter-wrapper p{color:blue}",
                 '.x[title="}"]{c:d}', ".highlight-ipynb .k{font-weight:bold}"):
        assert kept in css, kept
    for gone in (":root", ".bp3-button", ".bp3-card", "@media screen", ".jp-Missing", "a } in a comment"):
        assert gone not in css, gone
    assert css.index("--jp-x") < css.index("highlight-ipynb")  # in the page's order


def test_pictures_become_files_and_the_page_names_them_from_its_own_folder():
    html, files = A.externalize(PAGE)
    svg = [name for name in files if name.endswith(".svg")]
    assert len(svg) == 1 and files[svg[0]] == SVG and "data:image/svg" not in html.split("</style>")[-1]
    assert f'src="{A.BASE}{svg[0]}"' in html and 'alt="a figure"' in html
    assert f'src="../../../{svg[0]}"' in A.at_page(html, "en/ch01/notebook/")
    assert f'src="../{svg[0]}"' in A.at_page(html, "ch01/notebook.html")


def test_every_rule_is_kept_when_the_page_has_every_class():
    css = PAGE.split("<style type=\"text/css\">")[1].split("</style>")[0]
    classes = {"bp3-button", "bp3-card", "bp3-only", "jp-Missing", "jp-Other", "jp-Cell", "bp3-a"}
    assert A._used_rules(css, classes) == css.replace(".jupyter-wrapper :root{--jp-icon: url(data:image/svg+xml;base64,AAAA)}", "")


def test_a_page_without_styles_or_pictures_is_unchanged():
    assert A.externalize("<p>plain</p>") == ("<p>plain</p>", {})


@pytest.mark.parametrize("page", [
    '<p class="jp-A b">', 'class="jp-A"', '<p subclass="jp-B" class="jp-C">',
    '<p subclass="a class="jp-D" b">',  # a "class=" inside the value of one that follows a word: found from the next offset
    '<p data-class="jp-E">', '<p _class="jp-F">', '<p éclass="jp-G">', '<p class="">', '<p class="jp-H',
])
def test_class_names_are_what_a_word_bounded_search_finds(page):
    import re

    bounded = {name for m in re.finditer(r'\bclass="([^"]*)"', page) for name in m.group(1).split()}
    assert A.class_names(page) == bounded
