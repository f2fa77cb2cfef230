"""The readers' shared net pieces (``vision.nets``): the numpy 3×3 convolution against a direct loop
at every stride and dilation the nets use, a batch read like its maps one by one, softmax, and a
missing weight file named."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.nets import conv3x3, load_weights, softmax


def _direct(x: np.ndarray, w: np.ndarray, b: np.ndarray, stride: int, dil: int) -> np.ndarray:
    num, hgt, wid, _ = x.shape
    xp = np.pad(x, ((0, 0), (dil, dil), (dil, dil), (0, 0)))
    ho, wo = (hgt - 1) // stride + 1, (wid - 1) // stride + 1
    out = np.zeros((num, ho, wo, w.shape[-1]), np.float64)
    for r in range(ho):
        for c in range(wo):
            y, xx = r * stride, c * stride
            patch = xp[:, y:y + 2 * dil + 1:dil, xx:xx + 2 * dil + 1:dil]
            out[:, r, c] = np.einsum("nabc,abcd->nd", patch, w) + b
    return out


@pytest.mark.parametrize(("stride", "dil", "channels"), [(1, 1, 3), (1, 1, 9), (1, 2, 5), (1, 4, 2), (2, 1, 4),
                                                        (2, 2, 3)])
def test_nets_conv3x3_matches_a_direct_loop(stride: int, dil: int, channels: int) -> None:
    rng = np.random.default_rng(50)
    x = rng.normal(size=(3, 9, 7, channels)).astype(np.float32)
    w = rng.normal(size=(3, 3, channels, 4)).astype(np.float32)
    b = rng.normal(size=4).astype(np.float32)
    got = conv3x3(x, w, b, stride, dil)
    assert got.dtype == np.float32
    assert np.allclose(got, _direct(x, w, b, stride, dil), atol=1e-4)
    # a batch gives each map's own convolution, bit for bit
    for k in range(len(x)):
        assert np.array_equal(got[k], conv3x3(x[k:k + 1], w, b, stride, dil)[0])
    assert conv3x3(x[:0], w, b, stride, dil).shape == (0, *got.shape[1:])


def test_nets_softmax_rows() -> None:
    lg = np.array([[0.0, 1.0, 2.0], [1000.0, 1000.0, -1000.0]], np.float32)
    p = softmax(lg)
    assert np.allclose(p.sum(axis=1), 1.0) and p[0].argmax() == 2
    assert np.allclose(p[1], [0.5, 0.5, 0.0])


def test_nets_load_weights(tmp_path: Path) -> None:
    class Missing(RuntimeError):
        pass

    with pytest.raises(Missing, match=r"no\.npz: the test net missing \(run python3 -m vision\.models\.x\)"):
        load_weights(tmp_path / "no.npz", Missing, "the test net", "vision.models.x")
    np.savez(tmp_path / "w.npz", a=np.arange(3), b=np.ones((2, 2)))
    d = load_weights(tmp_path / "w.npz", Missing, "the test net", "vision.models.x")
    assert sorted(d) == ["a", "b"] and d["a"].tolist() == [0, 1, 2]
