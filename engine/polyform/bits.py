"""Python ints as bit sets: building them and listing their members."""

from __future__ import annotations

from collections.abc import Iterable


def mask_of(indices: Iterable[int]) -> int:
    """The bit set holding ``indices``."""
    m = 0
    for i in indices:
        m |= 1 << i
    return m


def bit_indices(mask: int) -> list[int]:
    """The members of a bit set, ascending.

    Reads the binary text from the high end with ``str.find``, so the cost is one pass over the
    digits in C plus one step per member, not one big-int operation per member.
    """
    if not mask:
        return []
    text = bin(mask)
    top = len(text) - 1
    out: list[int] = []
    i = text.find("1", 2)
    while i != -1:
        out.append(top - i)
        i = text.find("1", i + 1)
    out.reverse()
    return out


def mask_from_indices(indices: Iterable[int], length: int) -> int:
    """The bit set of ``indices`` (all below ``length``), built in one pass through a byte array."""
    buf = bytearray((length + 7) // 8)
    for i in indices:
        buf[i >> 3] |= 1 << (i & 7)
    return int.from_bytes(buf, "little")
