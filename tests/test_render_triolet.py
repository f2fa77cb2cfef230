"""Triolet stills: labels agree with the camera model and with the drawn pixels; positions obey
T-B3/T-P4/T-P5; view order follows INTERFACES §3; determinism; difficulty ranges; style hold-out."""

from __future__ import annotations

import json
from collections import Counter

import cv2
import numpy as np
import pytest
from render_helpers import quiet_look, signed_area

from lab.render.camera import CameraSpec
from lab.render.difficulty import DIFFICULTIES
from lab.render.fonts import resolved_typeface
from lab.render.hands import HandSpec
from lab.render.sampling import random_camera, random_look
from lab.render.styles import StylePool
from lab.render.triolet import (
    TilePlacement,
    TrioletScene,
    playing_corners_mm,
    render_triolet,
    tile_corners_mm,
)
from lab.render.triolet_board import TRIPLE, parse_square, rotate_square, square_name
from lab.render.triolet_legibility import INK_GRID, face_seen
from lab.render.triolet_random import position_tiles, random_triolet_frame, random_triolet_scene
from lab.render.triolet_tiles import TILE_COUNTS, face_ink
from lab.sim.driver import play_game

SMALL = (640, 360)


def _scene(**kw: object) -> TrioletScene:
    tiles = (TilePlacement("H8", 11), TilePlacement("I8", 3, rotation=1, askew_deg=6.0),
             TilePlacement("H7", 4, wild=True, offset=(0.1, -0.05)), TilePlacement("B2", 9, rotation=2))
    base: dict[str, object] = dict(tiles=tiles, board_scheme="cream_print", square_mm=24.0, table="laminate_grey")
    base.update(kw)
    return TrioletScene(**base)  # type: ignore[arg-type]


def test_render_triolet_board_corners_are_projected_playing_corners_t_b1() -> None:
    cam = CameraSpec(1280, 720, 40.0, 130.0, 4.0, 750.0, (5.0, -10.0), 60.0, -0.18, 0.03)
    f = render_triolet(_scene(), cam, quiet_look(), np.random.default_rng(0))
    h = 7.5 * 24.0
    world = np.array([[-h, -h, 0.0], [h, -h, 0.0], [h, h, 0.0], [-h, h, 0.0]])  # A1, O1, O15, A15 outer corners
    rvec, tvec = cam.rvec_tvec()
    ref, _ = cv2.projectPoints(world, rvec, tvec, cam.camera_matrix(), cam.dist_coeffs())
    got = np.array(f.labels["board"]["corners_px"])
    assert f.labels["board"]["corner_names"] == ["A1", "O1", "O15", "A15"]
    assert np.abs(got - ref.reshape(-1, 2)).max() < 0.002


@pytest.mark.parametrize("yaw", [0.0, 60.0, 100.0, 170.0, 250.0, 300.0])
def test_render_triolet_view_corners_follow_interfaces_3(yaw: float) -> None:
    cam = CameraSpec(640, 360, 25.0, yaw, 0.0, 900.0, (0.0, 0.0), 60.0)
    f = render_triolet(_scene(), cam, quiet_look(), np.random.default_rng(0))
    view = np.array(f.labels["board"]["corners_px_view"])
    dist = np.hypot(view[:, 0], view[:, 1])
    assert int(np.argmin(dist)) == 0  # starts nearest the image's top-left
    assert signed_area(view) > 0  # clockwise on screen
    k = f.labels["board"]["view_rotation"]
    # each tile's view square lies where the view frame says: map the view corners to a 15×15 grid
    hmat = cv2.getPerspectiveTransform(view.astype(np.float32),
                                       np.array([[0, 0], [15, 0], [15, 15], [0, 15]], np.float32))
    for c in f.labels["cells"]:
        p = cv2.perspectiveTransform(np.array([[c["center_px"]]], np.float32), hmat)[0, 0]
        col, row = parse_square(c["square_view"])
        assert col - 0.3 < p[0] < col + 1.3 and row - 0.3 < p[1] < row + 1.3, (c, p)
        assert c["square_view"] == square_name(*rotate_square(*parse_square(c["square"]), k))
    read = f.labels["read"]
    assert read["game"] == "triolet" and read["board"]["corners_px"] == f.labels["board"]["corners_px_view"]
    wild = [c for c in read["cells"] if c["wild"]]
    assert wild and all(c["value"] is None for c in wild)


def test_render_triolet_pixels_match_labels() -> None:
    """Tiles are light where labels put them; empty triple squares are red (T-B2)."""
    cam = CameraSpec(1280, 720, 10.0, 30.0, 0.0, 620.0, (0.0, 0.0), 60.0, -0.1, 0.0)
    f = render_triolet(_scene(board_scheme="navy"), cam, quiet_look(), np.random.default_rng(0))
    img = f.image.astype(int)
    for c in f.labels["cells"]:
        corners = np.array(c["corners_px"])
        # a point between the centre and the top-left corner: tile face, away from the numeral
        x, y = np.round(corners[0] * 0.7 + np.array(c["center_px"]) * 0.3).astype(int)
        b, g, r = img[y, x]
        assert min(b, g, r) > 150, (c["square"], img[y, x])
    s = 24.0
    occupied = {c["square"] for c in f.labels["cells"]}
    for name in TRIPLE:
        if name in occupied:
            continue
        col, row = parse_square(name)
        x, y = np.round(cam.project([[(col - 7) * s + 0.3 * s, (row - 7) * s, 0.0]])[0]).astype(int)
        b, g, r = img[y, x]
        assert r > 150 and r > g + 60 and r > b + 60, (name, img[y, x])


def test_render_triolet_tile_corners_in_printed_order() -> None:
    """Corner 0 is the printed top-left: a tile turned 90° clockwise has it at the board's top-right."""
    cam = CameraSpec(1280, 720, 0.0, 0.0, 0.0, 600.0)
    f = render_triolet(_scene(), cam, quiet_look(), np.random.default_rng(0))
    cells = {c["square"]: c for c in f.labels["cells"]}
    h8 = np.array(cells["H8"]["corners_px"])
    i8 = np.array(cells["I8"]["corners_px"])
    assert h8[0, 0] < h8[1, 0] and h8[0, 1] < h8[3, 1]  # upright: TL left of TR, above BL
    cen = i8.mean(axis=0)
    assert i8[0, 0] > cen[0] and i8[0, 1] < cen[1]  # turned 90°: printed TL now at top-right
    assert cells["I8"]["rotation"] == 90 and cells["B2"]["rotation"] == 180


def test_render_triolet_occluder_mask_and_visibility() -> None:
    cam = CameraSpec(1280, 720, 20.0, 0.0, 0.0, 620.0)
    hand = HandSpec(tip_mm=(0.0, 0.0), height_mm=30.0, from_deg=90.0)
    f = render_triolet(_scene(hands=(hand,)), cam, quiet_look(shadow_strength=0.4), np.random.default_rng(0))
    occ = f.masks["occluders"]
    assert occ.shape == f.image.shape[:2] and occ.max() == 255
    cells = {c["square"]: c for c in f.labels["cells"]}
    assert cells["H8"]["visible"] < 0.5  # the fingertip is over H8
    assert cells["B2"]["visible"] == 1.0
    x, y = np.round(cells["H8"]["center_px"]).astype(int)
    assert occ[y, x] == 255


def test_render_triolet_marks_visible_is_the_share_of_printed_ink_in_view() -> None:
    """``marks_visible``: 1 with nothing over the tile; with the right half of the picture covered,
    the share of the numeral's and count digit's ink on the face's left half (upright tile)."""
    scene, cam = _scene(), CameraSpec(1280, 720, 20.0, 0.0, 0.0, 620.0)
    f = render_triolet(scene, cam, quiet_look(), np.random.default_rng(0))
    cells = {c["square"]: c for c in f.labels["cells"]}
    assert cells["H8"]["marks_visible"] == 1.0 and cells["B2"]["marks_visible"] == 1.0
    ink = face_ink(11, resolved_typeface(scene.typeface), INK_GRID, scene.numeral_scale, scene.star_outline)
    corners = tile_corners_mm(scene, scene.tiles[0])
    occ = np.zeros((720, 1280), np.uint8)
    occ[:, round(cells["H8"]["center_px"][0]):] = 255
    left_share = float((np.nonzero(ink)[1] < INK_GRID / 2).mean())
    assert 0.2 < left_share < 0.5  # "11" is symmetric, the count digit "3" sits lower right
    printed = ink > 0
    got = float(face_seen(corners, -scene.tile_height_mm, cam, occ)[printed].mean())
    assert abs(got - left_share) < 0.06
    occ[:] = 255
    assert not face_seen(corners, -scene.tile_height_mm, cam, occ)[printed].any()


@pytest.mark.parametrize("seed", range(6))
def test_render_triolet_positions_obey_counts_runs_and_blocks_t_b3_t_p4_t_p5(seed: int) -> None:
    """A rendered position is the board of a legal engine game (so T-P4/T-P5 hold by the engine's
    checks), replayable from its labels, with T-B3's counts and play started on H8 (T-P3)."""
    rng = np.random.default_rng(seed)
    engine_tiles, source = position_tiles(rng, 70)
    assert source["source"] == "engine"
    replay = play_game("triolet", source["game_seed"], players=source["players"], max_tiles=source["max_tiles"])
    assert len(replay.steps) == source["events"]
    board_tiles = replay.steps[-1].board["tiles"]
    assert sorted(engine_tiles) == sorted((t["square"], t["value"], bool(t.get("wild", False))) for t in board_tiles)
    for tiles in (engine_tiles, [(t.square, t.value, t.wild) for t in
                          random_triolet_scene(rng, DIFFICULTIES["hard"], StylePool()).tiles]):
        squares = [s for s, _, _ in tiles]
        assert len(squares) == len(set(squares))
        counts = Counter(v for _, v, w in tiles if not w)
        assert all(counts[v] <= TILE_COUNTS[v] for v in counts)
        assert sum(w for _, _, w in tiles) <= 2
        board = {parse_square(s): (v, w) for s, v, w in tiles}
        if board:
            assert (7, 7) in board  # T-P3: play starts on H8


def test_render_triolet_deterministic_by_seed() -> None:
    a = random_triolet_frame(11, "hard", size=SMALL)
    b = random_triolet_frame(11, "hard", size=SMALL)
    c = random_triolet_frame(12, "hard", size=SMALL)
    assert np.array_equal(a.image, b.image)
    assert json.dumps(a.labels, sort_keys=True) == json.dumps(b.labels, sort_keys=True)
    assert not np.array_equal(a.image, c.image)
    json.dumps(c.labels)  # JSON-ready


@pytest.mark.parametrize("name", ["easy", "normal", "hard"])
def test_render_triolet_difficulty_ranges_respected(name: str) -> None:
    d = DIFFICULTIES[name]
    for seed in range(25):
        rng = np.random.default_rng(seed)
        scene = random_triolet_scene(rng, d, StylePool(), tiles=position_tiles(rng, 30)[0])
        cam = random_camera(rng, d, playing_corners_mm(scene), 15 * scene.square_mm, None)
        look = random_look(rng, d, StylePool())
        assert d.tilt_deg[0] <= cam.tilt_deg <= d.tilt_deg[1]
        assert d.k1[0] <= cam.k1 <= d.k1[1] and d.hfov_deg[0] <= cam.hfov_deg <= d.hfov_deg[1]
        assert (cam.width, cam.height) in d.sizes
        assert d.noise[0] <= look.noise_sigma <= d.noise[1] and d.jpeg[0] <= look.jpeg_quality <= d.jpeg[1]
        assert d.glare[0] <= len(look.glare) <= d.glare[1]
        for t in scene.tiles:
            assert abs(t.askew_deg) <= d.askew_deg and max(abs(t.offset[0]), abs(t.offset[1])) <= d.offset
            if d.turned_prob == 0:
                assert t.rotation == 0
        if d.full_board:
            px = cam.project(np.c_[playing_corners_mm(scene), np.zeros(4)])
            assert px.min() >= 0 and px[:, 0].max() < cam.width and px[:, 1].max() < cam.height


def test_render_triolet_style_hold_out() -> None:
    held = frozenset({"classic_green", "geometric", "rounded", "ivory", "wood_light", "daylight"})
    pool = StylePool(exclude=held)
    for seed in range(40):
        rng = np.random.default_rng(seed)
        s = random_triolet_scene(rng, DIFFICULTIES["normal"], pool, tiles=[])
        assert not {s.board_scheme, s.typeface, s.tile_finish, s.table} & held
        assert random_look(rng, DIFFICULTIES["normal"], pool).light not in held


@pytest.mark.parametrize("seed", [3, 4])
def test_render_triolet_still_matches_engine_replay(seed: int) -> None:
    """A still's tiles are the board of a legal engine game: replaying it with Session gives them."""
    from engine.core.session import Session
    from lab.sim.driver import play_game

    f = random_triolet_frame(seed, "normal", size=SMALL)
    pos = f.labels["position"]
    assert pos["source"] == "engine"
    sim = play_game("triolet", pos["game_seed"], players=pos["players"], max_tiles=pos["max_tiles"])
    assert len(sim.events) == pos["events"]
    session = Session(sim.header)
    for ev in sim.events:
        assert session.submit(ev).verdict.legal
    board = {(t["square"], t["value"], bool(t.get("wild", False))) for t in session.state.board_json()["tiles"]}
    assert board == {(c["square"], c["value"], c["wild"]) for c in f.labels["cells"]}
