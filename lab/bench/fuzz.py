"""Seeded hostile input for the server's write routes and the CLI's readers (records, pictures).

Each generator is deterministic for a seed: the same seed gives the same bodies, files and
pictures, so a failure found once is found again. Bodies start from valid ones and are broken
the ways a stranger or a buggy client would: NaN and Infinity, numbers past any range, lone
surrogates, invalid UTF-8, deep nesting, huge strings and lists, wrong types, unknown or missing
fields, truncation, stray bytes, wrong content types, no token or the viewer token.
"""

from __future__ import annotations

import io
import json
import random
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

#: The write routes of a table's server and a valid body for each (Triolet).
VALID_BODIES: dict[str, list[Any]] = {
    "/api/events": [
        {"type": "place", "player": 0, "tiles": [{"square": "H8", "value": 5}, {"square": "I8", "value": 7}]},
        {"type": "place", "player": 1, "tiles": [{"square": "H9", "value": 3, "wild": True}]},
        {"type": "exchange", "player": 1, "count": 2},
        {"type": "pass", "player": 0, "ts": 12.5, "source": "manual", "confidence": 0.9, "evidence": "f12"},
        {"type": "reveal", "player": 0, "values": [5, 7]},
        {"type": "correct", "seq": 1, "event": {"type": "place", "player": 0, "tiles": [{"square": "H8", "value": 4}]}},
        {"type": "undo", "seq": 1},
        {"type": "wild", "seq": 1, "square": "H8", "value": 3},
    ],
    "/api/games": [
        {"game": "triolet", "players": ["Ana", "Ben"], "options": {}, "first_player": 1},
        {"players": 3},
        {},
    ],
    "/api/corners": [
        {"corners": [[10, 10], [190, 12], [188, 90], [12, 88]]},
    ],
}

HOSTILE_VALUES: list[Any] = [
    float("nan"), float("inf"), float("-inf"), 1e308, -1e308, 10**30, -(10**30), 2**63, -1, 0, 1.5, True, None,
    "", "x" * 5000, "\ud800", "\udfff", "²", "H8\x00", "ℌ8", [], {}, [None] * 500, {"type": "correct"},
    "1e400", "NaN", 4.9e-324,
]

CONTENT_TYPES = ["application/json"] * 8 + ["text/plain", "", "application/x-www-form-urlencoded",
                                             "application/json; charset=latin-1", "application/problem+json"]


@dataclass(frozen=True)
class FuzzRequest:
    """One request: route, raw body, content type, and which token it carries."""

    path: str
    body: bytes
    content_type: str
    token: str  # "table", "viewer", "none" or "wrong"


def _leaves(obj: Any, max_depth: int = 8) -> list[tuple[Any, ...]]:
    """The paths to ``obj``'s values down to ``max_depth`` levels (a deep nest is not walked)."""
    out: list[tuple[Any, ...]] = []
    stack: list[tuple[Any, tuple[Any, ...]]] = [(obj, ())]
    while stack:
        item, path = stack.pop()
        out.append(path)
        if len(path) >= max_depth:
            continue
        if isinstance(item, dict):
            stack.extend((v, (*path, k)) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((v, (*path, i)) for i, v in enumerate(item[:50]))
    return sorted(out, key=repr)


def _replace(obj: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    copy: Any = dict(obj) if isinstance(obj, dict) else list(obj)
    copy[path[0]] = _replace(copy[path[0]], path[1:], value)
    return copy


def _deep(rng: random.Random, depth: int) -> Any:
    inner: Any = rng.choice([{"type": "pass", "player": 0}, 1, "x", None])
    for _ in range(depth):
        inner = rng.choice([[inner], {"type": "correct", "seq": 1, "event": inner}, {"a": inner}])
    return inner


def _serialise(rng: random.Random, obj: Any) -> bytes:
    try:
        text = json.dumps(obj, allow_nan=True, ensure_ascii=rng.random() < 0.5)
    except RecursionError:  # deep nests stacked on deep nests: deeper than Python writes
        return b'{"type": "correct", "seq": 1, "event": ' * 3000 + b"{}" + b"}" * 3000
    return text.encode("utf-8", "surrogatepass")  # a lone surrogate becomes bytes that are not UTF-8


def _mutate_object(rng: random.Random, obj: Any) -> Any:
    kind = rng.randrange(7)
    if kind == 0:  # a field becomes a hostile value
        where = rng.choice(_leaves(obj))
        return _replace(obj, where, rng.choice(HOSTILE_VALUES))
    if kind == 1 and isinstance(obj, dict):  # an unknown field
        return {**obj, rng.choice(["colour", "__proto__", "x" * 300, "\ud800", "type"]): rng.choice(HOSTILE_VALUES)}
    if kind == 2 and isinstance(obj, dict) and obj:  # a field missing
        drop = rng.choice(list(obj))
        return {k: v for k, v in obj.items() if k != drop}
    if kind == 3:  # nested deep
        where = rng.choice(_leaves(obj))
        return _replace(obj, where, _deep(rng, rng.choice([2, 10, 63, 65, 100, 300, 900])))
    if kind == 4:  # a long list where a short one is expected
        where = rng.choice(_leaves(obj))
        item = rng.choice([{"square": "H8", "value": 1}, "Ana", [1, 2], 7])
        return _replace(obj, where, [item] * rng.choice([7, 250, 5000]))
    if kind == 5:  # the wrong shape altogether
        return rng.choice([[obj], "event", 42, None, [], [1, 2], {"corners": obj}])
    return obj


def _mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    kind = rng.randrange(6)
    if kind == 0 and data:
        return data[: rng.randrange(len(data))]
    if kind == 1 and data:
        b = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b)
    if kind == 2:
        return b"\xef\xbb\xbf" + data  # a byte-order mark
    if kind == 3:
        return rng.choice([b"", b"null", b"[", b"{", b"\xff\xfe\x00", b"[" * 100_000, b'"' + b"\xc3" * 10 + b'"'])
    if kind == 4:
        return data + rng.choice([b"garbage", b"\x00", b"}", b"\n{}"])
    return data.replace(b"5", b"5e400", 1) if b"5" in data else data + b" "


def fuzz_requests(seed: int, count: int) -> Iterator[FuzzRequest]:
    """``count`` hostile requests over every write route, the same for the same ``seed``."""
    rng = random.Random(seed)
    paths = list(VALID_BODIES)
    for _ in range(count):
        path = rng.choice(paths)
        obj = rng.choice(VALID_BODIES[path])
        for _ in range(rng.choice([0, 1, 1, 2, 3])):
            obj = _mutate_object(rng, obj)
        data = _serialise(rng, obj)
        if rng.random() < 0.25:
            data = _mutate_bytes(rng, data)
        token = rng.choices(["table", "viewer", "none", "wrong"], weights=[85, 5, 5, 5])[0]
        yield FuzzRequest(path, data, rng.choice(CONTENT_TYPES), token)


# -- records -----------------------------------------------------------------------------------
RECORD_HEADER = {"format": "table-companion/1", "game": "triolet", "players": ["Ana", "Ben"], "options": {},
                 "first_player": 0}


def fuzz_records(seed: int, count: int) -> Iterator[bytes]:
    """``count`` broken record files (``.jsonl`` bytes): a valid game's lines, mutated."""
    rng = random.Random(seed)
    events = [e for e in VALID_BODIES["/api/events"] if e["type"] != "wild"]
    for _ in range(count):
        lines: list[Any] = [RECORD_HEADER] + [rng.choice(events) for _ in range(rng.randint(0, 6))]
        i = rng.randrange(len(lines))
        lines[i] = _mutate_object(rng, lines[i])
        data = b"\n".join(_serialise(rng, line) for line in lines) + b"\n"
        if rng.random() < 0.3:
            data = _mutate_bytes(rng, data)
        yield data


# -- pictures ----------------------------------------------------------------------------------
def png_declaring(width: int, height: int, data_bytes: int = 1024) -> bytes:
    """A PNG whose header declares ``width``×``height`` but which holds only ``data_bytes`` of
    compressed rows (zeros): a decompression bomb when the sizes are large."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    comp = zlib.compressobj(9)
    row = b"\x00" * (1 + 3 * min(width, 1 << 20))
    idat = b""
    while len(idat) < data_bytes:
        idat += comp.compress(row)
        if len(row) * 64 > 1 << 28:
            break
    idat += comp.flush()
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    idat = idat[:max(data_bytes, 16)]
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def jpeg_declaring(width: int, height: int) -> bytes:
    """A small JPEG whose frame header is patched to declare ``width``×``height``."""
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (16, 16), (90, 120, 60)).save(buf, "JPEG")
    data = bytearray(buf.getvalue())
    at = data.find(b"\xff\xc0")
    struct.pack_into(">HH", data, at + 5, height, width)
    return bytes(data)


def fuzz_pictures(seed: int, count: int) -> Iterator[tuple[str, bytes]]:
    """``count`` (suffix, bytes) hostile picture files: bombs, broken headers, random bytes."""
    from PIL import Image

    rng = random.Random(seed)
    buf = io.BytesIO()
    Image.new("RGB", (64, 48), (200, 30, 30)).save(buf, "PNG")
    good_png = buf.getvalue()
    buf = io.BytesIO()
    Image.new("RGB", (64, 48), (30, 30, 200)).save(buf, "JPEG")
    good_jpg = buf.getvalue()
    for _ in range(count):
        kind = rng.randrange(6)
        if kind == 0:
            side = rng.choice([9000, 20000, 30000, 65535, 1 << 20])
            yield ".png", png_declaring(side, rng.choice([side, 7100, 1]), rng.choice([64, 4096]))
        elif kind == 1:
            yield ".jpg", jpeg_declaring(rng.choice([8000, 30000, 65535]), rng.choice([7000, 30000, 65535]))
        elif kind in (2, 3):
            suffix, data = rng.choice([(".png", good_png), (".jpg", good_jpg)])
            yield suffix, _mutate_bytes(rng, data)
        elif kind == 4:
            yield rng.choice([".png", ".jpg", ".bmp", ".tif", ".webp"]), rng.randbytes(rng.randint(1, 4096))
        else:
            yield ".png", good_png[:33] + rng.randbytes(rng.randint(0, 200))
