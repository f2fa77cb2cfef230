"""Checked access to fields of a JSON object, raising ``EventFormatError`` with a clear message."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import EventFormatError


def require(obj: Mapping[str, Any], key: str) -> Any:
    """The value of ``key``; a missing key is a format error."""
    if key not in obj:
        raise EventFormatError(f'missing field "{key}"')
    return obj[key]


def get_int(
    obj: Mapping[str, Any], key: str, *, lo: int | None = None, hi: int | None = None, default: Any = ...
) -> Any:
    """An integer field within ``[lo, hi]``; booleans are not integers here."""
    if key not in obj:
        if default is ...:
            raise EventFormatError(f'missing field "{key}"')
        return default
    return check_int(obj[key], f'"{key}"', lo=lo, hi=hi)


def check_int(value: Any, what: str, *, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` as an integer within ``[lo, hi]``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise EventFormatError(f"{what} must be a whole number, not {value!r}")
    if lo is not None and value < lo:
        raise EventFormatError(f"{what} is {value}; it must be at least {lo}")
    if hi is not None and value > hi:
        raise EventFormatError(f"{what} is {value}; it must be at most {hi}")
    return value


def get_str(obj: Mapping[str, Any], key: str, *, choices: tuple[str, ...] | None = None) -> str:
    """A string field, optionally one of ``choices``."""
    value = require(obj, key)
    if not isinstance(value, str):
        raise EventFormatError(f'"{key}" must be a string, not {value!r}')
    if choices is not None and value not in choices:
        raise EventFormatError(f'"{key}" is {value!r}; expected one of {", ".join(choices)}')
    return value


def get_list(obj: Mapping[str, Any], key: str, *, min_len: int = 0, max_len: int | None = None) -> list[Any]:
    """A list field with a length in ``[min_len, max_len]``."""
    value = require(obj, key)
    if not isinstance(value, list):
        raise EventFormatError(f'"{key}" must be a list, not {value!r}')
    if len(value) < min_len:
        raise EventFormatError(f'"{key}" needs at least {min_len} item(s), got {len(value)}')
    if max_len is not None and len(value) > max_len:
        raise EventFormatError(f'"{key}" holds at most {max_len} item(s), got {len(value)}')
    return value


def get_bool(obj: Mapping[str, Any], key: str, default: bool = False) -> bool:
    """A boolean field (absent means ``default``)."""
    value = obj.get(key, default)
    if not isinstance(value, bool):
        raise EventFormatError(f'"{key}" must be true or false, not {value!r}')
    return value


def get_object(obj: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    """A nested JSON object."""
    value = require(obj, key)
    if not isinstance(value, dict):
        raise EventFormatError(f'"{key}" must be a JSON object, not {value!r}')
    return value
