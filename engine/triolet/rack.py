"""A player's rack as typed at the command line: ``3,5,W`` (``W`` = a wild), for the generator."""

from __future__ import annotations

from engine.core.errors import EventFormatError

from .tiles import MAX_VALUE, RACK_SIZE, VALUE_COUNTS, WILD, WILDS

#: Rack tiles: values 0–15 and ``"W"`` for a wild.
Rack = tuple[int | str, ...]


def parse_rack(text: str) -> Rack:
    """``"3,5,W"`` → ``(3, 5, "W")``; 1 to 3 tiles, values 0–15."""
    items = [p.strip() for p in text.split(",")]
    if not text.strip() or any(p == "" for p in items):
        raise EventFormatError(f"{text!r} is not a rack: give 1 to {RACK_SIZE} tiles like 3,5,W")
    if len(items) > RACK_SIZE:
        raise EventFormatError(f"a rack holds at most {RACK_SIZE} tiles, got {len(items)}")
    rack: list[int | str] = []
    for p in items:
        if p.upper() == WILD:
            rack.append(WILD)
            continue
        if not (p.isascii() and p.removeprefix("+").isdigit()):
            if p.isascii() and p.removeprefix("-").isdigit():
                raise EventFormatError(f"tile value {p} is outside 0 to {MAX_VALUE}")
            triple = p.count("-") == 2 and all(part.isdigit() for part in p.split("-"))
            hint = " (--hand is for Triominos and Trio Domino)" if triple else ""
            raise EventFormatError(f"{p!r} is not a tile: use a value 0 to {MAX_VALUE} or W for a wild{hint}")
        value = int(p)
        if value > MAX_VALUE:
            raise EventFormatError(f"tile value {value} is outside 0 to {MAX_VALUE}")
        rack.append(value)
    return _within_the_set(tuple(rack))


def _within_the_set(rack: Rack) -> Rack:
    """``rack``, if the tile set (T-B3) holds that many of each of its tiles, else ``EventFormatError``."""
    for t in set(rack):
        have = WILDS if t == WILD else VALUE_COUNTS[int(t)]
        if rack.count(t) > have:
            plural = "" if have == 1 else "s"
            what = f"wild{plural}" if t == WILD else f"tile{plural} of value {t}"
            raise EventFormatError(f"the set holds only {have} {what} (T-B3); the rack has {rack.count(t)}")
    return rack


def check_rack(rack: object) -> Rack:
    """``rack`` as a ``Rack`` if it is a sequence of values 0–15 and ``"W"``, else ``EventFormatError``."""
    if isinstance(rack, str):
        return parse_rack(rack)
    if not isinstance(rack, tuple | list):
        raise EventFormatError(f"a rack is a list of values and W, not {rack!r}")
    out: list[int | str] = []
    for t in rack:
        if t == WILD:
            out.append(WILD)
        elif isinstance(t, int) and not isinstance(t, bool) and 0 <= t <= MAX_VALUE:
            out.append(t)
        else:
            raise EventFormatError(f"{t!r} is not a tile: use a value 0 to {MAX_VALUE} or W for a wild")
    if len(out) > RACK_SIZE:
        raise EventFormatError(f"a rack holds at most {RACK_SIZE} tiles, got {len(out)}")
    return _within_the_set(tuple(out))
