"""Numbers in the prose, inserted from captures and checked against them. Pure.

A claim is written ``[[kb:KIND SNIPPET[#SESSIONS] [ARGS] [@SCOPE] [OP VALUE]]]``:

* KIND, one registered below with ``@kind``: ``launches``, ``kernel``, ``kernels``,
  ``time`` and ``device`` read a profiling session; ``value`` and ``ratio`` read the
  snippet's ``results``.
* ``#N`` picks profiling session N (0-based, negative from the end; default: the last);
  ``#A..B`` reads sessions A to B, one value each (a list: "1, 2, 4, 8").
* ``@cuda`` / ``@cpu`` scopes the claim to one device: it is checked, and shown, only from
  a fresh capture of that device; with none it is *unchecked on* that device (listed by
  the build and on the instructors' page, not a failure), and the page says which
  capture it needs instead of showing the other device's value. Unscoped claims hold on
  every fresh capture and show the one the page shows (CUDA when fresh, else CPU).
  ``@cuda`` holds on every GPU's capture; ``@reference`` and ``@sm90``: ``gpus.in_scope``.
* OP is ``== != >= <= > <``, or ``~`` (contains: a string, or any string of a list).
  VALUE is a number, ``true``/``false``, a word, ``"words in quotes"``, a comma list
  without spaces for a list (``== 1,2,4,8``), or ``#N``: the same claim on session N.

``directives/claims.py`` makes each kind an inline directive; ``directives/predict.py``
uses the same claims as exercises' answers.
"""

from __future__ import annotations

import dataclasses
import operator
import re
from dataclasses import dataclass
from typing import Any, Callable

from ...common import gpus
from ...common.kernel_names import short_name
from ...common.records import Capture, Session
from .units import by_key, format_ratio, format_seconds

OPS: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq, "!=": operator.ne, ">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt,
    "~": lambda got, text: any(text in item for item in ([got] if isinstance(got, str) else got)),
}
# `OP VALUE` at the end of a claim; VALUE a "quoted string" or one word
_CHECK = re.compile(r'^(.*?)\s*(==|!=|>=|<=|>|<|~)\s*("[^"]*"|[^\s"]+)$')
_SELECT = re.compile(r"^(-?\d+)(?:\.\.(-?\d+))?$")
_NOT_FINITE = re.compile(r"[+-]?(?:nan|inf(?:inity)?)", re.IGNORECASE)  # what float() reads as no number or no bound
DEVICES = ("cuda", "cpu")
SCOPE = re.compile(r"cuda|cpu|reference|sm\d{2,3}")  # a device, the reference GPU, or a GPU architecture
LIST_SEP = {"en": ", ", "ja": "、"}


class ClaimError(ValueError):
    """A claim the captures contradict, or one that cannot be read."""


@dataclass(frozen=True)
class Claim:
    kind: str  # a name in KINDS: launches | kernel | kernels | time | device | value | ratio
    snippet: str  # the snippet id, without a session selector
    args: str  # what follows the snippet, before any scope and check
    op: str | None = None
    expected: str | None = None  # as written, quotes removed
    text: str = ""  # the directive as written
    session: int | None = None  # #N (None: the last session)
    until: int | None = None  # #A..B: the last session of the range (session is A)
    scope: str | None = None  # "cuda" | "cpu" | "reference" | "smNN": checked and shown only there

    @property
    def is_range(self) -> bool:
        return self.until is not None


def show_plain(claim: Claim, got: Any, lang: str) -> str:
    """Plain text of a value: integers with separators, floats to three digits, the rest as is."""
    if isinstance(got, bool) or not isinstance(got, (int, float)):
        return str(got)
    return by_key("", got)


@dataclass(frozen=True)
class Kind:
    """One claim kind: how it reads its value from a capture, and how the value is written."""

    name: str
    read: Callable[[Claim, Capture], Any]
    show: Callable[[Claim, Any, str], str] = show_plain  # (claim, value, lang) -> plain text
    checks: bool = True  # takes a trailing `OP VALUE`
    code: bool = False  # shown as code (a kernel name), the full value as its tooltip
    sessions: bool = False  # reads one profiling session: takes #N and #A..B
    args: str = ""  # what its ARGS are ("a key of the results"); "": it takes none


KINDS: dict[str, Kind] = {}


def kind(name: str, *, show: Callable[[Claim, Any, str], str] = show_plain, checks: bool = True,
         code: bool = False, sessions: bool = False, args: str = ""):
    """Register ``read(claim, capture) -> value`` as claim kind ``name`` (``[[kb:NAME SNIPPET ...]]``)."""
    def register(read: Callable[[Claim, Capture], Any]) -> Callable[[Claim, Capture], Any]:
        if name in KINDS:
            raise ValueError(f"claim kind {name!r} is registered twice")
        KINDS[name] = Kind(name, read, show, checks, code, sessions, args)
        return read
    return register


# ---------------------------------------------------------------- the kinds


def capture_file(capture: Capture) -> str:
    """The capture's file name, for messages: ``size_sweep.cuda-h200.json`` (``gpus.slot_of``)."""
    return f"{capture.snippet.rsplit('/', 1)[-1]}.{gpus.slot_of(capture)}.json"


def session_of(claim: Claim, capture: Capture) -> Session:
    """The profiling session a claim reads: ``#N``, else the last one."""
    if not capture.sessions:
        raise ClaimError(f"{claim.text}: the {capture.device} capture {capture_file(capture)} has no profiling session")
    index = -1 if claim.session is None else claim.session
    try:
        return capture.sessions[index]
    except IndexError:
        raise ClaimError(f"{claim.text}: the {capture.device} capture {capture_file(capture)} has "
                         f"{len(capture.sessions)} profiling session(s): #{index} is not one of them") from None


@kind("launches", sessions=True)
def launches(claim: Claim, capture: Capture) -> int:
    return session_of(claim, capture).launches


@kind("kernel", checks=False, code=True, sessions=True, show=lambda claim, got, lang: short_name(got), args="`~ TEXT`, the text the kernel's name contains")
def kernel(claim: Claim, capture: Capture) -> str:
    session = session_of(claim, capture)
    needle = claim.args.lstrip("~").strip()
    names = [k.name for k in session.kernels if needle in k.name]
    if not names:
        launched = ", ".join(short_name(k.name) for k in session.kernels) or "none"
        raise ClaimError(f"{claim.text}: no kernel containing {needle!r} in the {capture.device} capture "
                         f"{capture_file(capture)} (launched: {launched})")
    return names[0]


@kind("kernels", sessions=True, show=lambda claim, got, lang: LIST_SEP[lang].join(short_name(n) for n in got))
def kernels(claim: Claim, capture: Capture) -> list[str]:
    return [k.name for k in session_of(claim, capture).kernels]


@kind("time", sessions=True, show=lambda claim, got, lang: format_seconds(got))
def time(claim: Claim, capture: Capture) -> float:
    return session_of(claim, capture).kernel_time_us * 1e-6


@kind("device")
def device(claim: Claim, capture: Capture) -> str:
    return capture.environment.device_name


def _show_value(claim: Claim, got: Any, lang: str) -> str:
    if isinstance(got, list):
        return LIST_SEP[lang].join(_show_value(claim, item, lang) for item in got)
    if isinstance(got, str) and claim.op == "~" and "\n" in got.strip():
        return quoted_line(got, str(claim.expected))
    if isinstance(got, (int, float)) and not isinstance(got, bool):
        return by_key(claim.args, got)  # written by the key's suffix: units.py
    return show_plain(claim, got, lang)


def quoted_line(text: str, needle: str) -> str:
    """The line of a multi-line ``text`` that holds ``needle``, stripped: what a ``~`` claim on
    generated code quotes (the capture's own line, never the author's). No such line: the
    first line and an ellipsis (for the message that says the check failed)."""
    lines = [line.strip() for line in text.strip().splitlines()]
    return next((line for line in lines if needle in line), lines[0] + " …")


@kind("value", show=_show_value, args="a key of the snippet's results")
def value_of(claim: Claim, capture: Capture) -> Any:
    return lookup(capture.data, claim.args, claim, capture)


@kind("ratio", show=lambda claim, got, lang: format_ratio(got, lang, exact=claim.op == "=="), args="`A / B`, two keys of the snippet's results")
def ratio(claim: Claim, capture: Capture) -> float:
    top, _, bottom = claim.args.partition("/")
    if not bottom:
        raise ClaimError(f"{claim.text}: a ratio is written `A / B`")
    numerator = _number(lookup(capture.data, top.strip(), claim, capture), top.strip(), claim)
    denominator = _number(lookup(capture.data, bottom.strip(), claim, capture), bottom.strip(), claim)
    if denominator == 0:
        raise ClaimError(f"{claim.text}: {bottom.strip()} is zero in the {capture.device} capture {capture_file(capture)}")
    return numerator / denominator


def _number(got: Any, key: str, claim: Claim) -> float:
    if isinstance(got, bool) or not isinstance(got, (int, float)):
        raise ClaimError(f"{claim.text}: {key} is {type(got).__name__} {got!r}, not a number")
    return got


def lookup(data: Any, path: str, claim: Claim, capture: Capture) -> Any:
    """``results[path]``, a dotted path with list indices (``rows.-1.eager_s``); never null."""
    if not path:
        raise ClaimError(f"{claim.text}: names no key of the snippet's results")
    current = data
    for part in path.split("."):
        try:
            current = current[int(part)] if isinstance(current, list) else current[part]
        except (KeyError, IndexError, TypeError, ValueError):
            raise ClaimError(f"{claim.text}: the {capture.device} capture {capture_file(capture)} of {claim.snippet} "
                             f"has no value at {path!r}") from None
    if current is None:
        raise ClaimError(f"{claim.text}: the {capture.device} capture {capture_file(capture)} of {claim.snippet} "
                         f"holds null at {path!r}: a claim needs a value")
    return current


# ---------------------------------------------------------------- reading a claim


def pattern() -> re.Pattern[str]:
    """Every claim of a registered kind: ``[[kb:KIND REST]]``."""
    names = "|".join(sorted(map(re.escape, KINDS), key=len, reverse=True))
    return re.compile(rf"\[\[kb:({names})\s+([^\]]*?)\s*\]\]")


def parse(kind_name: str, rest: str, text: str) -> Claim:
    """A claim from the text after its kind: ``SNIPPET[#SEL] [ARGS] [@DEVICE] [OP VALUE]``."""
    spec = KINDS.get(kind_name)
    if spec is None:
        raise ClaimError(f"{text}: unknown claim kind {kind_name!r} (known: {', '.join(KINDS)})")
    parts = rest.split(None, 1)
    if not parts:
        raise ClaimError(f"{text}: names no snippet")
    snippet, tail = parts[0], (parts[1] if len(parts) > 1 else "")
    snippet, session, until = _selector(snippet, spec, text)
    op = expected = None
    if spec.checks:
        match = _CHECK.match(tail) if tail else None
        if match:
            tail, op, expected = match.group(1).strip(), match.group(2), match.group(3).strip('"')
    tail, scope = _scope(tail, text)
    if op == "~" and not expected:
        raise ClaimError(f"{text}: `~` needs the text to look for")
    claim = Claim(kind_name, snippet, tail.strip(), op, expected, text, session, until, scope)
    _can_fail(claim, spec)
    if claim.is_range and op not in (None, "==", "!="):
        raise ClaimError(f"{text}: a range of sessions is a list: check it with == or != and a comma list (== 1,2,4,8)")
    if expected is not None and expected.startswith("#") and (not spec.sessions or claim.is_range or not _SELECT.match(expected[1:])):
        raise ClaimError(f"{text}: `{op} {expected}` compares with another profiling session, which only a "
                         f"one-session claim of {', '.join(k for k, s in KINDS.items() if s.sessions)} can do")
    return claim


def _can_fail(claim: Claim, spec: Kind) -> None:
    """A claim that could never fail is refused: a check every value passes, or words a check ignores."""
    text, args = claim.text, claim.args
    if spec.checks and any(word in OPS for word in args.split()):
        raise ClaimError(f"{text}: one check per claim (`OP VALUE` at the end): the `{args}` before it would be ignored")
    if (not spec.args and args) or (spec.args and not args.lstrip("~").strip()):
        raise ClaimError(f"{text}: `{spec.name}` " + (f"needs {spec.args}" if spec.args else f"takes no arguments, so `{args}` would be ignored"))
    infinite = next((item for item in (claim.expected or "").split(",") if _NOT_FINITE.fullmatch(item.strip())), None)
    if infinite is not None:
        raise ClaimError(f"{text}: `{claim.op} {claim.expected}` compares with {infinite}, which no captured number can "
                         "contradict (or match): write a finite number")


def _selector(snippet: str, spec: Kind, text: str) -> tuple[str, int | None, int | None]:
    """``ch01/x#1`` -> ("ch01/x", 1, None); ``ch01/x#0..3`` -> ("ch01/x", 0, 3)."""
    snippet, hash_, select = snippet.partition("#")
    if not hash_:
        return snippet, None, None
    if not spec.sessions:
        raise ClaimError(f"{text}: `{spec.name}` does not read a profiling session; drop `#{select}`")
    match = _SELECT.match(select)
    if not match:
        raise ClaimError(f"{text}: `#{select}` is not a session (write #N or #A..B, 0-based, negative from the end)")
    return snippet, int(match.group(1)), None if match.group(2) is None else int(match.group(2))


def _scope(tail: str, text: str) -> tuple[str, str | None]:
    """The ``@cuda`` / ``@cpu`` token that ends what is left of a claim, if any."""
    words = tail.split()
    scoped = [w for w in words if w.startswith("@")]
    if not scoped:
        return tail, None
    device = scoped[-1][1:]
    if len(scoped) > 1 or words[-1] != scoped[-1] or not SCOPE.fullmatch(device):
        raise ClaimError(f"{text}: a scope is one @cuda or @cpu (or @reference, or a GPU architecture such as @sm90), after the snippet's arguments and before the check")
    return " ".join(words[:-1]), device


def find(markdown: str) -> list[Claim]:
    return [parse(m.group(1), m.group(2), m.group(0)) for m in pattern().finditer(markdown)]


# ---------------------------------------------------------------- values and checks


def value(claim: Claim, capture: Capture) -> Any:
    """The raw value a claim reads from one capture (a list for a range of sessions)."""
    spec = KINDS.get(claim.kind)
    if spec is None:
        raise ClaimError(f"{claim.text}: unknown claim kind {claim.kind!r}")
    if not claim.is_range:
        return spec.read(claim, capture)
    n = len(capture.sessions)
    first, last = (i + n if i < 0 else i for i in (claim.session, claim.until))
    if not 0 <= first <= last < n:
        raise ClaimError(f"{claim.text}: the {capture.device} capture {capture_file(capture)} has {n} profiling "
                         f"session(s): #{claim.session}..{claim.until} is not a range of them")
    return [spec.read(dataclasses.replace(claim, session=i, until=None), capture) for i in range(first, last + 1)]


def check(claim: Claim, capture: Capture) -> Any:
    """The claim's value from ``capture``; ClaimError when the capture contradicts the claim."""
    got = value(claim, capture)
    if claim.op is None:
        return got
    if str(claim.expected).startswith("#"):  # another session of the same capture
        expected = value(dataclasses.replace(claim, session=int(claim.expected[1:]), until=None), capture)
        said = f" and session {claim.expected} says {format_value(claim, expected, 'en')}"
    else:
        expected, said = _expected(claim, got), ""
    try:
        holds = OPS[claim.op](got, expected)
    except TypeError:
        raise ClaimError(f"{claim.text}: cannot compare {type(got).__name__} {got!r} with {claim.expected!r} "
                         f"(`~` looks for text in a string or a list of strings)") from None
    if not holds:
        env = capture.environment
        raise ClaimError(
            f"{claim.text}: the {capture.device} capture {capture_file(capture)} says {format_value(claim, got, 'en')}{said} "
            f"({env.device_name}, torch {env.torch}, {env.captured_at})"
        )
    return got


def _expected(claim: Claim, got: Any) -> Any:
    """The written value, read as the kind of value the capture holds."""
    text = str(claim.expected)
    if claim.op == "~":
        return text
    if isinstance(got, list):
        items = text.split(",")
        return [_scalar(claim, item, g) for item, g in zip(items, got)] + items[len(got):]
    return _scalar(claim, text, got)


def _scalar(claim: Claim, text: str, got: Any) -> Any:
    if isinstance(got, bool):
        if text.lower() not in ("true", "false"):
            raise ClaimError(f"{claim.text}: {claim.snippet} holds a true/false value; write true or false")
        return text.lower() == "true"
    if isinstance(got, (int, float)):
        try:
            return float(text) if isinstance(got, float) or "." in text or "e" in text.lower() else int(text)
        except ValueError:
            raise ClaimError(f"{claim.text}: {text!r} is not a number, but the capture holds {got!r}") from None
    return text


def format_value(claim: Claim, got: Any, lang: str) -> str:
    """Plain text of a value, for prose and messages (a list of sessions' values joined)."""
    show = KINDS[claim.kind].show
    if claim.is_range:
        return LIST_SEP[lang].join(show(claim, item, lang) for item in got)
    return show(claim, got, lang)


# ---------------------------------------------------------------- which captures a claim speaks for


@dataclass(frozen=True)
class Reading:
    """What a claim says on a page: its value and the capture behind it, or the device it waits for."""

    claim: Claim
    value: Any = None
    capture: Capture | None = None  # the capture shown; None: no fresh capture of the claim's device
    checked: tuple[Capture, ...] = ()  # the fresh captures its check held on

    @property
    def unchecked_on(self) -> str | None:
        """The device a scoped claim waits for when no fresh capture of it exists."""
        return self.claim.scope if self.capture is None else None


def read(claim: Claim, fresh: tuple[Capture, ...], shown: Capture | None, reference: str | None = None) -> Reading:
    """Check ``claim`` on the fresh captures it speaks for, and read the value the page shows.

    Unscoped: every fresh capture, the page's own shown. Scoped: the fresh captures of its scope, the first shown.
    """
    if claim.scope is None:
        targets, shown_here = fresh, shown
    else:
        targets = tuple(c for c in fresh if gpus.in_scope(claim.scope, c, reference))
        shown_here = targets[0] if targets else None
    for capture in targets:
        check(claim, capture)
    if shown_here is None:
        return Reading(claim)
    return Reading(claim, value(claim, shown_here), shown_here, targets)
