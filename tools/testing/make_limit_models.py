"""Writes the ONNX models of //tools:bounded_resources_test into a directory.

    make_limit_models.py OUT_DIR

Each declares far more than a machine has, in a few bytes, except chain.onnx (a million nodes,
25 MB) and ext_small.onnx (weights in a side file). Run by /usr/bin/python3 (Debian's onnx).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh


def save(out, name, nodes, inputs, outputs, initializers=()):
    graph = h.make_graph(nodes, name, inputs, outputs, list(initializers))
    onnx.save(h.make_model(graph, opset_imports=[h.make_opsetid("", 13)]), os.path.join(out, name + ".onnx"))


def external(name, shape, location, offset=0):
    t = T()
    t.name, t.data_type = name, T.FLOAT
    t.dims.extend(shape)
    t.data_location = T.EXTERNAL
    for key, value in (("location", location), ("offset", str(offset))):
        e = t.external_data.add()
        e.key, e.value = key, value
    return t


def main(out):
    f32 = lambda name, shape: h.make_tensor_value_info(name, T.FLOAT, shape)
    huge = nh.from_array(np.array([1000000, 1000000], np.int64), "shape")
    # A 10^12-element intermediate computed from a 1x1 input, and the same as a constant.
    save(out, "expand_huge", [h.make_node("Expand", ["x", "shape"], ["e"]), h.make_node("ReduceSum", ["e"], ["y"], keepdims=0)],
         [f32("x", [1, 1])], [f32("y", [])], [huge])
    fill = nh.from_array(np.array([0.5], np.float32))
    save(out, "constant_of_shape_huge",
         [h.make_node("ConstantOfShape", ["shape"], ["c"], value=fill), h.make_node("ReduceSum", ["c"], ["r"], keepdims=0),
          h.make_node("Add", ["x", "r"], ["y"])], [f32("x", [1])], [f32("y", [1])], [huge])
    # 4M elements: more than is stored as a constant, so it is filled at run time.
    save(out, "constant_of_shape_4m",
         [h.make_node("ConstantOfShape", ["shape"], ["c"], value=fill), h.make_node("ReduceSum", ["c"], ["r"], keepdims=0),
          h.make_node("Add", ["x", "r"], ["y"])], [f32("x", [1])], [f32("y", [1])],
         [nh.from_array(np.array([2048, 2048], np.int64), "shape")])
    # A 2 GiB initializer, as ONNX stores one: in a side file (sparse: it takes no disk).
    n = 1 << 29
    with open(os.path.join(out, "big.bin"), "wb") as f:
        f.truncate(4 * n)
    save(out, "initializer_2gib", [h.make_node("Add", ["x", "W"], ["y"])], [f32("x", [n])], [f32("y", [n])],
         [external("W", [n], "big.bin")])
    save(out, "external_escape", [h.make_node("Add", ["x", "W"], ["y"])], [f32("x", [4])], [f32("y", [4])],
         [external("W", [4], "../w.bin")])
    w = np.arange(4, dtype=np.float32) + 0.5
    with open(os.path.join(out, "w.bin"), "wb") as f:
        f.write(b"\0" * 16 + w.tobytes())
    save(out, "ext_small", [h.make_node("Add", ["x", "W"], ["y"])], [f32("x", [4])], [f32("y", [4])],
         [external("W", [4], "w.bin", offset=16)])
    # A graph of a million nodes.
    count = 1000000
    nodes = [h.make_node("Relu", ["x" if i == 0 else f"t{i - 1}"], [f"t{i}" if i < count - 1 else "y"]) for i in range(count)]
    save(out, "chain", nodes, [f32("x", [4])], [f32("y", [4])])
    np.save(os.path.join(out, "x4.npy"), np.array([-1.5, 0.0, 2.0, 3.25], np.float32))
    np.save(os.path.join(out, "x1.npy"), np.array([1.0], np.float32))
    np.save(os.path.join(out, "x11.npy"), np.ones((1, 1), np.float32))


if __name__ == "__main__":
    main(sys.argv[1])
