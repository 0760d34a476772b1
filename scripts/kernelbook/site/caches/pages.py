"""Rendered Markdown pages, cached on disk by content: a rebuild converts no unchanged page.

MkDocs converts every page's Markdown to HTML on every build (python-markdown, Pygments for
each code block: most of a warm build's time), and ``mkdocs serve`` rebuilds every page of
both languages after an edit of one. The plugin wraps each Markdown page's ``render``: the
key is a hash of exactly what the HTML depends on (the page's Markdown as the plugins left
it, its source path and URL, the Markdown extensions and their settings, every file of the
site with its URL, which a link resolves against, the versions of the packages that render
it), so an entry is valid across builds and processes. An entry holds what ``render`` sets:
the HTML, the table of contents, the title found in it, the anchors it has and the anchors
it links to (MkDocs checks those after the build, as it would have).

A render that logged a warning is not kept: the next build renders the page again and warns
again (a strict build fails as before). Entries unused for :data:`KEEP_DAYS` are removed.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ...common.records import write_atomic
from . import notebooks as notebook_cache
from .notebooks import toc_tokens

FORMAT = 1
KEEP_DAYS = 14
RENDERERS = ("mkdocs", "markdown", "pymdown-extensions", "pygments", "mkdocs-material")


def versions() -> dict[str, str | None]:
    return notebook_cache.versions(RENDERERS)


def stable(value: Any) -> Any:
    """``value`` as JSON that is the same in every process (a function: its name and what it closes over)."""
    if isinstance(value, Mapping):
        return {str(k): stable(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [stable(v) for v in (sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value)]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    name = f"{getattr(value, '__module__', type(value).__module__)}.{getattr(value, '__qualname__', type(value).__qualname__)}"
    if isinstance(value, functools.partial):
        return {"partial": stable(value.func), "args": stable(value.args), "keywords": stable(value.keywords)}
    if callable(value) and hasattr(value, "__code__"):
        return {"function": name, "closure": [stable(c.cell_contents) for c in value.__closure__ or ()],
                "defaults": stable(value.__defaults__ or ()), "kwdefaults": stable(value.__kwdefaults__ or {})}
    if hasattr(value, "__dict__"):
        return {"object": name, "state": stable(vars(value))}
    return {"object": name, "repr": re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value))}


def site_key(config, files, renderers: dict[str, str | None]) -> str:
    """What every page's HTML depends on besides its own Markdown: extensions, settings, the files and their URLs."""
    blob = json.dumps({
        "format": FORMAT, "versions": renderers,
        "extensions": stable(list(config["markdown_extensions"])), "configs": stable(config["mdx_configs"] or {}),
        "directory_urls": config["use_directory_urls"], "validation": stable(config["validation"]),
        "files": sorted([f.src_uri, f.url, f.dest_uri, bool(f.is_documentation_page())] for f in files),
    }, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


class _Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


def cache_render(page, folder: Path, site: str, report=None) -> None:
    """Make ``page.render`` (MkDocs') read from and fill the cache in ``folder``; ``site``: :func:`site_key`."""
    from mkdocs.structure.toc import get_toc

    convert = page.render

    def render(config, files) -> None:
        key = hashlib.sha256(json.dumps([site, page.file.src_uri, page.url, page.markdown]).encode()).hexdigest()
        path = folder / f"{key}.json"
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            entry = None
        if not _well_formed(entry):  # a damaged entry is converted again, never shown
            entry = None
        if entry is not None:
            linked = {files.get_file_from_path(src): links for src, links in entry["links_to_anchors"].items()}
            if None not in linked:
                page.content, page.toc = entry["content"], get_toc(entry["toc"])
                page._title_from_render = entry["title"]
                page.present_anchor_ids = set(entry["anchors"])
                if logging.getLogger("mkdocs.structure.pages").getEffectiveLevel() > logging.DEBUG:  # as render does
                    page.links_to_anchors = linked
                try:
                    path.touch()  # kept KEEP_DAYS from its last use
                except OSError:
                    pass
                if report:
                    report(True)
                return
        warnings = _Warnings()
        logger = logging.getLogger("mkdocs")
        logger.addHandler(warnings)
        try:
            convert(config, files)
        finally:
            logger.removeHandler(warnings)
        if report:
            report(False)
        if warnings.count:
            return  # rendered again next time, warning again
        entry = {"content": page.content, "toc": toc_tokens(page.toc), "title": getattr(page, "_title_from_render", None),
                 "anchors": sorted(page.present_anchor_ids or ()),
                 "links_to_anchors": {f.src_uri: links for f, links in (page.links_to_anchors or {}).items()}}
        prune(folder)
        write_atomic(path, json.dumps(entry, ensure_ascii=False).encode("utf-8"))

    page.render = render


def kept_text(folder: Path, digest: str, suffix: str, make: Callable[[], str]) -> str:
    """``make()``, kept in ``folder`` as ``<digest><suffix>`` (``digest``: of everything the text is made of).

    A hit touches its file (kept :data:`KEEP_DAYS` from its last use); a file that cannot be
    read, or is not UTF-8, is made again; a text that cannot be written is returned all the same.
    """
    path = folder / f"{digest}{suffix}"
    try:
        text = path.read_bytes().decode("utf-8")  # as written: no newline translation
    except (OSError, UnicodeDecodeError):
        text = make()
        prune(folder, pattern=f"*{suffix}")
        with contextlib.suppress(OSError):
            write_atomic(path, text.encode("utf-8"))
        return text
    with contextlib.suppress(OSError):
        path.touch()
    return text


def prune(folder: Path, days: float = KEEP_DAYS, pattern: str = "*.json") -> None:
    """Remove the entries (``pattern``) in ``folder`` no build has used for ``days`` (every hit touches its entry); at most once a day."""
    stamp = folder / ".pruned"
    try:
        if stamp.is_file() and stamp.stat().st_mtime > time.time() - 86400:
            return
        folder.mkdir(parents=True, exist_ok=True)
        stamp.touch()
    except OSError:
        return
    notebook_cache.remove_expired(folder, days, pattern)


def _well_formed(entry: object) -> bool:
    """A cache entry as ``render`` writes it: anything else (a damaged or foreign file) is a miss."""
    return (isinstance(entry, dict) and isinstance(entry.get("content"), str) and isinstance(entry.get("toc"), list)
            and isinstance(entry.get("title"), (str, type(None))) and isinstance(entry.get("anchors"), list)
            and all(isinstance(a, str) for a in entry["anchors"])
            and isinstance(entry.get("links_to_anchors"), dict)
            and all(isinstance(k, str) for k in entry["links_to_anchors"]))


# ---------------------------------------------------------------- highlighted code, once per process

HIGHLIGHTS_KEPT = 4096  # entries; past it the memo starts again (``mkdocs serve`` runs for hours)
_PLAIN = (str, int, float, bool, type(None), type)


def _plain(value: Any) -> bool:
    return isinstance(value, _PLAIN) or (isinstance(value, (list, tuple)) and all(_plain(v) for v in value))


def highlight_key(code: str, lexer: Any, formatter: Any) -> tuple | None:
    """What Pygments' ``highlight(code, lexer, formatter)`` returns is made of: the code, the lexer's
    and the formatter's classes and options; None where that cannot be told by value (a lexer with
    filters, an option that is an object, a formatter that writes its output's bytes)."""
    if getattr(lexer, "filters", None) or getattr(formatter, "encoding", None):
        return None
    options = (getattr(lexer, "options", None), getattr(formatter, "options", None))
    if not all(isinstance(o, dict) and all(isinstance(k, str) and _plain(v) for k, v in o.items()) for o in options):
        return None
    return (code, type(lexer), repr(sorted(options[0].items())), type(formatter), repr(sorted(options[1].items())))


def kept_highlight(highlight: Callable[..., Any]) -> Callable[..., Any]:
    """Pygments' ``highlight`` kept in memory by :func:`highlight_key`: the same code with the same lexer
    and formatter settings is highlighted once per process. Both languages' pages (and notebooks)
    show the same snippets and the same captured outputs; each was highlighted again (a fifth of a
    cold build)."""
    if getattr(highlight, "kept", False):
        return highlight
    kept: dict[tuple, str] = {}

    @functools.wraps(highlight)
    def wrapper(code, lexer, formatter, outfile=None):
        key = highlight_key(code, lexer, formatter) if outfile is None else None
        if key is None:
            return highlight(code, lexer, formatter, outfile)
        if key not in kept:
            if len(kept) >= HIGHLIGHTS_KEPT:
                kept.clear()
            kept[key] = highlight(code, lexer, formatter)
        return kept[key]

    wrapper.kept = True
    return wrapper


def keep_highlights() -> None:
    """Route the highlighting of the pages (pymdownx.highlight) and of the notebook pages (nbconvert,
    which imports ``pygments.highlight`` when it highlights) through :func:`kept_highlight`."""
    import pygments
    from pymdownx import highlight as pymdownx_highlight

    pygments.highlight = kept_highlight(pygments.highlight)
    pymdownx_highlight.highlight = kept_highlight(pymdownx_highlight.highlight)
