"""Writing small ONNX models without the ``onnx`` package: the few protobuf fields the repo's nets
need (field numbers from onnx.proto), for ONNX Runtime and OpenCV's DNN module."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

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


def tensor(name: str, arr: NDArray[np.floating]) -> bytes:
    """TensorProto: dims (1), data_type (2), name (8), raw_data (9, little-endian float32)."""
    a = np.ascontiguousarray(arr, "<f4")
    return b"".join(_int(1, d) for d in a.shape) + _int(2, _FLOAT) + _str(8, name) + _bytes(9, a.tobytes())


def ints_attr(name: str, values: Sequence[int]) -> bytes:
    """AttributeProto: name (1), ints (8), type (20)."""
    return _str(1, name) + b"".join(_int(8, v) for v in values) + _int(20, _ATTR_INTS)


def int_attr(name: str, value: int) -> bytes:
    """AttributeProto: name (1), i (3), type (20)."""
    return _str(1, name) + _int(3, value) + _int(20, _ATTR_INT)


def node(op: str, inputs: Sequence[str], outputs: Sequence[str], attrs: Sequence[bytes] = ()) -> bytes:
    """NodeProto: input (1), output (2), op_type (4), attribute (5)."""
    return (b"".join(_str(1, i) for i in inputs) + b"".join(_str(2, o) for o in outputs) + _str(4, op)
            + b"".join(_bytes(5, a) for a in attrs))


def value_info(name: str, dims: Sequence[int | str]) -> bytes:
    """ValueInfoProto of a float tensor: name (1), type (2) → tensor_type (1) → elem_type (1),
    shape (2) → dim (1) → dim_value (1) or dim_param (2)."""
    shape = b"".join(_bytes(1, _int(1, d) if isinstance(d, int) else _str(2, d)) for d in dims)
    return _str(1, name) + _bytes(2, _bytes(1, _int(1, _FLOAT) + _bytes(2, shape)))


def model(name: str, nodes: Sequence[bytes], initializers: Sequence[bytes], inputs: Sequence[bytes],
          outputs: Sequence[bytes]) -> bytes:
    """A serialized ModelProto: ir_version (1), producer_name (2), graph (7), opset_import (8:
    domain 1, version 2); GraphProto: node (1), name (2), initializer (5), input (11), output (12)."""
    graph = (b"".join(_bytes(1, n) for n in nodes) + _str(2, name)
             + b"".join(_bytes(5, t) for t in initializers)
             + b"".join(_bytes(11, i) for i in inputs) + b"".join(_bytes(12, o) for o in outputs))
    return _int(1, IR_VERSION) + _str(2, "table-companion") + _bytes(7, graph) + _bytes(8, _str(1, "") + _int(2, OPSET))
