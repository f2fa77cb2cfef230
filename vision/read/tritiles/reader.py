"""``read_triangles``: one picture of a Triominos / Trio Domino table → tiles, values, cells, fields.

Stages: ``finder`` (trained nets' tile centre, corner and face maps over a short pyramid of the
picture → tile triangles; the older ``detect``: face masks and a lattice fitted per blob),
``values`` (the corner-value net, or ink against numeral and dot-layout templates; M-B1 decoding),
``pips`` (on pip editions, pips of any colour counted per corner; with a calibration profile, the
edition and its pip colours as ``calibrate tiles`` taught them), pooling over shared lattice points
(M-P1), ``lattice`` (cells, fields).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.profile import tiles_of_another_game
from vision.locate import BoardNotLocatedError
from vision.read.trigon.calib import redistort_points, undistort_image
from vision.read.tritiles.detect import FoundTile, find_tiles
from vision.read.tritiles.finder import FINDER_PATH, FinderNet, find_tiles_net, load_finder, mean_side
from vision.read.tritiles.lattice import assemble, clockwise
from vision.read.tritiles.outline import OUTLINE_PATH, load_outline
from vision.read.tritiles.pips import looks_like_pips, pip_scores, tile_blobs
from vision.read.tritiles.reading import TileCorner, TileReading, TrianglesReading
from vision.read.tritiles.tile_set import decode_table, tile_kinds
from vision.read.tritiles.values import (
    VALUES_PATH,
    corner_windows,
    decode_tile,
    is_pip_edition,
    mark_quality,
    net_value_scores,
    value_scores,
)
from vision.read.tritiles.values import clockwise as clockwise_corners

F64 = NDArray[np.float64]

GAMES = ("triominos", "trio_domino")
#: A found triangle whose corners show no clean numeral or dot layout is not a tile (table pattern, card).
MIN_MARK_QUALITY = 0.3
#: How tiles are found: ``"net"`` (``finder``: the trained centre/corner/face maps) or ``"lattice"``
#: (``detect``: face masks and a lattice fitted to each blob; also used when the net's weights are
#: missing).
FINDER = "net"
#: The finder net's weights (``None``: the committed ``tile_finder.npz``).
FINDER_WEIGHTS: str | None = None
#: How the finder's tiles are outlined: ``"net"`` (the outline net, ``outline.outline_tiles``: each
#: candidate's top-face corners, and candidates it does not take for tiles dropped) or ``"edges"``
#: (each side moved onto the strongest edge nearby, ``detect.refine_corners``; also used when the
#: outline net's weights are missing).
OUTLINE = "net"
#: The outline net's weights (``None``: the committed ``tile_outline.npz``).
OUTLINE_WEIGHTS: str | None = None
#: How corner values are read: ``"net"`` (the corner-value net, ``values.net_value_scores``) or
#: ``"templates"`` (ink against numeral and dot-layout templates; also used when the net is missing).
VALUES = "net"
#: The corner-value net's weights (``None``: the committed ``tile_values.npz``).
VALUES_WEIGHTS: str | None = None
#: How a pip edition's corners are read: the pips counted per corner (``pips.pip_scores``) and the
#: value net's scores (the net knows the rendered editions' pips at the sizes it was trained on;
#: counting knows any edition's, given pixels enough). Counting weighs 0 on tiles up to
#: ``PIP_SIDES[0]`` px a side, fully from ``PIP_SIDES[1]``, the net then ``PIP_NET_WEIGHT``.
PIP_SIDES = (70.0, 120.0)
PIP_NET_WEIGHT = 0.5
#: Decode the table's tiles together, each of the 56 triples at most once (M-B1, D-B1:
#: ``tile_set.decode_table``); ``False``: each tile alone (``values.decode_tile``).
ONE_OF_EACH = True


class TilesNotFoundError(BoardNotLocatedError):
    """No tile could be found in the picture (a ``BoardNotLocatedError``: ``companion read`` exits 3)."""


def tiles_from_corners(game: str, corners: list[NDArray[np.float64]], values: list[tuple[int, int, int]],
                       confidences: list[float] | None = None, scores: list[list[F64]] | None = None
                       ) -> TrianglesReading:
    """A reading from tiles already found: 3 corners (px) and the values at those corners, per tile
    (``scores``: the value reader's scores at those corners)."""
    placed = assemble(corners)
    out = []
    for p in placed:
        tri = corners[p.index]
        vals = values[p.index]
        cw = clockwise(tri)
        order = [int(np.argmin(np.linalg.norm(tri - q, axis=1))) for q in cw]
        cs = tuple(TileCorner((float(tri[i][0]), float(tri[i][1])), int(vals[i])) for i in order)
        cen = tri.mean(axis=0)
        conf = confidences[p.index] if confidences else 1.0
        sc = None
        if scores is not None:
            rows = [tuple(float(x) for x in scores[p.index][i]) for i in order]
            sc = (rows[0], rows[1], rows[2])
        out.append(TileReading((float(cen[0]), float(cen[1])), (cs[0], cs[1], cs[2]), p.cell, p.field, conf, sc))
    return TrianglesReading(game=game, tiles=tuple(out))


def pooled_scores(corners: list[F64], scores: list[list[F64]]) -> list[list[F64]]:
    """Per corner, the scores summed over every corner of any tile at the same lattice point (M-P1)."""
    pts = np.array([c for tri in corners for c in tri])
    flat = [s for ss in scores for s in ss]
    if len(pts) == 0:
        return scores
    side = float(np.median([np.linalg.norm(t[0] - t[1]) for t in corners]))
    out: list[list[F64]] = []
    k = 0
    for _tri in corners:
        row = []
        for _ in range(3):
            near = np.nonzero(np.linalg.norm(pts - pts[k], axis=1) < 0.25 * side)[0]
            row.append(np.sum([flat[j] for j in near], axis=0))
            k += 1
        out.append(row)
    return out


def _pip_and_net(counted: list[F64], net: list[F64], side: float) -> list[F64]:
    """A pip tile's corner scores: counted pips and the value net's, weighed by the tile's side (px)."""
    w = min(1.0, max(0.0, (side - PIP_SIDES[0]) / (PIP_SIDES[1] - PIP_SIDES[0])))
    return [w * c + (1.0 - (1.0 - PIP_NET_WEIGHT) * w) * n for c, n in zip(counted, net, strict=True)]


def edition_lesson(calibration: dict[str, Any] | None, game: str) -> dict[str, Any] | None:
    """What ``calibrate tiles`` taught about the edition (the profile's ``tiles.learned``), or
    ``None``; ``ProfileError`` when the profile's tiles were taught for another game."""
    tiles = (calibration or {}).get("tiles")
    if not tiles:
        return None
    if tiles.get("game") != game:
        raise tiles_of_another_game(str(tiles.get("game")), game)
    learned = tiles.get("learned")
    return dict(learned) if isinstance(learned, dict) else None


def _finder_net() -> FinderNet | None:
    """The finder net ``FINDER`` asks for, or ``None`` (the lattice finder)."""
    if FINDER == "net" and (FINDER_WEIGHTS or FINDER_PATH.exists()):
        return load_finder(FINDER_WEIGHTS)
    return None


def locate_tiles(image: NDArray[np.uint8], net: FinderNet | None = None) -> list[FoundTile]:
    """The tiles in a (undistorted) picture: by the finder ``net`` when given (outlined as
    ``OUTLINE`` says), else by the lattice finder."""
    if net is None:
        return find_tiles(image)
    outline = load_outline(OUTLINE_WEIGHTS) if OUTLINE == "net" and (OUTLINE_WEIGHTS or OUTLINE_PATH.exists()) else None
    return [FoundTile(c, cover, 0) for c, cover, _h in find_tiles_net(image, net, outline)]


def read_triangles(image: NDArray[np.uint8], game: str, calibration: dict[str, Any] | None = None,
                   debug_dir: str | Path | None = None) -> TrianglesReading:
    """Read the tiles in ``image`` (BGR): corners, values (numerals or pips), lattice cells, fields.
    ``debug_dir``: write the picture with the tiles, cells and values drawn on it.
    Raises ``TilesNotFoundError`` when no tile is found, ``ValueError`` for an unknown game."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; choose {', '.join(GAMES)}")
    if image is None or image.ndim != 3 or image.shape[2] != 3:
        raise ValueError("expected a BGR colour picture (H×W×3)")
    t0 = time.perf_counter()
    img = undistort_image(image, calibration)
    net = _finder_net()
    found = locate_tiles(img, net)
    if not found:
        raise TilesNotFoundError(f"no {game} tiles found in the picture")
    set_size = len(tile_kinds())  # M-B1 / D-B1: the set holds 56 tiles
    if len(found) > set_size:
        raise TilesNotFoundError(f"{len(found)} tile-like shapes, more than the {set_size} tiles of a set: "
                                 f"no table of {game} tiles in the picture")
    t1 = time.perf_counter()
    learned = edition_lesson(calibration, game)
    by_value_net = VALUES == "net" and bool(VALUES_WEIGHTS or VALUES_PATH.exists())
    if net is not None and by_value_net:  # neither the ink windows nor the template edition are needed
        cws = [clockwise_corners(ft.corners) for ft in found]
        scores = net_value_scores(img, cws, VALUES_WEIGHTS)
        edition = learned.get("edition") if learned else None
        if edition is None:
            edition = "pips" if looks_like_pips([tile_blobs(img, cw) for cw in cws]) else "numbers"
        if edition == "pips":
            counted = pip_scores(img, cws, learned)
            scores = [_pip_and_net(cs, ns, mean_side(cw)) for cs, ns, cw in zip(counted, scores, cws, strict=True)]
    else:
        cws, wins = [], []
        for ft in found:
            cw, w = corner_windows(img, ft.corners)
            cws.append(cw)
            wins.append(w)
        pips = is_pip_edition([w for ws in wins for w in ws])
        if net is None:  # the lattice finder's false tiles (cards, cloth squares) show no clean mark
            keep = [i for i, ws in enumerate(wins) if mark_quality(ws, pips) >= MIN_MARK_QUALITY]
            if not keep:
                raise TilesNotFoundError(f"no {game} tiles found in the picture")
            found, cws, wins = [found[i] for i in keep], [cws[i] for i in keep], [wins[i] for i in keep]
        scores = (net_value_scores(img, cws, VALUES_WEIGHTS) if by_value_net
                  else [[value_scores(w, pips) for w in ws] for ws in wins])
    pooled = pooled_scores(cws, scores)
    values: list[tuple[int, int, int]] = []
    confs: list[float] = []
    decoded = decode_table(pooled) if ONE_OF_EACH else [decode_tile(sc) for sc in pooled]
    for ft, (vals, conf) in zip(found, decoded, strict=True):
        values.append(vals)
        confs.append(conf * min(1.0, ft.coverage + 0.1))
    t2 = time.perf_counter()
    back = [redistort_points(c, calibration) for c in cws]
    reading = tiles_from_corners(game, back, values, confs, pooled)
    if debug_dir is not None:
        _write_debug(Path(debug_dir), image, reading)
    return TrianglesReading(game=game, tiles=reading.tiles,
                            timings_ms={"find": (t1 - t0) * 1e3, "values": (t2 - t1) * 1e3,
                                        "total": (time.perf_counter() - t0) * 1e3})


def _write_debug(folder: Path, image: NDArray[np.uint8], reading: TrianglesReading) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    vis = image.copy()
    for t in reading.tiles:
        pts = np.array([c.px for c in t.corners])
        cv2.polylines(vis, [np.round(pts).astype(np.int32)], True, (0, 0, 255), 2)
        for c in t.corners:
            q = np.array(c.px) * 0.7 + np.array(t.center_px) * 0.3
            cv2.putText(vis, str(c.value), (int(q[0]) - 5, int(q[1]) + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.6,
                        (255, 0, 0), 2)
        cv2.putText(vis, f"{t.field}:{t.cell[0]},{t.cell[1]}", (int(t.center_px[0]) - 20, int(t.center_px[1])),
                    cv2.FONT_HERSHEY_PLAIN, 0.9, (0, 120, 0), 1)
    cv2.imwrite(str(folder / f"{reading.game}_tiles.png"), vis)
