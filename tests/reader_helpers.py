"""Shared helpers of the reader tests: rendered Triolet frames with known truth, cached per session."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from lab.render import random_frame
from lab.render.frame import RenderedFrame
from lab.render.triolet import TilePlacement

#: Seeds for tests: outside the training range (≥ 1,000,000) and the benchmark's default rows.
TEST_SEEDS = (900_001, 900_002, 900_003)


@lru_cache(maxsize=8)
def frame(seed: int, difficulty: str = "normal") -> RenderedFrame:
    """A random rendered frame at 1280×720."""
    return random_frame("triolet", seed, difficulty, size=(1280, 720))


#: A position with a 6 and a 9 in every turn, a wild, two-digit values and askew/off-centre tiles
#: (T-B3: the count digit tells 6 from 9). Rows are legal runs (T-P4) separated by empty squares.
SIX_NINE_TILES: tuple[TilePlacement, ...] = (
    TilePlacement("E5", 6, rotation=0, askew_deg=4.0),
    TilePlacement("G5", 9, rotation=0, askew_deg=-5.0),
    TilePlacement("I5", 6, rotation=2, offset=(0.08, -0.05)),
    TilePlacement("K5", 9, rotation=2, askew_deg=6.0),
    TilePlacement("E7", 6, rotation=1),
    TilePlacement("G7", 9, rotation=1, offset=(-0.1, 0.06)),
    TilePlacement("I7", 6, rotation=3, askew_deg=-7.0),
    TilePlacement("K7", 9, rotation=3),
    TilePlacement("E9", 12, rotation=0), TilePlacement("F9", 3, rotation=1),
    TilePlacement("H9", 0, wild=True, rotation=2),
    TilePlacement("K9", 15, rotation=3, askew_deg=3.0),
)


@lru_cache(maxsize=2)
def six_nine_frame(seed: int = 900_010) -> RenderedFrame:
    """An easy straight-on frame of ``SIX_NINE_TILES`` (easy: no hands)."""
    from lab.render.holdout import training_pool

    return random_frame("triolet", seed, "easy", pool=training_pool(), size=(1280, 720), tiles=SIX_NINE_TILES)


def truth_cells(fr: RenderedFrame) -> dict[str, tuple[int | None, bool]]:
    """The frame's true reading: square (view frame) → (value or None for a wild, wild)."""
    return {c["square"]: (c["value"], bool(c["wild"])) for c in fr.labels["read"]["cells"]}


def square_pitch_px(fr: RenderedFrame) -> float:
    """Average side of one square in the picture."""
    c = np.asarray(fr.labels["board"]["corners_px_view"], np.float64)
    return float(np.mean(np.hypot(*(np.roll(c, -1, axis=0) - c).T))) / 15.0


def write_truth_profile(fr: RenderedFrame, path: Path) -> Path:
    """A calibration profile (JSON) with the frame's true intrinsics and board corners."""
    from lab.bench.read import truth_profile

    path.write_text(json.dumps(truth_profile(fr.labels).to_json()), encoding="utf-8")
    return path


def as_jsonable(obj: Any) -> Any:
    """Round-trip through JSON (proves an object serialises)."""
    return json.loads(json.dumps(obj))
