"""The square CNN as an ONNX model in memory, for OpenCV's DNN module (``cv2.dnn``).

The weights stay in ``triolet_cnn.npz``; this module writes the same net in the ONNX protobuf
format (Conv, MaxPool, Relu, Flatten, Gemm at opset 13, ``vision.onnx_proto``) so that ONNX
Runtime or ``cv2.dnn.readNetFromONNX`` can run it; no ``onnx`` package is needed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vision.onnx_proto import int_attr, ints_attr, model, node, tensor, value_info

if TYPE_CHECKING:
    from vision.read.triolet.cnn import SquareCnn


def square_cnn_onnx(cnn: SquareCnn) -> bytes:
    """The serialized ONNX ModelProto of ``cnn``: input ``x`` (n, 3, S, S), the crops as
    ``cnn.prepare`` leaves them, channels first; output ``logits`` (n, classes)."""
    nodes: list[bytes] = []
    inits: list[bytes] = []
    x, channels, side = "x", 3, cnn.in_size
    for i, (w, b) in enumerate(cnn.convs):
        out = w.shape[1]
        kernel = w.reshape(3, 3, channels, out).transpose(3, 2, 0, 1)  # (dy, dx, in, out) → (out, in, dy, dx)
        inits += [tensor(f"w{i}", kernel), tensor(f"b{i}", b)]
        nodes.append(node("Conv", [x, f"w{i}", f"b{i}"], [f"conv{i}"],
                           [ints_attr("kernel_shape", [3, 3]), ints_attr("pads", [1, 1, 1, 1])]))
        nodes.append(node("MaxPool", [f"conv{i}"], [f"pool{i}"],
                           [ints_attr("kernel_shape", [2, 2]), ints_attr("strides", [2, 2])]))
        nodes.append(node("Relu", [f"pool{i}"], [f"relu{i}"]))
        x, channels, side = f"relu{i}", out, side // 2
    # the numpy net flattens channels last, ONNX channels first: the hidden layer's rows follow
    w0 = cnn.hidden[0].reshape(side, side, channels, -1).transpose(2, 0, 1, 3).reshape(side * side * channels, -1)
    inits += [tensor("fc0_w", w0), tensor("fc0_b", cnn.hidden[1]),
              tensor("fc1_w", cnn.out[0]), tensor("fc1_b", cnn.out[1])]
    nodes += [node("Flatten", [x], ["flat"], [int_attr("axis", 1)]),
              node("Gemm", ["flat", "fc0_w", "fc0_b"], ["fc0"]),
              node("Relu", ["fc0"], ["hidden"]),
              node("Gemm", ["hidden", "fc1_w", "fc1_b"], ["logits"])]
    return model("square_cnn", nodes, inits, [value_info("x", ["n", 3, cnn.in_size, cnn.in_size])],
                 [value_info("logits", ["n", int(cnn.out[0].shape[1])])])
