"""The square CNN as an ONNX model in memory, for OpenCV's DNN module (``cv2.dnn``).

The weights stay in ``triolet_cnn.npz``; this module writes the same net in the ONNX protobuf
format (Conv, MaxPool, Relu, Flatten, Gemm at opset 13) so that ``cv2.dnn.readNetFromONNX`` can
run it. Only the few protobuf fields the net needs are written (field numbers from onnx.proto);
no ``onnx`` package is needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from .cnn import SquareCnn

OPSET = 13
IR_VERSION = 7
#: ONNX TensorProto.DataType FLOAT; AttributeProto.AttributeType INT and INTS
_FLOAT, _ATTR_INT, _ATTR_INTS = 1, 2, 7


def _varint(v: int) -> bytes:
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        low, v = v & 0x7F, v >> 7
        if v:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _int(field: int, v: int) -> bytes:
    return _varint(field << 3) + _varint(v)


def _bytes(field: int, b: bytes) -> bytes:
    return _varint(field << 3 | 2) + _varint(len(b)) + b


def _str(field: int, s: str) -> bytes:
    return _bytes(field, s.encode())


def _tensor(name: str, arr: NDArray[np.floating]) -> bytes:
    """TensorProto: dims (1), data_type (2), name (8), raw_data (9, little-endian float32)."""
    a = np.ascontiguousarray(arr, "<f4")
    return b"".join(_int(1, d) for d in a.shape) + _int(2, _FLOAT) + _str(8, name) + _bytes(9, a.tobytes())


def _ints_attr(name: str, values: Sequence[int]) -> bytes:
    """AttributeProto: name (1), ints (8), type (20)."""
    return _str(1, name) + b"".join(_int(8, v) for v in values) + _int(20, _ATTR_INTS)


def _int_attr(name: str, value: int) -> bytes:
    """AttributeProto: name (1), i (3), type (20)."""
    return _str(1, name) + _int(3, value) + _int(20, _ATTR_INT)


def _node(op: str, inputs: Sequence[str], outputs: Sequence[str], attrs: Sequence[bytes] = ()) -> bytes:
    """NodeProto: input (1), output (2), op_type (4), attribute (5)."""
    return (b"".join(_str(1, i) for i in inputs) + b"".join(_str(2, o) for o in outputs) + _str(4, op)
            + b"".join(_bytes(5, a) for a in attrs))


def _value_info(name: str, dims: Sequence[int | str]) -> bytes:
    """ValueInfoProto of a float tensor: name (1), type (2) → tensor_type (1) → elem_type (1),
    shape (2) → dim (1) → dim_value (1) or dim_param (2)."""
    shape = b"".join(_bytes(1, _int(1, d) if isinstance(d, int) else _str(2, d)) for d in dims)
    return _str(1, name) + _bytes(2, _bytes(1, _int(1, _FLOAT) + _bytes(2, shape)))


def square_cnn_onnx(cnn: SquareCnn) -> bytes:
    """The serialized ONNX ModelProto of ``cnn``: input ``x`` (n, 3, S, S), the crops as
    ``cnn.prepare`` leaves them, channels first; output ``logits`` (n, classes)."""
    nodes: list[bytes] = []
    inits: list[bytes] = []
    x, channels, side = "x", 3, cnn.in_size
    for i, (w, b) in enumerate(cnn.convs):
        out = w.shape[1]
        kernel = w.reshape(3, 3, channels, out).transpose(3, 2, 0, 1)  # (dy, dx, in, out) → (out, in, dy, dx)
        inits += [_tensor(f"w{i}", kernel), _tensor(f"b{i}", b)]
        nodes.append(_node("Conv", [x, f"w{i}", f"b{i}"], [f"conv{i}"],
                           [_ints_attr("kernel_shape", [3, 3]), _ints_attr("pads", [1, 1, 1, 1])]))
        nodes.append(_node("MaxPool", [f"conv{i}"], [f"pool{i}"],
                           [_ints_attr("kernel_shape", [2, 2]), _ints_attr("strides", [2, 2])]))
        nodes.append(_node("Relu", [f"pool{i}"], [f"relu{i}"]))
        x, channels, side = f"relu{i}", out, side // 2
    # the numpy net flattens channels last, ONNX channels first: the hidden layer's rows follow
    w0 = cnn.hidden[0].reshape(side, side, channels, -1).transpose(2, 0, 1, 3).reshape(side * side * channels, -1)
    inits += [_tensor("fc0_w", w0), _tensor("fc0_b", cnn.hidden[1]),
              _tensor("fc1_w", cnn.out[0]), _tensor("fc1_b", cnn.out[1])]
    nodes += [_node("Flatten", [x], ["flat"], [_int_attr("axis", 1)]),
              _node("Gemm", ["flat", "fc0_w", "fc0_b"], ["fc0"]),
              _node("Relu", ["fc0"], ["hidden"]),
              _node("Gemm", ["hidden", "fc1_w", "fc1_b"], ["logits"])]
    graph = (b"".join(_bytes(1, n) for n in nodes) + _str(2, "square_cnn")
             + b"".join(_bytes(5, t) for t in inits)
             + _bytes(11, _value_info("x", ["n", 3, cnn.in_size, cnn.in_size]))
             + _bytes(12, _value_info("logits", ["n", int(cnn.out[0].shape[1])])))
    # ModelProto: ir_version (1), producer_name (2), graph (7), opset_import (8: domain 1, version 2)
    return _int(1, IR_VERSION) + _str(2, "table-companion") + _bytes(7, graph) + _bytes(8, _str(1, "") + _int(2, OPSET))
