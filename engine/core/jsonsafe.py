"""Strict JSON reading for input from outside: records, request bodies.

Python's ``json`` accepts more than JSON: ``NaN`` and ``Infinity``, numbers that overflow to
infinity (``1e400``), lone surrogates (``"\\ud800"``, not encodable as UTF-8) and any nesting
depth until the interpreter's recursion limit. ``loads_strict`` refuses all of these with a
``JsonInputError`` whose message is one sentence, so that every reader (the CLI's record readers,
the server's write routes) refuses the same things in the same words.
"""

from __future__ import annotations

import json
import math
from typing import Any

#: Deepest nesting of arrays and objects accepted (a correction of a correction … is a few levels).
MAX_DEPTH = 64
#: Largest whole number accepted (SQLite's INTEGER, the widest any field is stored as).
MAX_INT = 2**63 - 1


class JsonInputError(ValueError):
    """JSON text that is refused; the message says why in one sentence."""


def _no_constant(name: str) -> Any:
    raise JsonInputError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JsonInputError(f"the number {text[:40]} is too large")
    return value


def _bounded_int(text: str) -> int:
    if len(text) > 20:
        raise JsonInputError(f"the number {text[:40]}… is too large")
    value = int(text)
    if not -MAX_INT - 1 <= value <= MAX_INT:
        raise JsonInputError(f"the number {text} is too large")
    return value


def loads_strict(text: str | bytes, max_depth: int = MAX_DEPTH, non_finite: bool = False) -> Any:
    """``text`` parsed as strict JSON; ``JsonInputError`` for anything beyond standard JSON
    (see the module docstring), for invalid UTF-8 and for nesting deeper than ``max_depth``.

    With ``non_finite`` NaN, Infinity and overflowing numbers are read as floats, for a reader
    that checks every number field itself and names the field in its message.
    """
    if isinstance(text, bytes | bytearray):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JsonInputError(f"the body is not UTF-8 text (byte {exc.start})") from None
    try:
        if non_finite:
            value = json.loads(text, parse_int=_bounded_int)
        else:
            value = json.loads(text, parse_constant=_no_constant, parse_float=_finite_float, parse_int=_bounded_int)
    except JsonInputError:
        raise
    except json.JSONDecodeError as exc:
        raise JsonInputError(f"not valid JSON ({exc.msg} at character {exc.pos})") from None
    except RecursionError:
        raise JsonInputError(f"JSON nested more than {max_depth} levels deep") from None
    check_value(value, max_depth)
    return value


def check_value(value: Any, max_depth: int = MAX_DEPTH) -> None:
    """``JsonInputError`` when parsed JSON nests deeper than ``max_depth`` or holds a string
    (a key or a value) that is not valid Unicode text (a lone surrogate)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            _check_text(item)
            continue
        if not isinstance(item, dict | list):
            continue
        if depth > max_depth:
            raise JsonInputError(f"JSON nested more than {max_depth} levels deep")
        if isinstance(item, dict):
            for key, sub in item.items():
                _check_text(key)
                stack.append((sub, depth + 1))
        else:
            stack.extend((sub, depth + 1) for sub in item)


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise JsonInputError(f"a string holds a lone surrogate (\\u{ord(text[exc.start]):04x}), "
                             "which is not Unicode text") from None
