"""The renderer's outline typefaces come with the repository (``lab/render/typefaces``), so a
seed renders the same picture on every machine, and a held-out typeface is really drawn."""

from __future__ import annotations

import struct
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from lab.render import random_frame
from lab.render.fonts import _ttf_text, resolved_typeface
from lab.render.holdout import HELD_OUT, held_out_pool
from lab.render.make_typefaces import SYSTEM
from lab.render.styles import TYPEFACE_DIR, TYPEFACES

OUTLINE = [t for t in TYPEFACES.values() if t.kind == "ttf" and t.path]


def font_revision(path: Path) -> int:
    """The ``head`` table's fontRevision (16.16 fixed) of a TrueType file."""
    data = path.read_bytes()
    (tables,) = struct.unpack(">H", data[4:6])
    for k in range(tables):
        tag, _, offset, _ = struct.unpack(">4sIII", data[12 + 16 * k:28 + 16 * k])
        if tag == b"head":
            return int(struct.unpack(">I", data[offset + 4:offset + 8])[0])
    raise ValueError(f"{path}: no head table")


def test_every_outline_typeface_is_in_the_repository_and_drawn() -> None:
    assert len(OUTLINE) == 11
    for tf in OUTLINE:
        assert Path(tf.path).parent == TYPEFACE_DIR and Path(tf.path).is_file()
        assert resolved_typeface(tf.name) == tf.name  # no fallback to a stroke or Hershey face
    assert (TYPEFACE_DIR / "LICENSE-DejaVu.txt").is_file() and (TYPEFACE_DIR / "LICENSE-Liberation.txt").is_file()


def test_subset_digits_draw_as_the_full_fonts() -> None:
    """Where the machine has the fonts the subsets were made from (the same release), every value
    and count draws pixel for pixel the same."""
    compared = 0
    for tf in OUTLINE:
        name = Path(tf.path).name
        system = Path(SYSTEM["Liberation" if name.startswith("Liberation") else "DejaVu"]) / name
        if not system.is_file() or font_revision(system) != font_revision(Path(tf.path)):
            continue
        full = replace(tf, path=str(system))
        for value in range(16):
            a, b = _ttf_text(str(value), tf), _ttf_text(str(value), full)
            assert a is not None and b is not None
            assert a.shape == b.shape and np.array_equal(a, b), (tf.name, value)
        compared += 1
    if not compared:
        pytest.skip("the source fonts' releases are not installed here "
                    "(Debian 12: fonts-dejavu 2.37, fonts-liberation 1.07)")


def test_held_out_typeface_is_drawn_in_held_out_frames() -> None:
    """The benchmark's held-out row draws its held-out face, not a training face standing in for
    it (without the fonts in the repository, a machine lacking Liberation drew it as Hershey
    triplex, a training face)."""
    (face,) = HELD_OUT["typefaces"]
    fr = random_frame("triolet", 900_123, "normal", pool=held_out_pool(), size=(640, 360))
    assert fr.labels["style"]["typeface"] == face
    assert fr.labels["style"]["typeface_drawn"] == face
