"""Numbers in the prose, inserted from captures and checked against them. Pure.

Inline directives (inside sentences):
  [[kb:launches SNIPPET]]            kernel launches in the last profiling session
  [[kb:launches SNIPPET == 2]]       ... and the build fails unless every fresh capture agrees
  [[kb:kernel SNIPPET ~ add]]        the launched kernel whose name contains "add" (must exist)
  [[kb:kernels SNIPPET]]             all launched kernels, short names
  [[kb:time SNIPPET]]                total kernel time of the last session
  [[kb:device SNIPPET]]              the device the shown capture ran on
  [[kb:value SNIPPET KEY [OP X]]]    a value the snippet stored in ``results`` (dotted KEY)
  [[kb:ratio SNIPPET A / B [OP X]]]  results[A] / results[B], shown as "N×"
The value is taken from the capture the page shows; a check (OP X) must hold for every
fresh capture of that snippet, CUDA and CPU alike.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from typing import Any, Callable

from .kernels import short_name
from .records import Capture

INLINE = re.compile(r"\[\[kb:(launches|kernels?|time|device|value|ratio)\s+([^\]]*?)\s*\]\]")
OPS: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq, "!=": operator.ne, ">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt,
}
_CHECK = re.compile(r"^(.*?)\s*(==|!=|>=|<=|>|<)\s*(\S+)$")


class ClaimError(ValueError):
    """A claim the captures contradict, or one that cannot be read."""


@dataclass(frozen=True)
class Claim:
    kind: str  # launches | kernel | kernels | time | device | value | ratio
    snippet: str
    args: str  # what follows the snippet id, before any check
    op: str | None = None
    expected: str | None = None
    text: str = ""  # the directive as written

    @property
    def checked(self) -> bool:
        return self.op is not None or self.kind == "kernel"


def parse(kind: str, rest: str, text: str) -> Claim:
    parts = rest.split(None, 1)
    if not parts:
        raise ClaimError(f"{text}: names no snippet")
    snippet, tail = parts[0], (parts[1] if len(parts) > 1 else "")
    op = expected = None
    if kind != "kernel":
        match = _CHECK.match(tail) if tail else None
        if match:
            tail, op, expected = match.group(1).strip(), match.group(2), match.group(3)
    return Claim(kind, snippet, tail.strip(), op, expected, text)


def find(markdown: str) -> list[Claim]:
    return [parse(m.group(1), m.group(2), m.group(0)) for m in INLINE.finditer(markdown)]


def value(claim: Claim, capture: Capture) -> Any:
    """The raw value a claim reads from one capture."""
    session = capture.last_session
    if claim.kind in ("launches", "kernel", "kernels", "time") and session is None:
        raise ClaimError(f"{claim.text}: the {capture.device} capture of {claim.snippet} has no profiling session")
    if claim.kind == "launches":
        return session.launches
    if claim.kind == "kernel":
        needle = claim.args.lstrip("~").strip()
        names = [k.name for k in session.kernels if needle in k.name]
        if not names:
            launched = ", ".join(short_name(k.name) for k in session.kernels) or "none"
            raise ClaimError(f"{claim.text}: no kernel containing {needle!r} in the {capture.device} capture (launched: {launched})")
        return names[0]
    if claim.kind == "kernels":
        return [k.name for k in session.kernels]
    if claim.kind == "time":
        return session.kernel_time_us * 1e-6
    if claim.kind == "device":
        return capture.environment.device_name
    if claim.kind == "value":
        return lookup(capture.data, claim.args, claim, capture)
    if claim.kind == "ratio":
        top, _, bottom = claim.args.partition("/")
        if not bottom:
            raise ClaimError(f"{claim.text}: a ratio is written `A / B`")
        numerator = _number(lookup(capture.data, top.strip(), claim, capture), top.strip(), claim)
        denominator = _number(lookup(capture.data, bottom.strip(), claim, capture), bottom.strip(), claim)
        if denominator == 0:
            raise ClaimError(f"{claim.text}: {bottom.strip()} is zero in the {capture.device} capture")
        return numerator / denominator
    raise ClaimError(f"{claim.text}: unknown claim kind {claim.kind!r}")


def _number(got: Any, key: str, claim: Claim) -> float:
    if isinstance(got, bool) or not isinstance(got, (int, float)):
        raise ClaimError(f"{claim.text}: {key} is {type(got).__name__} {got!r}, not a number")
    return got


def lookup(data: Any, path: str, claim: Claim, capture: Capture) -> Any:
    current = data
    for part in path.split("."):
        try:
            current = current[int(part)] if isinstance(current, list) else current[part]
        except (KeyError, IndexError, TypeError, ValueError):
            raise ClaimError(f"{claim.text}: the {capture.device} capture of {claim.snippet} has no value at {path!r}") from None
    return current


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
    if claim.kind == "kernel":
        return short_name(got)
    if claim.kind == "kernels":
        return ", ".join(short_name(n) for n in got)
    if claim.kind == "ratio":
        return f"{got:.0f}×" if got >= 10 else f"{got:.1f}×" if got >= 1 else f"{got:.2f}×"
    if claim.kind == "time" or (claim.kind == "value" and claim.args.endswith("_s") and isinstance(got, (int, float))):
        return format_seconds(got)
    if isinstance(got, bool) or not isinstance(got, (int, float)):
        return str(got)
    if isinstance(got, int):
        return f"{got:,}"
    return f"{got:.3g}"


def format_seconds(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} µs"
