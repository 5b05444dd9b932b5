"""Writes the cases of //frontend/onnx:reference_test into a directory (see reference_cases in
tools/testing/checks.sh): ONNX operators whose reference is another implementation.
GridSample: torch.nn.functional.grid_sample in every mode,
padding mode and align_corners setting, exported with torch.onnx at opset 16, with grids reaching
past the image so every padding mode matters; torchvision.ops.roi_align (aligned at opset 16,
unaligned at opset 11) on RoIs inside, across and beyond the image; MaxPool's Indices
(return_indices) with padding, ceil_mode and dilation; against PyTorch's forward.
DFT and STFT (what the node cases leave out: onesided, dft_length cutting and padding, complex
input forward, a non-default axis) against numpy.fft; Einsum diagonals against numpy.einsum.
Data-dependent sizes: x[x > t], torchvision's nms and torch.unique, and what is computed from
their results (Faster R-CNN's RoI pooling per level over the boxes NMS keeps), against PyTorch. Control flow: If on run-time conditions (a scripted branch,
torchvision's batched_nms), against PyTorch. Sequences (every operator, a Loop filling one,
torch.tensor_split), against NumPy and PyTorch.

    /usr/bin/python3 reference_cases.py DIR
"""
import itertools
import os
import sys

import numpy as np
import onnx
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "testing"))
from reference_case import save_case, torch_onnx_case  # noqa: E402


class GridSample(torch.nn.Module):
    def __init__(self, mode, padding_mode, align_corners):
        super().__init__()
        self.options = dict(mode=mode, padding_mode=padding_mode, align_corners=align_corners)

    def forward(self, x, grid):
        return torch.nn.functional.grid_sample(x, grid, **self.options)


def signal_cases(out):
    """DFT and STFT nodes built with onnx.helper; numpy.fft is the reference."""
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(0)
    lines = []

    def save(name, node, inputs, constants, ref):
        graph = helper.make_graph([node], name, [helper.make_tensor_value_info(n, TensorProto.FLOAT, v.shape) for n, v in inputs],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                                  [numpy_helper.from_array(v, n) for n, v in constants])
        path = os.path.join(out, name + ".onnx")
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
        lines.append(save_case(out, name, path, [v for _, v in inputs], [ref.astype(np.float32)]))

    def pair(z):
        return np.stack((z.real, z.imag), axis=-1)

    x = rng.standard_normal((2, 10, 3, 1)).astype(np.float32)
    save("dft_onesided_padded", helper.make_node("DFT", ["x", "n"], ["y"], axis=1, onesided=1), [("x", x)], [("n", np.array(12, np.int64))],
         pair(np.fft.rfft(x[..., 0], n=12, axis=1)))
    z = rng.standard_normal((2, 3, 8, 2)).astype(np.float32)
    save("dft_complex_axis2_cut", helper.make_node("DFT", ["x", "n"], ["y"], axis=2), [("x", z)], [("n", np.array(6, np.int64))],
         pair(np.fft.fft(z[..., 0] + 1j * z[..., 1], n=6, axis=2)))
    s = rng.standard_normal((2, 40, 2)).astype(np.float32)
    frames = np.stack([s[:, f * 6:f * 6 + 9] for f in range(1 + (40 - 9) // 6)], axis=1)  # (2, frames, 9, 2)
    save("stft_complex_two_sided", helper.make_node("STFT", ["x", "step", "", "length"], ["y"], onesided=0), [("x", s)],
         [("step", np.array(6, np.int64)), ("length", np.array(9, np.int64))], pair(np.fft.fft(frames[..., 0] + 1j * frames[..., 1], axis=2)))
    # Einsum with a letter repeated within an operand (diagonals), against numpy.einsum.
    for i, (equation, shapes) in enumerate((("ii->", [(5, 5)]), ("bii->bi", [(3, 4, 4)]), ("ij,jj->i", [(3, 4), (4, 4)]),
                                             ("iij,kj->ik", [(3, 3, 5), (2, 5)]))):
        operands = [rng.standard_normal(shape).astype(np.float32) for shape in shapes]
        names = [f"x{k}" for k in range(len(operands))]
        save(f"einsum_diagonal_{i}", helper.make_node("Einsum", names, ["y"], equation=equation), list(zip(names, operands)), [],
             np.asarray(np.einsum(equation, *operands)))
    return lines


def data_dependent_cases(out):
    """Results whose sizes the data decide (NonZero, Unique, NonMaxSuppression), and what a model
    computes from them afterwards: x[x > t] (NonZero, then GatherND over the found indices),
    torchvision's nms and the boxes it keeps, torch.unique with its inverse and counts."""
    import torchvision
    torch.manual_seed(1)

    class Masked(torch.nn.Module):
        def forward(self, x):
            m = x > 0.3
            return torch.nonzero(m).float() * 2 + 1, x[m] * 3

    class Nms(torch.nn.Module):
        def forward(self, boxes, scores):
            keep = torchvision.ops.nms(boxes, scores, 0.5)
            return boxes[keep] * 2, scores[keep] + 1

    class Unique(torch.nn.Module):
        def forward(self, x):
            y, inverse, counts = torch.unique(x, sorted=True, return_inverse=True, return_counts=True)
            return y * 2, inverse, counts

    class PooledPerLevel(torch.nn.Module):
        """Faster R-CNN's MultiScaleRoIAlign over the boxes NMS keeps: each box pooled from the
        level its size picks (RoiAlign over a count the data decide), written back into the
        result at its own rows (ScatterND at data-dependent indices), or, as torchvision's ONNX
        export merges the levels, by a ScatterElements of the row indices broadcast over each
        pooled row (which the scatter-rows pass turns back into a scatter of rows)."""

        def __init__(self, by_scatter=False):
            super().__init__()
            self.by_scatter = by_scatter

        def forward(self, fine, coarse, boxes, scores):
            kept = boxes[torchvision.ops.nms(boxes, scores, 0.5)]
            rois = torch.cat([torch.zeros(kept.shape[0], 1), kept], 1)
            large = (kept[:, 2] - kept[:, 0]) * (kept[:, 3] - kept[:, 1]) > 20
            result = torch.zeros(kept.shape[0], fine.shape[1], 3, 3)
            for level, (features, scale) in enumerate(((fine, 1.0), (coarse, 0.5))):
                rows = torch.where(large if level else ~large)[0]
                pooled = torchvision.ops.roi_align(features, rois[rows], (3, 3), spatial_scale=scale,
                                                   sampling_ratio=2, aligned=True)
                if self.by_scatter:
                    result = result.scatter(0, rows.view(-1, 1, 1, 1).expand_as(pooled), pooled)
                else:
                    result[rows] = pooled
            return result

    corner = torch.rand(40, 2) * 10
    boxes = torch.cat([corner, corner + torch.rand(40, 2) * 5 + 1], 1)
    return [torch_onnx_case(out, "roi_align_per_level_of_kept_boxes", PooledPerLevel().eval(),
                            (torch.randn(1, 4, 16, 16), torch.randn(1, 4, 8, 8), boxes, torch.rand(40)), 17,
                            ["fine", "coarse", "boxes", "scores"]),
            torch_onnx_case(out, "roi_align_levels_merged_by_scatter", PooledPerLevel(by_scatter=True).eval(),
                            (torch.randn(1, 4, 16, 16), torch.randn(1, 4, 8, 8), boxes, torch.rand(40)), 17,
                            ["fine", "coarse", "boxes", "scores"]),
            torch_onnx_case(out, "masked_select", Masked().eval(), (torch.randn(6, 7),), 13, ["x"]),
            torch_onnx_case(out, "nms_keep", Nms().eval(), (boxes, torch.rand(40)), 13, ["boxes", "scores"]),
            torch_onnx_case(out, "unique_inverse_counts", Unique().eval(), (torch.randint(0, 9, (30,)).float(),), 13, ["x"])]


@torch.jit.script_if_tracing
def _scale_or_shift(x, w):
    # Scripted inside a trace: torch.onnx exports the branch as an ONNX If on a run-time condition.
    if x.sum() > 0:
        return x * w
    else:
        return torch.relu(x) - w


def scan_case(out, name="scan_reverse_axes", steps=6, length=6):
    """ONNX Scan (opset 16) built with onnx.helper: a running state h = tanh(h * a_t + b_t) over a
    read back to front and b along its axis 1, emitting h * 2 stacked on axis 1 and h stacked
    back to front; NumPy is the reference. `length` is the sequence's declared length (a name
    makes it symbolic); 6 steps unroll, a longer or symbolic sequence runs as a loop."""
    from onnx import TensorProto, helper
    rng = np.random.default_rng(3)
    h0, a, b = (rng.standard_normal(shape).astype(np.float32) for shape in ((4,), (steps, 4), (4, steps)))
    info = lambda name, shape: helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)  # noqa: E731
    body = helper.make_graph(
        [helper.make_node("Mul", ["h", "a_t"], ["ha"]), helper.make_node("Add", ["ha", "b_t"], ["pre"]),
         helper.make_node("Tanh", ["pre"], ["h_next"]), helper.make_node("Add", ["h_next", "h_next"], ["y_t"]),
         helper.make_node("Identity", ["h_next"], ["z_t"])],
        "step", [info("h", [4]), info("a_t", [4]), info("b_t", [4])], [info("h_next", [4]), info("y_t", [4]), info("z_t", [4])])
    scan = helper.make_node("Scan", ["h0", "a", "b"], ["h", "ys", "zs"], body=body, num_scan_inputs=2,
                            scan_input_axes=[0, 1], scan_input_directions=[1, 0], scan_output_axes=[1, 0],
                            scan_output_directions=[0, 1])
    graph = helper.make_graph([scan], "scan", [info("h0", [4]), info("a", [length, 4]), info("b", [4, length])],
                              [info("h", [4]), info("ys", [4, length]), info("zs", [length, 4])])
    path = os.path.join(out, name + ".onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)]), path)
    h, ys = h0, []
    for t in range(steps):
        h = np.tanh(h * a[steps - 1 - t] + b[:, t])
        ys.append(h)
    return save_case(out, name, path, [h0, a, b],
                     [h.astype(np.float32), 2 * np.stack(ys, 1).astype(np.float32), np.stack(ys[::-1]).astype(np.float32)])


@torch.jit.script_if_tracing
def _smooth_then_grow(x, limit: float):
    # Scripted inside a trace: a for loop over the rows (trip count from the shape) and a while
    # loop whose condition the data decide; torch.onnx exports both as ONNX Loop.
    h = torch.zeros_like(x[0])
    for i in range(x.size(0)):
        h = torch.tanh(h * 0.5 + x[i])
    while bool(h.abs().sum() < limit):
        h = h * 2.0
    return h


def loop_cases(out):
    """ONNX Loop built with onnx.helper: the trip count an input, a condition the body computes
    from an outer input (the loop stops early), a carried value that grows by a row each
    iteration, a carried state, a row read with the iteration number (Gather) and a scan output;
    a Slice whose bounds the iteration number gives; and 1000 iterations, which run only because
    the VM's tail calls keep the depth constant. NumPy is the reference."""
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((3,)).astype(np.float32), rng.standard_normal((12, 3)).astype(np.float32)
    info = lambda name, dtype, shape: helper.make_tensor_value_info(name, dtype, shape)  # noqa: E731
    f32, i64, flag = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
    one = helper.make_tensor("one", i64, [], [1])
    body = helper.make_graph(
        [helper.make_node("Gather", ["b", "i"], ["b_i"], axis=0), helper.make_node("Mul", ["h", "a"], ["ha"]),
         helper.make_node("Add", ["ha", "b_i"], ["pre"]), helper.make_node("Tanh", ["pre"], ["h_next"]),
         helper.make_node("Unsqueeze", ["h_next", "zero"], ["row"]), helper.make_node("Concat", ["hist", "row"], ["hist_next"], axis=0),
         helper.make_node("Add", ["i", "one"], ["i1"]), helper.make_node("Less", ["i1", "stop"], ["go_on"]),
         helper.make_node("Reshape", ["i", "shape1"], ["i_1d"]), helper.make_node("Reshape", ["i1", "shape1"], ["i1_1d"]),
         helper.make_node("Slice", ["b", "i_1d", "i1_1d", "zero"], ["b_slice"]), helper.make_node("Mul", ["b_slice", "a"], ["y"])],
        "body", [info("i", i64, []), info("cond", flag, []), info("h", f32, [3]), info("hist", f32, ["n", 3])],
        [info("go_on", flag, []), info("h_next", f32, [3]), info("hist_next", f32, ["m", 3]), info("y", f32, [1, 3])],
        initializer=[one, helper.make_tensor("zero", i64, [1], [0]), helper.make_tensor("shape1", i64, [1], [1])])
    loop = helper.make_node("Loop", ["trips", "start", "h0", "hist0"], ["h", "hist", "ys"], body=body)
    graph = helper.make_graph(
        [loop], "loop", [info("trips", i64, []), info("start", flag, []), info("h0", f32, [3]), info("stop", i64, [])],
        [info("h", f32, [3]), info("hist", f32, ["k", 3]), info("ys", f32, ["t", 1, 3])],
        initializer=[numpy_helper.from_array(a, "a"), numpy_helper.from_array(b, "b"), numpy_helper.from_array(np.zeros((0, 3), np.float32), "hist0")])
    path = os.path.join(out, "loop_early_exit.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    cases = []
    for trips, stop in ((10, 7), (4, 100)):
        h, hist, ys = rng.standard_normal((3,)).astype(np.float32), [], []
        h0 = h
        for i in range(trips):
            h = np.tanh(h * a + b[i])
            hist.append(h)
            ys.append((b[i:i + 1] * a))
            if not i + 1 < stop:
                break
        name = f"loop_trips{trips}_stop{stop}"
        cases.append(save_case(out, name, path, [np.array(trips, np.int64), np.array(True), h0, np.array(stop, np.int64)],
                               [h.astype(np.float32), np.stack(hist).astype(np.float32), np.stack(ys).astype(np.float32)]))

    # 1000 iterations of x = x * 0.999 + 1: deeper than any call stack the VM allows.
    body = helper.make_graph(
        [helper.make_node("Mul", ["x", "decay"], ["xd"]), helper.make_node("Add", ["xd", "inc"], ["x_next"]),
         helper.make_node("Identity", ["cond"], ["cond_out"])],
        "body", [info("i", i64, []), info("cond", flag, []), info("x", f32, [2])], [info("cond_out", flag, []), info("x_next", f32, [2])],
        initializer=[helper.make_tensor("decay", f32, [], [0.999]), helper.make_tensor("inc", f32, [], [1.0])])
    graph = helper.make_graph([helper.make_node("Loop", ["trips", "", "x0"], ["x"], body=body)], "deep",
                              [info("trips", i64, []), info("x0", f32, [2])], [info("x", f32, [2])])
    path = os.path.join(out, "loop_1000_iterations.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    x0 = np.array([0.5, -3.0], np.float32)
    x = x0.copy()
    for _ in range(1000):
        x = (x * np.float32(0.999) + np.float32(1.0)).astype(np.float32)
    cases.append(save_case(out, "loop_1000_iterations", path, [np.array(1000, np.int64), x0], [x]))
    cases.append(torch_onnx_case(out, "loop_scripted", _SmoothThenGrow().eval(), (torch.randn(5, 4) * 0.1,), 13, ["x"]))
    return cases


class _SmoothThenGrow(torch.nn.Module):
    def forward(self, x):
        return _smooth_then_grow(x, 8.0) + 1


class _TensorSplit(torch.nn.Module):
    # torch.onnx writes tensor_split as a Loop of constant trip count that fills a sequence
    # (SequenceEmpty, SequenceInsert, SequenceAt), as torchvision's MViT uses it.
    def forward(self, x):
        a, b, c = torch.tensor_split(x, (1, 3), dim=1)
        return torch.cat([c * 2, a, b.relu()], dim=1)


def sequence_cases(out):
    """ONNX sequences, lists known at import: every sequence operator built with onnx.helper (a
    scalar split with a shorter last piece, sizes, keepdims 0; insert, erase and read at negative
    positions; length; concat and stack along a negative axis), against NumPy; a Loop that builds
    one (three slices by the iteration number, stacked, with a scan output); torch.tensor_split
    against PyTorch."""
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal((7, 4)).astype(np.float32), rng.standard_normal((2, 4)).astype(np.float32)
    f32, i64 = TensorProto.FLOAT, TensorProto.INT64
    info = lambda name, dtype, shape: helper.make_tensor_value_info(name, dtype, shape)  # noqa: E731
    const = lambda name, v: numpy_helper.from_array(np.array(v, np.int64), name)  # noqa: E731
    nodes = [
        helper.make_node("SplitToSequence", ["x", "two"], ["pieces"], axis=0),  # 2, 2, 2, 1 rows
        helper.make_node("SequenceInsert", ["pieces", "w", "minus_one"], ["inserted"]),  # before the last
        helper.make_node("SequenceErase", ["inserted", "zero"], ["erased"]),  # x[2:4], x[4:6], w, x[6:]
        helper.make_node("SequenceAt", ["erased", "minus_two"], ["at"]),  # w
        helper.make_node("SequenceLength", ["erased"], ["length"]),
        helper.make_node("Cast", ["length"], ["length_f"], to=f32),
        helper.make_node("Add", ["at", "length_f"], ["at_plus_length"]),
        helper.make_node("SequenceErase", ["erased"], ["three"]),  # the last piece (1 row) gone
        helper.make_node("ConcatFromSequence", ["three"], ["joined"], axis=-1),
        helper.make_node("SequenceConstruct", ["at_plus_length", "w"], ["pair"]),
        helper.make_node("ConcatFromSequence", ["pair"], ["stacked"], axis=-1, new_axis=1),
        helper.make_node("SplitToSequence", ["x"], ["columns"], axis=1, keepdims=0),
        helper.make_node("ConcatFromSequence", ["columns"], ["transposed"], axis=0, new_axis=1),
        helper.make_node("SplitToSequence", ["x", "sizes"], ["two_parts"], axis=0),
        helper.make_node("SequenceAt", ["two_parts", "one"], ["tail"]),
    ]
    graph = helper.make_graph(
        nodes, "sequences", [info("x", f32, [7, 4]), info("w", f32, [2, 4])],
        [info(n, f32, None) for n in ("at_plus_length", "joined", "stacked", "transposed", "tail")],
        [const("two", 2), const("minus_one", -1), const("zero", 0), const("minus_two", -2), const("one", 1),
         const("sizes", [3, 4])])
    path = os.path.join(out, "sequence_operators.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    cases = [save_case(out, "sequence_operators", path, [x, w],
                       [w + 4, np.concatenate([x[2:4], x[4:6], w], axis=1), np.stack([w + 4, w], axis=-1), x.T, x[3:]])]

    # A Loop of 3 iterations filling a sequence with rows 2i..2i+1 of x scaled by i + 1, its
    # scan output the slices' sums; the sequence stacked after it.
    body = helper.make_graph(
        [helper.make_node("Mul", ["i", "two"], ["begin"]), helper.make_node("Add", ["begin", "two"], ["end"]),
         helper.make_node("Unsqueeze", ["begin", "zero_axis"], ["begin_1d"]),
         helper.make_node("Unsqueeze", ["end", "zero_axis"], ["end_1d"]),
         helper.make_node("Slice", ["x", "begin_1d", "end_1d", "zero_axis"], ["rows"]),
         helper.make_node("Add", ["i", "one"], ["i1"]), helper.make_node("Cast", ["i1"], ["scale"], to=f32),
         helper.make_node("Mul", ["rows", "scale"], ["scaled"]),
         helper.make_node("SequenceInsert", ["seq_in", "scaled"], ["seq_out"]),
         helper.make_node("ReduceSum", ["scaled"], ["total"], keepdims=0),
         helper.make_node("Identity", ["cond"], ["cond_out"])],
        "fill", [info("i", i64, []), helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
                 helper.make_tensor_sequence_value_info("seq_in", f32, None)],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_sequence_value_info("seq_out", f32, None), info("total", f32, [])])
    nodes = [helper.make_node("SequenceEmpty", [], ["empty"], dtype=f32),
             helper.make_node("Loop", ["trips", "", "empty"], ["filled", "totals"], body=body),
             helper.make_node("ConcatFromSequence", ["filled"], ["stacked"], axis=0, new_axis=1)]
    graph = helper.make_graph(nodes, "loop_fills_sequence", [info("x", f32, [7, 4])],
                              [info("stacked", f32, None), info("totals", f32, None)],
                              [const("trips", 3), const("two", 2), const("one", 1), const("zero_axis", [0])])
    path = os.path.join(out, "loop_fills_sequence.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    slices = [x[2 * i:2 * i + 2] * (i + 1) for i in range(3)]
    cases.append(save_case(out, "loop_fills_sequence", path, [x],
                           [np.stack(slices), np.array([s.sum() for s in slices], np.float32)]))
    cases.append(torch_onnx_case(out, "tensor_split", _TensorSplit().eval(), (torch.randn(2, 7, 3),), 13, ["x"]))
    return cases


def control_flow_cases(out):
    """ONNX Loop, Scan, If on a condition known only when the model runs (a scripted branch, taken each
    way), and torchvision's batched_nms (NonMaxSuppression per class) with the boxes it keeps."""
    import torchvision
    torch.manual_seed(2)

    class Branch(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.randn(5))

        def forward(self, x):
            return _scale_or_shift(x, self.w) + 1

    class BatchedNms(torch.nn.Module):
        def forward(self, boxes, scores, classes):
            keep = torchvision.ops.batched_nms(boxes, scores, classes, 0.4)
            return boxes[keep], keep

    corner = torch.rand(30, 2) * 10
    boxes = torch.cat([corner, corner + torch.rand(30, 2) * 5 + 1], 1)
    classes = torch.randint(0, 3, (30,))
    model = Branch().eval()
    return loop_cases(out) + [scan_case(out), scan_case(out, "scan_300_steps", 300, 300), scan_case(out, "scan_symbolic", 9, "T"),
            torch_onnx_case(out, "if_taken", model, (torch.rand(3, 5) + 0.1,), 13, ["x"]),
            torch_onnx_case(out, "if_not_taken", model, (-torch.rand(3, 5) - 0.1,), 13, ["x"]),
            torch_onnx_case(out, "batched_nms", BatchedNms().eval(), (boxes, torch.rand(30), classes), 13,
                            ["boxes", "scores", "classes"])]


def run_time_size_cases(out):
    """Sizes computed from values when the model runs. Resize to them (Mask R-CNN pastes each
    mask at its box's size): sizes = [N, C, ceil(H * fy), ceil(W * fx)] from an input, linear half_pixel (torch's
    bilinear) and nearest asymmetric floor (torch's nearest); the reference is
    torch.nn.functional.interpolate at the sizes the factors give."""
    from onnx import TensorProto, helper, numpy_helper
    import torch.nn.functional as F
    nodes = [helper.make_node("Shape", ["x"], ["shape"]),
             helper.make_node("Cast", ["shape"], ["shape_f"], to=TensorProto.FLOAT),
             helper.make_node("Concat", ["one_one", "factors"], ["all_factors"], axis=0),
             helper.make_node("Mul", ["shape_f", "all_factors"], ["scaled"]),
             helper.make_node("Ceil", ["scaled"], ["rounded"]),
             helper.make_node("Cast", ["rounded"], ["sizes"], to=TensorProto.INT64)]
    lines = []
    x = np.random.default_rng(3).standard_normal((2, 3, 5, 7)).astype(np.float32)
    for mode, coordinates, nearest, torch_mode in (("linear", "half_pixel", "floor", "bilinear"),
                                                   ("nearest", "asymmetric", "floor", "nearest")):
        graph = helper.make_graph(
            nodes + [helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode=mode,
                                      coordinate_transformation_mode=coordinates, nearest_mode=nearest)],
            "resize_" + mode, [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape),
                               helper.make_tensor_value_info("factors", TensorProto.FLOAT, [2])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
            [numpy_helper.from_array(np.ones(2, np.float32), "one_one")])
        path = os.path.join(out, f"resize_run_time_sizes_{mode}.onnx")
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
        for label, factors in (("up", (2.6, 1.5)), ("down", (0.5, 0.3))):
            f = np.array(factors, np.float32)
            size = tuple(int(np.ceil(np.float32(d) * k)) for d, k in zip(x.shape[2:], f))
            options = {"align_corners": False} if torch_mode == "bilinear" else {}
            ref = F.interpolate(torch.from_numpy(x), size=size, mode=torch_mode, **options).numpy()
            lines.append(save_case(out, f"resize_run_time_sizes_{mode}_{label}", path, [x, f], [ref]))
    # ConstantOfShape of a shape computed from an input's value (Mask R-CNN's padding, sized by
    # each box): [2, ceil(3 * v)] filled with 1.5.
    graph = helper.make_graph(
        [helper.make_node("Mul", ["v", "three"], ["scaled"]), helper.make_node("Ceil", ["scaled"], ["rounded"]),
         helper.make_node("Cast", ["rounded"], ["count"], to=TensorProto.INT64),
         helper.make_node("Concat", ["two", "count"], ["shape"], axis=0),
         helper.make_node("ConstantOfShape", ["shape"], ["y"],
                          value=numpy_helper.from_array(np.array([1.5], np.float32)))],
        "run_time_shape", [helper.make_tensor_value_info("v", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.array([3], np.float32), "three"), numpy_helper.from_array(np.array([2], np.int64), "two")])
    path = os.path.join(out, "constant_of_run_time_shape.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    v = np.array([2.2], np.float32)
    lines.append(save_case(out, "constant_of_run_time_shape", path, [v], [np.full((2, 7), 1.5, np.float32)]))

    # A reshape of a data-sized tensor whose -1 no size proves whole: x[x > 0] viewed as (2, -1)
    # (Keypoint R-CNN views its resized heatmaps as (17, -1)); checked when it runs.
    class Pairs(torch.nn.Module):
        def forward(self, x):
            return x[x > 0].reshape(2, -1) * 2

    x = torch.randn(6, 4, generator=torch.Generator().manual_seed(5))
    if int((x > 0).sum()) % 2:
        x[0, 0] = -abs(float(x[0, 0])) if x[0, 0] > 0 else abs(float(x[0, 0])) + 0.5
    lines.append(torch_onnx_case(out, "reshape_checked_when_it_runs", Pairs().eval(), (x,), 17, ["x"]))
    return lines


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    x = torch.randn(2, 3, 5, 7)
    grid = torch.rand(2, 4, 6, 2) * 2.6 - 1.3  # a margin beyond [-1, 1] on every side
    lines = run_time_size_cases(out)
    for mode, padding, align in itertools.product(("bilinear", "nearest", "bicubic"), ("zeros", "border", "reflection"), (False, True)):
        name = f"grid_sample_{mode}_{padding}_{'aligned' if align else 'unaligned'}"
        lines.append(torch_onnx_case(out, name, GridSample(mode, padding, align).eval(), (x, grid), 16, ["x", "grid"]))
    import torchvision
    feature = torch.randn(2, 4, 12, 10)
    # (batch index, x1, y1, x2, y2) in image coordinates (spatial_scale 0.5): inside, across the
    # edge, a sliver, and one past the image.
    boxes = torch.tensor([[0, 2.0, 3.0, 15.0, 20.0], [1, -4.0, 5.0, 9.0, 30.0], [1, 6.0, 6.0, 6.5, 7.0], [0, 18.0, 22.0, 30.0, 40.0]])

    class RoiAlign(torch.nn.Module):
        def __init__(self, aligned, sampling_ratio=2):
            super().__init__()
            self.aligned = aligned
            self.sampling_ratio = sampling_ratio

        def forward(self, x, rois):
            return torchvision.ops.roi_align(x, rois, output_size=(3, 2), spatial_scale=0.5,
                                             sampling_ratio=self.sampling_ratio, aligned=self.aligned)

    # torchvision 0.14 exports RoiAlign without coordinate_transformation_mode at any opset, so
    # its opset-16 export means half_pixel (aligned=True) whatever `aligned` says, and opset 11
    # (RoiAlign-10) means output_half_pixel (aligned=False): one case of each. sampling_ratio -1
    # exports as 0: a grid per RoI sized by its extent, known when the model runs.
    for aligned, opset in ((True, 16), (False, 11)):
        name = f"roi_align_{'aligned' if aligned else 'unaligned'}_opset{opset}"
        lines.append(torch_onnx_case(out, name, RoiAlign(aligned).eval(), (feature, boxes), opset, ["x", "rois"]))
    lines.append(torch_onnx_case(out, "roi_align_adaptive_grid", RoiAlign(True, -1).eval(), (feature, boxes), 16,
                                 ["x", "rois"]))
    # MaxPool's Indices (torch's return_indices: its export turns ONNX's flattened indices into
    # per-plane ones), with padding, ceil_mode and dilation; ties kept out by random data.
    class MaxPoolIndices(torch.nn.Module):
        def __init__(self, **options):
            super().__init__()
            self.options = options

        def forward(self, x):
            return torch.nn.functional.max_pool2d(x, 3, return_indices=True, **self.options)

    image = torch.randn(2, 3, 11, 10)
    for k, options in enumerate((dict(stride=2, padding=1, ceil_mode=True), dict(stride=1, padding=1, dilation=2))):
        lines.append(torch_onnx_case(out, f"max_pool_indices_{k}", MaxPoolIndices(**options).eval(), (image,), 13, ["x"]))
    lines += data_dependent_cases(out)
    lines += control_flow_cases(out)
    lines += sequence_cases(out)
    lines += signal_cases(out)
    with open(os.path.join(out, "cases.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
