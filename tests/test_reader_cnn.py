"""The square CNN (``vision.read.triolet.cnn``): numpy inference, the same net run by ONNX Runtime and
by OpenCV's DNN module, its agreement with torch, and tiles read from a rendered frame in every quarter turn
(T-B3: a 6 is not a 9 however it lies)."""

from __future__ import annotations

import dataclasses
import sys

import cv2
import numpy as np
import pytest
from reader_helpers import six_nine_frame, truth_cells

import vision.read.triolet.cnn as cnn_module
from vision.locate import locate_board
from vision.nets import conv3x3
from vision.read.triolet.classifier import EMPTY, WILD
from vision.read.triolet.cnn import (
    CNN_PATH,
    SECOND_CNN_PATH,
    area_matrix,
    cnn_from_arrays,
    load_cnn,
    max_pool2,
    prepare,
)
from vision.read.triolet.features import square_crops
from vision.read.triolet.geometry import rectified_board
from vision.read.triolet.reader import COLUMNS


def _frame_crops() -> tuple[np.ndarray, list[int]]:
    """Crops of the six/nine frame's tiles and of a few empty squares, with their true classes."""
    fr = six_nine_frame()
    rect = rectified_board(fr.image, locate_board(fr.image, "triolet"))
    truth = truth_cells(fr)
    squares = [(COLUMNS.index(s[0]), int(s[1:]) - 1) for s in truth]
    ys = [WILD if wild else int(v) for v, wild in truth.values()]  # type: ignore[arg-type]
    # not the centre square: its printed compass star, rarely empty in training, reads like an 8
    # to the CNN alone (the reader only shows the CNN squares the MLP thinks may hold a tile)
    empties = [(0, 0), (14, 14), (2, 12), (12, 3), (10, 13)]
    return square_crops(rect, squares + empties), ys + [EMPTY] * len(empties)


def test_reader_cnn_shapes_and_probabilities() -> None:
    rng = np.random.default_rng(3)
    crops = rng.integers(0, 256, (5, 56, 56, 3), dtype=np.uint8)
    p = load_cnn().proba(crops)
    assert p.shape == (5, 18) and p.dtype == np.float32
    assert np.allclose(p.sum(axis=1), 1.0, atol=1e-5) and (p >= 0).all()
    assert load_cnn().proba(crops[:0]).shape == (0, 18)


@pytest.mark.parametrize("channels", [3, 9])
def test_reader_cnn_building_blocks(channels: int) -> None:
    """Area shrink keeps a flat image flat; the 3×3 convolution (both ways it is computed) and the
    pooling match a direct loop."""
    r = area_matrix(56, 32)
    assert np.allclose(r.sum(axis=1), 1.0) and (r >= 0).all()
    rng = np.random.default_rng(5)
    x = rng.normal(size=(2, 6, 5, channels)).astype(np.float32)
    w = rng.normal(size=(9 * channels, 4)).astype(np.float32)
    b = rng.normal(size=4).astype(np.float32)
    k = w.reshape(3, 3, channels, 4)
    got = conv3x3(x, k, b)
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    want = np.zeros((2, 6, 5, 4), np.float32)
    for i in range(6):
        for j in range(5):
            want[:, i, j] = np.einsum("nabc,abcd->nd", xp[:, i:i + 3, j:j + 3], k) + b
    assert np.allclose(got, want, atol=1e-4)
    pooled = max_pool2(got)
    assert pooled.shape == (2, 3, 2, 4) and np.allclose(pooled[:, 1, 1], got[:, 2:4, 2:4].max(axis=(1, 2)))


@pytest.mark.parametrize("size", [40, 28, 32])
def test_reader_cnn_input_is_the_trainings_area_shrink(size: int) -> None:
    """``prepare`` (OpenCV's area resize per crop) equals the shrink the net was trained with
    (``area_matrix`` rows then columns), then mean 0 and a deviation near 1 per crop
    (its deviation plus ``NORM_EPS`` divides it)."""
    rng = np.random.default_rng(size)
    crops = rng.integers(0, 256, (6, 56, 56, 3), dtype=np.uint8)
    crops[0] = 128  # a flat crop stays flat (deviation 0: divided by the epsilon alone)
    r = area_matrix(56, size)
    x = crops.astype(np.float32) / 255.0
    x = np.einsum("ih,nhwc->niwc", r, x)
    x = np.einsum("jw,niwc->nijc", r, x)
    want = (x - x.mean(axis=(1, 2, 3), keepdims=True)) / (x.std(axis=(1, 2, 3), keepdims=True) + cnn_module.NORM_EPS)
    got = prepare(crops, size)
    assert got.shape == (6, size, size, 3) and got.dtype == np.float32
    assert np.allclose(got, want, atol=1e-4)
    sd = got[1:].std(axis=(1, 2, 3))
    assert np.allclose(got[0], 0.0, atol=1e-4) and ((sd > 0.8) & (sd < 1.0)).all()
    assert prepare(crops[:0], size).shape == (0, size, size, 3)


def test_reader_cnn_reads_rendered_tiles_in_every_turn_t_b3() -> None:
    """The six/nine frame's tiles (6 and 9 in all turns, a wild, 12, 3, 15) and empty squares,
    each crop also turned by 90/180/270°: the CNN alone reads them right."""
    crops, ys = _frame_crops()
    cnn = load_cnn()
    for k in range(4):
        pred = cnn.proba(np.ascontiguousarray(np.rot90(crops, k, axes=(1, 2)))).argmax(axis=1)
        assert list(pred) == ys, k


@pytest.mark.parametrize("runtime", ["onnxruntime", "cv2.dnn"])
@pytest.mark.parametrize("path", [CNN_PATH, SECOND_CNN_PATH])
def test_reader_cnn_runtimes_equal_numpy(path: object, runtime: str) -> None:
    """The net written as ONNX and run by ONNX Runtime or ``cv2.dnn`` gives the numpy net's logits,
    in batches of any size (one crop, a few, more than one chunk)."""
    with np.load(str(path)) as d:
        net = cnn_from_arrays({k: d[k] for k in d.files})
    assert net.runner(runtime) is not None, f"{runtime} could not load the ONNX net"
    net = dataclasses.replace(net, preferred_runtime=runtime)
    assert net.runtime() == runtime
    crops, _ = _frame_crops()
    rng = np.random.default_rng(13)
    crops = np.concatenate([crops, rng.integers(0, 256, (140, 56, 56, 3), dtype=np.uint8)])
    want = net.numpy_logits(prepare(crops, net.in_size))
    for n in (1, 7, len(crops)):
        got = net.logits(crops[:n])
        assert got.shape == (n, 18)
        assert np.allclose(got, want[:n], atol=1e-3 * (1.0 + np.abs(want).max())), n
        assert (got.argmax(axis=1) == want[:n].argmax(axis=1)).all()


def test_reader_cnn_prefers_onnxruntime() -> None:
    """With ``preferred_runtime = "auto"`` the installed ONNX Runtime (a dependency) runs the net."""
    assert load_cnn().preferred_runtime == "auto"
    assert load_cnn().runtime() == "onnxruntime"


def test_reader_cnn_falls_back_to_dnn_then_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without ONNX Runtime the net runs in ``cv2.dnn``; where OpenCV cannot load it either, in numpy,
    with the same readings."""
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import fails
    with np.load(CNN_PATH) as d:
        net = cnn_from_arrays({k: d[k] for k in d.files})
    crops, ys = _frame_crops()
    assert net.runner("onnxruntime") is None
    assert net.runtime() == "cv2.dnn"
    assert list(net.proba(crops).argmax(axis=1)) == ys

    def refuse(_buffer: object) -> None:
        raise cv2.error("no ONNX importer")

    monkeypatch.setattr(cv2.dnn, "readNetFromONNX", refuse)
    net = cnn_from_arrays({k: np.asarray(v) for k, v in np.load(CNN_PATH).items()})
    assert net.runner("cv2.dnn") is None
    assert net.runtime() == "numpy"
    assert list(net.proba(crops).argmax(axis=1)) == ys
    assert np.array_equal(net.logits(crops), net.numpy_logits(prepare(crops, net.in_size)))


def test_reader_cnn_unknown_runtime_is_a_clear_error() -> None:
    net = cnn_from_arrays({k: np.asarray(v) for k, v in np.load(CNN_PATH).items()})
    net = dataclasses.replace(net, preferred_runtime="tensorrt")
    with pytest.raises(ValueError, match="unknown CNN runtime 'tensorrt'"):
        net.logits(_frame_crops()[0][:1])


def test_reader_cnn_numpy_equals_torch() -> None:
    """The numpy inference gives the same logits as the same weights run by torch (dev only)."""
    pytest.importorskip("torch")
    from lab.train.train_triolet_cnn import torch_logits

    crops, _ = _frame_crops()
    rng = np.random.default_rng(11)
    crops = np.concatenate([crops, rng.integers(0, 256, (4, 56, 56, 3), dtype=np.uint8)])
    with np.load(CNN_PATH) as d:
        arrays = {k: d[k] for k in d.files}
    want = torch_logits(arrays, crops)
    got = load_cnn().numpy_logits(prepare(crops, load_cnn().in_size))
    assert np.allclose(got, want, atol=2e-3 * (1.0 + np.abs(want).max()))
    assert (got.argmax(axis=1) == want.argmax(axis=1)).all()


def test_reader_cnn_weights_load_back_for_fine_tuning() -> None:
    """``load_arrays`` inverts ``export_arrays``: the committed weights put back into a torch net
    give the same logits and export to the same arrays (dev only: ``--init`` fine-tuning)."""
    pytest.importorskip("torch")
    import torch

    from lab.train.train_triolet_cnn import Net, export_arrays, load_arrays, to_tensor

    with np.load(CNN_PATH) as d:
        arrays = {k: d[k] for k in d.files}
    net = Net(int(arrays["in_size"]))
    load_arrays(net, arrays)
    net.eval()
    crops, _ = _frame_crops()
    with torch.no_grad():
        got = net(to_tensor(crops)).numpy()
    want = load_cnn().logits(crops)
    assert np.allclose(got, want, atol=2e-3 * (1.0 + np.abs(want).max()))
    again = export_arrays(net)
    assert set(again) == set(arrays)
    for k, v in arrays.items():
        assert np.allclose(np.asarray(again[k], np.float64), np.asarray(v, np.float64), atol=1e-3), k


def test_reader_cnn_other_widths_export_and_load_back() -> None:
    """A net of other conv widths and hidden units (``--widths``/``--hidden``) exports to arrays the
    run-time numpy net reads alike, and ``net_for_arrays`` rebuilds its shape for ``--init``."""
    pytest.importorskip("torch")
    import torch

    from lab.train.train_triolet_cnn import Net, export_arrays, load_arrays, net_for_arrays, to_tensor
    from vision.read.triolet.cnn import cnn_from_arrays

    torch.manual_seed(3)
    net = Net(40, (8, 24, 40), 48)
    net.eval()
    arrays = export_arrays(net)
    again = net_for_arrays(arrays)
    assert (again.in_size, again.fc0.out_features) == (40, 48)
    assert [m.out_channels for m in again.features if isinstance(m, torch.nn.Conv2d)] == [8, 24, 40]
    load_arrays(again, arrays)
    again.eval()
    crops, _ = _frame_crops()
    with torch.no_grad():
        want = again(to_tensor(crops)).numpy()
    got = cnn_from_arrays(arrays).logits(crops)
    assert np.allclose(got, want, atol=2e-3 * (1.0 + np.abs(want).max()))
