"""Reading one JSON value against a schema's rule, with its path in the message. Pure.

``records`` builds a capture with these, and so does every record nested in it: each
value is checked as the published schema states it (types, ranges, patterns, finite
numbers), and a bad one is an :class:`Invalid` naming its path (``sessions[0].launches``).
"""

from __future__ import annotations

import json
import re
from dataclasses import fields
from typing import Any

from .files import finite_number


class Invalid(ValueError):
    """One field that breaks the format: its path in the JSON and what is wrong with it."""


def show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, float) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def get(raw: dict, key: str, at: str, default: Any = ...) -> Any:
    if key not in raw:
        if default is not ...:
            return default
        raise Invalid(f"{path_of(at, key)} is missing")
    return raw[key]


def path_of(at: str, key: str) -> str:
    return f"{at}.{key}" if at else key


def record(raw: Any, at: str, kind: type) -> dict:
    """``raw`` as an object with no field the record ``kind`` lacks."""
    if not isinstance(raw, dict):
        raise Invalid(f"{at} is {show(raw)}, expected an object")
    unknown = sorted(set(raw) - {f.name for f in fields(kind)})
    if unknown:
        raise Invalid(f"{at} has unknown field(s) {', '.join(map(repr, unknown))}")
    return raw


def record_at(raw: dict, key: str, at: str, kind: type) -> dict:
    return record(get(raw, key, at), path_of(at, key), kind)


def listed(raw: dict, key: str, at: str, default: Any = ...) -> list:
    value = get(raw, key, at, default)
    if not isinstance(value, list):
        raise Invalid(f"{path_of(at, key)} is {show(value)}, expected a list")
    return value


def text(raw: dict, key: str, at: str, *, pattern: re.Pattern | None = None, empty: bool = True,
         optional: bool = False) -> str | None:
    value = get(raw, key, at, None if optional else ...)
    if value is None and optional:
        return None
    if not isinstance(value, str) or (not empty and not value) or (pattern is not None and not pattern.fullmatch(value)):
        wanted = f"a string matching {pattern.pattern}" if pattern is not None else "a non-empty string" if not empty else "a string"
        raise Invalid(f"{path_of(at, key)} is {show(value)}, expected {wanted}{' or null' if optional else ''}")
    return value


def texts(value: Any, at: str, pattern: re.Pattern) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and pattern.fullmatch(v) for v in value):
        raise Invalid(f"{at} is {show(value)}, expected a list of names matching {pattern.pattern}")
    return value


def choice(raw: dict, key: str, at: str, allowed: tuple[str, ...]) -> str:
    value = get(raw, key, at)
    if value not in allowed:
        raise Invalid(f"{path_of(at, key)} is {show(value)}, expected one of {', '.join(allowed)}")
    return value


# Counts and times far beyond any real run, but small enough that sums, ratios and formatting
# of them stay finite numbers (a count of 10**400 cannot even be turned into a float).
MAX_INTEGER = 2**53
MAX_NUMBER = 1e15
MAX_DEPTH = 64  # nesting of `results` and `settings`: far deeper than any figure or claim reads


def integer(raw: dict, key: str, at: str, minimum: int = 0, default: Any = ...) -> int:
    value = get(raw, key, at, default)
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= MAX_INTEGER:
        raise Invalid(f"{path_of(at, key)} is {show(value)}, expected an integer from {minimum} to 2**53")
    return value


def number(raw: dict, key: str, at: str, minimum: float | None = 0) -> float:
    value = get(raw, key, at)
    low = -MAX_NUMBER if minimum is None else minimum
    if not _finite(value) or not low <= value <= MAX_NUMBER:
        raise Invalid(f"{path_of(at, key)} is {show(value)}, expected a finite number from {low:g} to {MAX_NUMBER:g}")
    return float(value)


def _finite(value: Any) -> bool:
    try:
        return finite_number(value)
    except OverflowError:  # an integer too large for a float
        return False


def json_value(value: Any, at: str) -> Any:
    """A value that came from JSON (``results``, ``settings``): numbers a float can hold, nesting at most MAX_DEPTH."""
    stack = [(value, at, 0)]
    while stack:
        item, where, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise Invalid(f"{where} is nested more than {MAX_DEPTH} levels deep")
        if isinstance(item, dict):
            for key, inner in item.items():
                if not isinstance(key, str):
                    raise Invalid(f"{where} has a key {show(key)} that is not a string")
                stack.append((inner, f"{where}.{key}", depth + 1))
        elif isinstance(item, list):
            stack.extend((inner, f"{where}[{i}]", depth + 1) for i, inner in enumerate(item))
        elif isinstance(item, (int, float)) and not isinstance(item, bool):
            if not _finite(item):
                raise Invalid(f"{where} is {show(item)}, expected a finite number a float can hold")
        elif not (item is None or isinstance(item, (str, bool))):
            raise Invalid(f"{where} is a {type(item).__name__}, not a JSON value")
    return value
