"""``to_json`` of the Trigon and triangle-tile readings, exactly as INTERFACES §3 shows them."""

from __future__ import annotations

import json

import numpy as np

from vision.read.trigon import TrigonCell, TrigonReading
from vision.read.tritiles import tiles_from_corners


def test_trigon_json_shape() -> None:
    """§3: {"game": "trigon", "board": {"corners_px": [[x, y]…]}, "cells": [{"cell", "colour", "confidence"}]}."""
    r = TrigonReading("trigon", tuple((float(i), float(2 * i)) for i in range(6)),
                      (TrigonCell("r15", "blue", 0.97123),), 0.9)
    j = json.loads(json.dumps(r.to_json()))
    assert list(j) == ["game", "board", "cells"]
    assert j["game"] == "trigon"
    assert list(j["board"]) == ["corners_px"] and len(j["board"]["corners_px"]) == 6
    assert all(len(p) == 2 for p in j["board"]["corners_px"])
    assert j["cells"] == [{"cell": "r15", "colour": "blue", "confidence": 0.971}]


def test_tiles_json_shape() -> None:
    """§3: {"game": G, "tiles": [{"center_px", "corners": [{"px", "value"}×3 clockwise], "cell", "field",
    "confidence"}]}."""
    h = np.sqrt(3) / 2 * 40
    tri = np.array([[80.0, 100 + h], [100.0, 100.0], [120.0, 100 + h]])  # given anticlockwise
    r = tiles_from_corners("trio_domino", [tri], [(3, 0, 5)], [0.95])
    j = json.loads(json.dumps(r.to_json()))
    assert list(j) == ["game", "tiles"] and j["game"] == "trio_domino"
    (t,) = j["tiles"]
    assert list(t) == ["center_px", "corners", "cell", "field", "confidence"]
    assert t["cell"] == [0, 0] and t["field"] == 0 and t["confidence"] == 0.95
    assert len(t["corners"]) == 3 and all(list(c) == ["px", "value"] for c in t["corners"])
    pts = np.array([c["px"] for c in t["corners"]])
    a, b = pts[1] - pts[0], pts[2] - pts[0]
    cross = a[0] * b[1] - a[1] * b[0]
    assert cross > 0  # clockwise in the image (y down)
    assert [c["value"] for c in t["corners"]] == [0, 5, 3]  # apex first, then clockwise
