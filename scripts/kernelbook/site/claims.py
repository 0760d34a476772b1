"""Numbers in the prose, inserted from captures and checked against them. Pure.

Inline directives (inside sentences), one claim kind each, registered below with ``@kind``:
  [[kb:launches SNIPPET]]            kernel launches in the last profiling session
  [[kb:launches SNIPPET == 2]]       ... and the build fails unless every fresh capture agrees
  [[kb:kernel SNIPPET ~ add]]        the launched kernel whose name contains "add" (must exist)
  [[kb:kernels SNIPPET]]             all launched kernels, short names
  [[kb:time SNIPPET]]                total kernel time of the last session
  [[kb:device SNIPPET]]              the device the shown capture ran on
  [[kb:value SNIPPET KEY [OP X]]]    a value the snippet stored in ``results`` (dotted KEY)
  [[kb:ratio SNIPPET A / B [OP X]]]  results[A] / results[B], shown as "N×"
The value is taken from the capture the page shows; a check (OP X) must hold for every
fresh capture of that snippet, CUDA and CPU alike. ``directives/claims.py`` makes each
kind an inline directive.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from typing import Any, Callable

from ..kernel_names import short_name
from ..records import Capture, Session
from .units import format_number, format_ratio, format_seconds

OPS: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq, "!=": operator.ne, ">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt,
}
_CHECK = re.compile(r"^(.*?)\s*(==|!=|>=|<=|>|<)\s*(\S+)$")


class ClaimError(ValueError):
    """A claim the captures contradict, or one that cannot be read."""


@dataclass(frozen=True)
class Claim:
    kind: str  # a name in KINDS: launches | kernel | kernels | time | device | value | ratio
    snippet: str
    args: str  # what follows the snippet id, before any check
    op: str | None = None
    expected: str | None = None
    text: str = ""  # the directive as written


def show_plain(claim: Claim, got: Any, lang: str) -> str:
    """Plain text of a value: integers with separators, floats to three digits, the rest as is."""
    if isinstance(got, bool) or not isinstance(got, (int, float)):
        return str(got)
    return format_number(got)


@dataclass(frozen=True)
class Kind:
    """One claim kind: how it reads its value from a capture, and how the value is written."""

    name: str
    read: Callable[[Claim, Capture], Any]
    show: Callable[[Claim, Any, str], str] = show_plain  # (claim, value, lang) -> plain text
    checks: bool = True  # takes a trailing `OP VALUE`
    code: bool = False  # shown as code (a kernel name), the full value as its tooltip


KINDS: dict[str, Kind] = {}


def kind(name: str, *, show: Callable[[Claim, Any, str], str] = show_plain, checks: bool = True, code: bool = False):
    """Register ``read(claim, capture) -> value`` as claim kind ``name`` (``[[kb:NAME SNIPPET ...]]``)."""
    def register(read: Callable[[Claim, Capture], Any]) -> Callable[[Claim, Capture], Any]:
        if name in KINDS:
            raise ValueError(f"claim kind {name!r} is registered twice")
        KINDS[name] = Kind(name, read, show, checks, code)
        return read
    return register


# ---------------------------------------------------------------- the kinds


def session_of(claim: Claim, capture: Capture) -> Session:
    """The profiling session a claim reads: the last one."""
    session = capture.last_session
    if session is None:
        raise ClaimError(f"{claim.text}: the {capture.device} capture of {claim.snippet} has no profiling session")
    return session


@kind("launches")
def launches(claim: Claim, capture: Capture) -> int:
    return session_of(claim, capture).launches


@kind("kernel", checks=False, code=True, show=lambda claim, got, lang: short_name(got))
def kernel(claim: Claim, capture: Capture) -> str:
    session = session_of(claim, capture)
    needle = claim.args.lstrip("~").strip()
    names = [k.name for k in session.kernels if needle in k.name]
    if not names:
        launched = ", ".join(short_name(k.name) for k in session.kernels) or "none"
        raise ClaimError(f"{claim.text}: no kernel containing {needle!r} in the {capture.device} capture (launched: {launched})")
    return names[0]


@kind("kernels", show=lambda claim, got, lang: ", ".join(short_name(n) for n in got))
def kernels(claim: Claim, capture: Capture) -> list[str]:
    return [k.name for k in session_of(claim, capture).kernels]


@kind("time", show=lambda claim, got, lang: format_seconds(got))
def time(claim: Claim, capture: Capture) -> float:
    return session_of(claim, capture).kernel_time_us * 1e-6


@kind("device")
def device(claim: Claim, capture: Capture) -> str:
    return capture.environment.device_name


def _show_value(claim: Claim, got: Any, lang: str) -> str:
    if claim.args.endswith("_s") and isinstance(got, (int, float)) and not isinstance(got, bool):
        return format_seconds(got)
    return show_plain(claim, got, lang)


@kind("value", show=_show_value)
def value_of(claim: Claim, capture: Capture) -> Any:
    return lookup(capture.data, claim.args, claim, capture)


@kind("ratio", show=lambda claim, got, lang: format_ratio(got))
def ratio(claim: Claim, capture: Capture) -> float:
    top, _, bottom = claim.args.partition("/")
    if not bottom:
        raise ClaimError(f"{claim.text}: a ratio is written `A / B`")
    numerator = _number(lookup(capture.data, top.strip(), claim, capture), top.strip(), claim)
    denominator = _number(lookup(capture.data, bottom.strip(), claim, capture), bottom.strip(), claim)
    if denominator == 0:
        raise ClaimError(f"{claim.text}: {bottom.strip()} is zero in the {capture.device} capture")
    return numerator / denominator


def _number(got: Any, key: str, claim: Claim) -> float:
    if isinstance(got, bool) or not isinstance(got, (int, float)):
        raise ClaimError(f"{claim.text}: {key} is {type(got).__name__} {got!r}, not a number")
    return got


def lookup(data: Any, path: str, claim: Claim, capture: Capture) -> Any:
    """``results[path]``, a dotted path with list indices (``rows.-1.eager_s``)."""
    current = data
    for part in path.split("."):
        try:
            current = current[int(part)] if isinstance(current, list) else current[part]
        except (KeyError, IndexError, TypeError, ValueError):
            raise ClaimError(f"{claim.text}: the {capture.device} capture of {claim.snippet} has no value at {path!r}") from None
    return current


# ---------------------------------------------------------------- reading and checking


def pattern() -> re.Pattern[str]:
    """Every claim of a registered kind: ``[[kb:KIND REST]]``."""
    names = "|".join(sorted(map(re.escape, KINDS), key=len, reverse=True))
    return re.compile(rf"\[\[kb:({names})\s+([^\]]*?)\s*\]\]")


def parse(kind_name: str, rest: str, text: str) -> Claim:
    parts = rest.split(None, 1)
    if not parts:
        raise ClaimError(f"{text}: names no snippet")
    snippet, tail = parts[0], (parts[1] if len(parts) > 1 else "")
    op = expected = None
    if KINDS[kind_name].checks:
        match = _CHECK.match(tail) if tail else None
        if match:
            tail, op, expected = match.group(1).strip(), match.group(2), match.group(3)
    return Claim(kind_name, snippet, tail.strip(), op, expected, text)


def find(markdown: str) -> list[Claim]:
    return [parse(m.group(1), m.group(2), m.group(0)) for m in pattern().finditer(markdown)]


def value(claim: Claim, capture: Capture) -> Any:
    """The raw value a claim reads from one capture."""
    spec = KINDS.get(claim.kind)
    if spec is None:
        raise ClaimError(f"{claim.text}: unknown claim kind {claim.kind!r}")
    return spec.read(claim, capture)


def check(claim: Claim, capture: Capture) -> None:
    """Raise ClaimError when the capture contradicts the claim."""
    got = value(claim, capture)
    if claim.op is None:
        return
    expected = _expected(claim, got)
    try:
        holds = OPS[claim.op](got, expected)
    except TypeError:
        raise ClaimError(f"{claim.text}: cannot compare {type(got).__name__} {got!r} with {claim.expected!r}") from None
    if not holds:
        raise ClaimError(
            f"{claim.text}: the {capture.device} capture says {format_value(claim, got, 'en')} "
            f"({capture.environment.device_name}, torch {capture.environment.torch}, {capture.environment.captured_at})"
        )


def _expected(claim: Claim, got: Any) -> Any:
    """The written value, read as the kind of value the capture holds."""
    text = str(claim.expected)
    if isinstance(got, bool):
        if text.lower() not in ("true", "false"):
            raise ClaimError(f"{claim.text}: {claim.snippet} holds a true/false value; write true or false")
        return text.lower() == "true"
    if isinstance(got, (int, float)):
        try:
            return float(text) if isinstance(got, float) or "." in text or "e" in text.lower() else int(text)
        except ValueError:
            raise ClaimError(f"{claim.text}: {claim.expected!r} is not a number, but the capture holds {got!r}") from None
    return text


def format_value(claim: Claim, got: Any, lang: str) -> str:
    """Plain text of a value, for prose and messages."""
    return KINDS[claim.kind].show(claim, got, lang)
