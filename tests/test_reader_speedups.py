"""The reader's cheaper paths give the answers of the plain ones: gradient histograms binned in one
pass, grid lines found and fitted all at once, crops taken off-centre, a closer look only at
doubtful squares (per-class median)."""

from __future__ import annotations

import numpy as np
import pytest

import vision.locate as locate
import vision.read.triolet.features as features_module
import vision.read.triolet.reader as reader
from vision.locate import SIZE, _fit_lines, _grow_lattice, _line_samples
from vision.read.triolet.classifier import EMPTY
from vision.read.triolet.features import BINS, _hog, square_crops
from vision.read.triolet.geometry import MARGIN, PITCH


def _hog_reference(g: np.ndarray, cell: int) -> np.ndarray:
    """Per cell, per pixel: the textbook unsigned orientation histogram (slow loops)."""
    n, side = g.shape[0], g.shape[1]
    nc = side // cell
    out = np.zeros((n, nc, nc, BINS), np.float64)
    for k in range(n):
        gx = np.zeros((side, side))
        gy = np.zeros((side, side))
        gx[:, 1:-1] = g[k, :, 2:] - g[k, :, :-2]
        gy[1:-1, :] = g[k, 2:, :] - g[k, :-2, :]
        for y in range(nc * cell):
            for x in range(nc * cell):
                mag = float(np.hypot(gx[y, x], gy[y, x]))
                ang = float(np.mod(np.arctan2(gy[y, x], gx[y, x]), np.pi))
                b = min(int(ang * BINS / np.pi), BINS - 1)
                out[k, y // cell, x // cell, b] += mag / (cell * cell)
    flat = out.reshape(n, -1)
    flat /= np.linalg.norm(flat, axis=1, keepdims=True) + 1e-3
    return np.sqrt(flat)


@pytest.mark.parametrize("cell", [5, 8])
def test_reader_hog_matches_the_textbook_histogram(cell: int) -> None:
    rng = np.random.default_rng(3)
    g = rng.normal(size=(3, 8 * cell, 8 * cell)).astype(np.float32)
    fast = _hog(g, cell)
    ref = _hog_reference(g, cell)
    # float32 angles may put a pixel lying on a bin edge in the neighbouring bin
    assert np.mean(np.abs(fast - ref) < 1e-3) > 0.995
    assert np.allclose(fast.sum(axis=1), ref.sum(axis=1), rtol=2e-2)


def test_reader_hog_of_a_batch_is_each_crops_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """A crop's histograms do not depend on the batch it is read in, however large (the cached
    cell index grows past a board's two reads of 225 crops; a batch larger than it keeps is
    indexed all the same)."""
    rng = np.random.default_rng(4)
    g = rng.normal(size=(2 * 225 + 7, 40, 40)).astype(np.float32)
    whole = _hog(g, 5)
    for k in (0, 1, 300, len(g) - 1):
        assert np.array_equal(whole[k], _hog(g[k:k + 1], 5)[0])
    assert np.array_equal(_hog(g[:3], 5), whole[:3])
    monkeypatch.setattr(features_module, "CELL_INDEX_KEEP", 100)  # a batch too big to keep its index
    monkeypatch.setattr(features_module, "_CELL_INDEX", {})
    assert np.array_equal(_hog(g, 5), whole)
    assert features_module._CELL_INDEX == {}


def _fit_line_reference(along: np.ndarray, across: np.ndarray) -> tuple[float, float] | None:
    """One line's robust fit, line by line (the loop ``_fit_lines`` does for all lines at once)."""
    if len(along) < 4:
        return None
    keep = np.ones(len(along), bool)
    a, b = 0.0, 0.0
    for _ in range(3):
        if keep.sum() < 4:
            return None
        x, y = along[keep], across[keep]
        mx, my = x.mean(), y.mean()
        vx = float(((x - mx) ** 2).sum())
        a = float(((x - mx) * (y - my)).sum()) / vx if vx > 1e-9 else 0.0
        b = float(my - a * mx)
        res = np.abs(across - (a * along + b))
        rk = np.sort(res[keep])
        keep = res < max(1.0, 2.5 * float(rk[len(rk) // 2]))
    return a, b


def test_reader_grid_lines_fitted_at_once_are_each_lines_own_fit() -> None:
    """``_fit_lines`` (16 lines at once, masked) gives each line's own fit from its own samples:
    straight lines, lines with outliers to trim, and lines with fewer than four samples (none)."""
    rng = np.random.default_rng(8)
    along = (np.arange(SIZE) + 1.5) * 20.0
    across = np.empty((SIZE + 1, SIZE))
    ok = rng.random((SIZE + 1, SIZE)) < 0.8
    for k in range(SIZE + 1):
        across[k] = 0.02 * (k - 8) * along + 20.0 * (k + 1) + rng.normal(0, 0.3, SIZE)
        bad = rng.random(SIZE) < 0.2  # a tile's edge or a finger taken for the line
        across[k, bad] += rng.normal(0, 6.0, bad.sum())
    ok[3, 4:] = False  # four samples left: still fitted
    ok[5, 3:] = False  # three: no line
    ok[7] = False
    got = _fit_lines(along, across, ok)
    for k in range(SIZE + 1):
        want = _fit_line_reference(along[ok[k]], across[k][ok[k]])
        if want is None:
            assert got[k] is None
        else:
            assert got[k] is not None and np.allclose(got[k], want, atol=1e-9)
    assert got[3] is not None and got[5] is None and got[7] is None


def test_reader_grid_line_peaks_are_found_in_every_band() -> None:
    """``_line_samples`` on a drawn grid (lines 0.3 px right of every pitch step): each line is
    found in each band at its sub-pixel place; a blank band is not a line."""
    pitch, margin = 18, 1
    side = (SIZE + 2 * margin) * pitch
    strength = np.zeros((side, side), np.float32)
    xs = np.arange(side, dtype=np.float32)
    for k in range(SIZE + 1):
        x = (margin + k) * pitch + 0.3
        strength += np.exp(-0.5 * ((xs - x) / 1.2) ** 2)[None, :]  # vertical lines: x varies
    strength[(margin + 4) * pitch:(margin + 5) * pitch] = 0.0  # the fifth band shows no line
    along, across, ok = _line_samples(strength, pitch, margin, 0)
    assert np.allclose(along, (np.arange(SIZE) + margin + 0.5) * pitch)
    assert across.shape == ok.shape == (SIZE + 1, SIZE)
    assert not ok[:, 4].any() and np.delete(ok, 4, axis=1).all()
    want = ((margin + np.arange(SIZE + 1)) * pitch + 0.3)[:, None]
    assert np.abs(np.where(ok, across - want, 0.0)).max() < 0.05
    _, across_t, ok_t = _line_samples(np.ascontiguousarray(strength.T), pitch, margin, 1)
    assert np.array_equal(ok_t, ok) and np.allclose(across_t, across)


def test_reader_lattice_growth_stops_once_nothing_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A centre a quarter square off its lattice point (a tile face askew on its square) is taken
    in and dropped again by every refit: the growth stops when an iteration changes nothing,
    rather than after all 40 iterations, with the lattice and its members as before."""
    jj, ii = np.mgrid[0:SIZE, 0:SIZE]
    pts = np.stack([ii.ravel(), jj.ravel()], axis=1).astype(np.float64)
    h_true = np.array([[30.0, 2.0, 100.0], [-1.5, 28.0, 80.0], [1e-4, 2e-4, 1.0]])
    cents = locate.apply_h(h_true, pts)
    askew = locate.apply_h(h_true, np.array([[7.25, 7.0]]))  # a second centre by lattice point (7, 7)
    cents = np.concatenate([cents, askew])
    calls: list[int] = []
    real = locate.cv2.findHomography

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(locate.cv2, "findHomography", counted)
    grown = _grow_lattice(cents, 29.0, cents[7 * SIZE + 7])
    assert grown is not None
    h, ij, member = grown
    assert member[:-1].all() and not member[-1]  # every lattice centre, not the askew one
    assert len(ij) == SIZE * SIZE
    got = locate.apply_h(h, ij.astype(np.float64))  # the lattice's points, labelled from the seed
    nearest = np.hypot(*(got[:, None] - cents[None, :-1]).transpose(2, 0, 1)).min(axis=1)
    assert nearest.max() < 0.5  # px, squares 30 px (the refit that drops the askew centre still counts it)
    assert len(calls) < 15


def test_reader_crops_off_centre_are_the_centred_crops_moved() -> None:
    rng = np.random.default_rng(5)
    side = round((15 + 2 * MARGIN) * PITCH)
    rect = rng.integers(0, 255, (side, side, 3), np.uint8)
    centred = square_crops(rect, [(7, 7)])[0]
    moved = square_crops(rect, [(7, 7)], offset=(5, -3))[0]
    assert np.array_equal(moved[3:, :-5], centred[:-3, 5:])
    assert not np.array_equal(moved, centred)


def test_reader_closer_look_rereads_only_doubtful_tiles_by_median(monkeypatch: pytest.MonkeyPatch) -> None:
    n_cls = EMPTY + 1
    probs = np.full((3, n_cls), 0.0, np.float32)
    probs[0, 6] = 0.97  # sure: kept
    probs[0, 9] = 0.03
    probs[1, 6], probs[1, 9] = 0.55, 0.45  # doubtful tile: looked at again
    probs[2, EMPTY] = 0.8  # likely empty: kept
    probs[2, 3] = 0.2
    shifted = []
    for p6 in (0.1, 0.2, 0.3, 0.9):  # four shifted reads of square 1: mostly a 9
        p = np.zeros(n_cls, np.float32)
        p[6], p[9] = p6, 1.0 - p6
        shifted.append(p[None])
    calls: list[int] = []

    def fake(crops: np.ndarray, *_: object, by_cnn: np.ndarray | None = None, **_options: object) -> np.ndarray:
        assert by_cnn is not None and by_cnn.all()  # a sure tile's shifted crops: never ruled empty by the MLP
        calls.append(len(crops))
        return np.concatenate(shifted)

    monkeypatch.setattr(reader, "square_probabilities", fake)
    before = probs.copy()
    rect = np.zeros((round((15 + 2 * MARGIN) * PITCH),) * 2 + (3,), np.uint8)
    reader.closer_look(rect, probs, squares=[(0, 0), (1, 0), (2, 0)])
    assert calls == [4]  # only square 1, its four shifts in one batch
    assert np.array_equal(probs[[0, 2]], before[[0, 2]])
    assert probs[1, 9] > probs[1, 6]  # median of 0.45, 0.9, 0.8, 0.7, 0.1 for the 9
    assert probs[1].sum() == pytest.approx(1.0)


class _Stand:
    """A stand-in classifier answering one fixed distribution for every crop."""

    def __init__(self, cls: int, p: float) -> None:
        self.row = np.full(EMPTY + 1, (1.0 - p) / EMPTY, np.float32)
        self.row[cls] = p

    def proba(self, x: np.ndarray) -> np.ndarray:
        return np.repeat(self.row[None], len(x), axis=0)


def test_reader_closer_look_reads_a_sure_tiles_shifted_crops_by_the_cnn(monkeypatch: pytest.MonkeyPatch) -> None:
    """A tile washed out by glare: the MLP calls every crop of it empty, the CNN sees a 5. Where
    the first read is nearly sure of a tile, the closer look's shifted reads come from the CNN, or
    their median turns the tile empty; where it is not, the MLP's "empty" stands (phantoms)."""
    monkeypatch.setattr(reader, "load_model", lambda path=None: _Stand(EMPTY, 0.99))
    monkeypatch.setattr(reader, "load_cnn", lambda path=None: _Stand(5, 0.7))
    monkeypatch.setattr(reader, "features", lambda crops: np.zeros((len(crops), 4), np.float32))
    probs = np.zeros((2, EMPTY + 1), np.float32)
    probs[0, 5], probs[0, 10], probs[0, EMPTY] = 0.6, 0.35, 0.05  # a tile, value unsure
    probs[1, 5], probs[1, 10], probs[1, EMPTY] = 0.4, 0.2, 0.4  # maybe not a tile at all
    rect = np.zeros((round((15 + 2 * MARGIN) * PITCH),) * 2 + (3,), np.uint8)
    reader.closer_look(rect, probs, squares=[(7, 7), (8, 7)])
    assert int(np.argmax(probs[0])) == 5
    assert probs[0, EMPTY] < 0.5
    assert int(np.argmax(probs[1])) == EMPTY


def _blurred_noise(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    import cv2

    return np.asarray(cv2.GaussianBlur(rng.integers(0, 256, shape, np.uint8), (5, 5), 1.5), np.uint8)


@pytest.mark.parametrize("pitch", [16, 24, 40])
def test_reader_square_colours_and_sides_by_integer_sums_equal_pixel_means(pitch: int) -> None:
    """``cell_colours`` and ``square_sides`` (integer sums) give exactly the float32 pixel means
    and band distances of the straightforward loops."""
    import cv2

    rng = np.random.default_rng(pitch)
    bgr = _blurred_noise(rng, (7 * pitch + 5, 9 * pitch + 3, 3))
    n_r, n_c = bgr.shape[0] // pitch, bgr.shape[1] // pitch
    lab = cv2.cvtColor(np.ascontiguousarray(bgr[:n_r * pitch, :n_c * pitch]), cv2.COLOR_BGR2LAB).astype(np.float32)
    c, q = pitch // 4, pitch // 4
    ref_cells = np.array([[lab[r * pitch + c:(r + 1) * pitch - c, k * pitch + c:(k + 1) * pitch - c].reshape(-1, 3)
                           .mean(axis=0) for k in range(n_c)] for r in range(n_r)], np.float32)
    cells = locate.cell_colours(bgr, pitch)
    assert np.array_equal(cells, ref_cells)
    sides = locate.square_sides(bgr, pitch, cells)
    for r in range(n_r):
        for k in range(n_c - 1):  # the side between (r, k) and (r, k + 1)
            ref = (cells[r, k] + cells[r, k + 1]) / 2.0
            bands = [lab[r * pitch + q:(r + 1) * pitch - q, (k + 1) * pitch + off] for off in (-2, -1, 0, 1)]
            want = max(float(np.linalg.norm(band.mean(axis=0) - ref)) for band in bands)
            assert sides[r, k, 1] == sides[r, k + 1, 0] == pytest.approx(want, abs=1e-4)
    for r in range(n_r - 1):
        for k in range(n_c):
            ref = (cells[r, k] + cells[r + 1, k]) / 2.0
            bands = [lab[(r + 1) * pitch + off, k * pitch + q:(k + 1) * pitch - q] for off in (-2, -1, 0, 1)]
            want = max(float(np.linalg.norm(band.mean(axis=0) - ref)) for band in bands)
            assert sides[r, k, 3] == sides[r + 1, k, 2] == pytest.approx(want, abs=1e-4)
    assert np.isnan(sides[:, 0, 0]).all() and np.isnan(sides[0, :, 2]).all()


def test_reader_crop_colour_features_equal_pixel_statistics() -> None:
    """The colour part of ``features`` (exact sums, ``meanStdDev``) equals numpy's float means
    and deviations of each crop's CIELAB pixels."""
    import cv2

    rng = np.random.default_rng(21)
    crops = _blurred_noise(rng, (9 * features_module.CROP, features_module.CROP, 3)).reshape(
        9, features_module.CROP, features_module.CROP, 3)
    got = features_module.features(crops)[:, -10:-1]
    n, s = len(crops), features_module.CROP
    lab = cv2.cvtColor(crops.reshape(n * s, s, 3), cv2.COLOR_BGR2LAB).reshape(n, s, s, 3).astype(np.float64)
    q = s // 3
    centre = lab[:, q:2 * q, q:2 * q].reshape(n, -1, 3)
    want = np.concatenate([centre.mean(axis=1) / 64.0 - 2.0, lab.reshape(n, -1, 3).mean(axis=1) / 64.0 - 2.0,
                           centre.std(axis=1) / 32.0], axis=1)
    assert np.allclose(got, want, atol=1e-5)


def test_reader_board_lab_is_scaled_cielab() -> None:
    import cv2

    from vision.read.triolet.blank_tiles import board_lab

    rng = np.random.default_rng(22)
    rect = _blurred_noise(rng, (17 * PITCH, 17 * PITCH, 3))
    o = round(MARGIN * PITCH)
    lab = cv2.cvtColor(np.ascontiguousarray(rect[o:o + SIZE * PITCH, o:o + SIZE * PITCH]), cv2.COLOR_BGR2LAB)
    want = lab.astype(np.float32)
    want[..., 0] *= 100.0 / 255.0
    want[..., 1:] -= 128.0
    got = board_lab(rect)
    assert got.dtype == np.float32 and np.array_equal(got, want)


def _occluded_reference(lab: np.ndarray, probs: np.ndarray, face: np.ndarray) -> np.ndarray:
    """The occluded-tile test square by square (the loop the vectorised test replaced)."""
    import cv2

    from vision.read.triolet.blank_tiles import CORE_TRIM
    from vision.read.triolet.occluded_tiles import FACE_DIST, INNER_TRIM, OCCLUDED_SHARE, OPEN_PX

    out = np.zeros(len(probs), bool)
    unlike = (np.linalg.norm(lab - face, axis=2) > FACE_DIST).astype(np.uint8)
    blobs = cv2.morphologyEx(unlike, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (OPEN_PX, OPEN_PX)))
    _, label = cv2.connectedComponents(blobs, connectivity=4)
    a, b = round(CORE_TRIM * PITCH), round(INNER_TRIM * PITCH)
    inner = np.zeros((PITCH, PITCH), bool)
    inner[b:PITCH - b, b:PITCH - b] = True
    for i in np.flatnonzero(probs[:, EMPTY] < 0.5):
        r, c = divmod(int(i), SIZE)
        square = label[r * PITCH:(r + 1) * PITCH, c * PITCH:(c + 1) * PITCH]
        reaching = np.setdiff1d(np.unique(square[~inner]), [0])
        core = square[a:PITCH - a, a:PITCH - a]
        out[i] = len(reaching) > 0 and float(np.isin(core, reaching).mean()) >= OCCLUDED_SHARE
    return out


def test_reader_occluded_tiles_all_at_once_equal_the_square_by_square_test() -> None:
    """Blobs of foreign colour (discs, bars across squares, specks) over a board of tile faces:
    the vectorised test flags exactly the squares the per-square loop flags, and some but not all."""
    import cv2

    from vision.read.triolet.occluded_tiles import occluded_tiles

    rng = np.random.default_rng(23)
    flagged = 0
    for _ in range(4):
        face = np.array([85.0, 2.0, 15.0], np.float32)
        lab = np.empty((SIZE * PITCH, SIZE * PITCH, 3), np.float32)
        lab[:] = face
        paint = np.zeros(lab.shape[:2], np.uint8)
        for _ in range(25):
            x, y = (int(v) for v in rng.integers(0, SIZE * PITCH, 2))
            if rng.random() < 0.5:
                cv2.circle(paint, (x, y), int(rng.integers(3, 30)), 1, -1)
            else:
                cv2.line(paint, (x, y), (x + int(rng.integers(-60, 60)), y + int(rng.integers(-60, 60))), 1,
                         int(rng.integers(2, 16)))
        lab[paint > 0] = (40.0, 30.0, -10.0)
        probs = np.zeros((SIZE * SIZE, EMPTY + 1), np.float32)
        probs[:, EMPTY] = (rng.random(SIZE * SIZE) < 0.4).astype(np.float32)
        probs[:, 3] = 1.0 - probs[:, EMPTY]
        got = occluded_tiles(lab, probs, face)
        assert np.array_equal(got, _occluded_reference(lab, probs, face))
        flagged += int(got.sum())
    assert 0 < flagged < 4 * SIZE * SIZE * 0.6
