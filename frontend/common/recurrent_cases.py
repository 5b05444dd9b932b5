"""Writes the recurrent-network test cases of recurrent_test.sh into a directory.

    /usr/bin/python3 recurrent_cases.py DIR

Each case is a model file (.onnx or .fxpb), its inputs and reference outputs, listed in
DIR/cases.txt (tools/testing/reference_case.py).
PyTorch modules (nn.LSTM / nn.GRU / nn.RNN with several layers, both directions, batch_first,
initial states) go through torch.onnx, torch.fx and ATen capture; their reference is PyTorch's forward. ONNX
nodes with what PyTorch does not export (sequence_lens given at run time, layout 1, GRU without
linear_before_reset, peepholes, input_forget, clip, activations with alpha/beta) are built with
onnx.helper; their reference is reference_layer below, written from the ONNX operator
definitions with NumPy. The ONNX nodes and a PyTorch module exported with a dynamic sequence
axis also run over a sequence of symbolic length (a loop over the steps).
"""
import os
import sys

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "torch"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "testing"))
import export_fx  # noqa: E402
from reference_case import save_case, torch_onnx_case  # noqa: E402

GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
DEFAULT_ACTIVATIONS = {"RNN": ["Tanh"], "GRU": ["Sigmoid", "Tanh"], "LSTM": ["Sigmoid", "Tanh", "Tanh"]}


def activation(name, alpha=None, beta=None):
    f = {
        "Sigmoid": lambda x: 1 / (1 + np.exp(-x)),
        "Tanh": np.tanh,
        "Relu": lambda x: np.maximum(x, 0),
        "LeakyRelu": lambda x: np.where(x >= 0, x, (0.01 if alpha is None else alpha) * x),
        "HardSigmoid": lambda x: np.clip((0.2 if alpha is None else alpha) * x + (0.5 if beta is None else beta), 0, 1),
        "ScaledTanh": lambda x: (1 if alpha is None else alpha) * np.tanh((1 if beta is None else beta) * x),
    }
    return f[name]


def reference_layer(op, x, w, r, b=None, lens=None, h0=None, c0=None, p=None, direction="forward", acts=None,
                    clip=None, linear_before_reset=0, input_forget=0):
    """ONNX RNN/GRU/LSTM at layout 0, step by step in float64: Y (seq, dirs, batch, H), Y_h, Y_c."""
    seq, batch, _ = x.shape
    dirs, gh, hidden = r.shape
    g = GATES[op]
    n = len(DEFAULT_ACTIVATIONS[op])
    acts = acts or [activation(a) for a in DEFAULT_ACTIVATIONS[op]] * dirs
    lens = np.full(batch, seq) if lens is None else lens
    y = np.zeros((seq, dirs, batch, hidden))
    yh = np.zeros((dirs, batch, hidden))
    yc = np.zeros((dirs, batch, hidden))
    for d in range(dirs):
        f, gg, hh = (acts[d * n:(d + 1) * n] + [None, None])[:3]
        cl = (lambda v: np.clip(v, -clip, clip)) if clip else (lambda v: v)
        wb, rb = (b[d][:gh], b[d][gh:]) if b is not None else (np.zeros(gh), np.zeros(gh))
        for k in range(batch):
            h = h0[d, k].astype(np.float64) if h0 is not None else np.zeros(hidden)
            c = c0[d, k].astype(np.float64) if c0 is not None else np.zeros(hidden)
            steps = range(lens[k]) if (direction == "forward" or (direction == "bidirectional" and d == 0)) else range(lens[k] - 1, -1, -1)
            for t in steps:
                xw = w[d] @ x[t, k] + wb
                blocks = lambda v, i: v[i * hidden:(i + 1) * hidden]  # noqa: E731
                if op == "RNN":
                    h = f(cl(xw + r[d] @ h + rb))
                elif op == "GRU":
                    z = f(cl(blocks(xw, 0) + blocks(r[d] @ h, 0) + blocks(rb, 0)))
                    rr = f(cl(blocks(xw, 1) + blocks(r[d] @ h, 1) + blocks(rb, 1)))
                    rh = r[d][2 * hidden:]
                    if linear_before_reset:
                        cand = gg(cl(blocks(xw, 2) + rr * (rh @ h + blocks(rb, 2))))
                    else:
                        cand = gg(cl(blocks(xw, 2) + rh @ (rr * h) + blocks(rb, 2)))
                    h = (1 - z) * cand + z * h
                else:
                    a = xw + r[d] @ h + rb
                    pi, po, pf = (p[d][:hidden], p[d][hidden:2 * hidden], p[d][2 * hidden:]) if p is not None else (0, 0, 0)
                    i = f(cl(blocks(a, 0) + pi * c))
                    fg = 1 - i if input_forget else f(cl(blocks(a, 2) + pf * c))
                    c = fg * c + i * gg(cl(blocks(a, 3)))
                    o = f(cl(blocks(a, 1) + po * c))
                    h = o * hh(cl(c))
                y[t, d, k] = h
            yh[d, k], yc[d, k] = h, c
    return [v.astype(np.float32) for v in ((y, yh, yc) if op == "LSTM" else (y, yh))]


class Flat(torch.nn.Module):
    """A recurrent module without initial states whose results (output, h_n[, c_n]) are returned flat."""

    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn

    def forward(self, x):
        out = self.rnn(x)  # indexed, not unpacked: FX traces a proxy
        return (out[0], out[1][0], out[1][1]) if isinstance(self.rnn, torch.nn.LSTM) else (out[0], out[1])


class FlatH(Flat):
    def forward(self, x, h):
        out = self.rnn(x, h)
        return out[0], out[1]


class FlatHC(Flat):
    def forward(self, x, h, c):
        out = self.rnn(x, (h, c))
        return out[0], out[1][0], out[1][1]


def torch_cases(out, cases):
    torch.manual_seed(0)
    specs = [
        ("lstm_2layer_bidirectional_batch_first", torch.nn.LSTM(8, 16, num_layers=2, bidirectional=True, batch_first=True), (3, 7, 8), True),
        ("lstm_one_layer", torch.nn.LSTM(10, 12), (9, 2, 10), False),
        ("gru_2layer_bidirectional", torch.nn.GRU(8, 16, num_layers=2, bidirectional=True), (6, 3, 8), True),
        ("rnn_relu_2layer_no_bias", torch.nn.RNN(8, 16, num_layers=2, nonlinearity="relu", bias=False), (5, 2, 8), False),
    ]
    for name, rnn, shape, with_state in specs:
        lstm = isinstance(rnn, torch.nn.LSTM)
        model = ((FlatHC if lstm else FlatH) if with_state else Flat)(rnn.eval()).eval()
        x = torch.randn(*shape)
        batch = shape[0] if rnn.batch_first else shape[1]
        layers = rnn.num_layers * (2 if rnn.bidirectional else 1)
        inputs = [x]
        if with_state:
            inputs += [torch.randn(layers, batch, rnn.hidden_size) for _ in range(2 if lstm else 1)]
        cases.append(torch_onnx_case(out, f"{name}_onnx", model, inputs, 14, [f"in{i}" for i in range(len(inputs))]))
        with torch.no_grad():
            refs = model(*inputs)
        # torch.fx calls the module's converter; ATen capture records the layer's steps as
        # PyTorch decomposes them (unbind, split, stack, matrix products).
        for capture, suffix in (("fx", "fxpb"), ("aten", "aten")):
            path = os.path.join(out, f"{name}_{suffix}.fxpb")
            export_fx.export(model, tuple(inputs), path, capture=capture)
            cases.append(save_case(out, f"{name}_{suffix}", path, [t.numpy() for t in inputs], [t.numpy() for t in refs]))


class LastStep(torch.nn.Module):
    """A classifier over a sequence: a 2-layer bidirectional LSTM (batch first), then its last step."""

    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.LSTM(8, 16, num_layers=2, bidirectional=True, batch_first=True)
        self.fc = torch.nn.Linear(32, 3)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y[:, -1])


def symbolic_sequence_cases(out, cases):
    """The sequence axis exported as dynamic (torch.onnx's dynamic_axes): one executable, run at
    two lengths, each against PyTorch."""
    torch.manual_seed(1)
    model = LastStep().eval()
    x = torch.randn(2, 11, 8)
    cases.append(torch_onnx_case(out, "lstm_dynamic_sequence_11_onnx", model, [x], 14, ["x"], {"x": {1: "seq"}}))
    longer = torch.randn(2, 37, 8)
    with torch.no_grad():
        ref = model(longer)
    cases.append(save_case(out, "lstm_dynamic_sequence_37_onnx", os.path.join(out, "lstm_dynamic_sequence_11_onnx.onnx"),
                           [longer.numpy()], [ref.numpy()]))


def onnx_cases(out, cases):
    rng = np.random.default_rng(0)
    seq, batch, inp, hidden = 6, 4, 5, 7
    specs = [
        # name, op, attrs, with lens, with initial states, with peepholes, layout
        ("onnx_lstm_bidirectional_sequence_lens", "LSTM", {"direction": "bidirectional"}, True, True, True, 0),
        ("onnx_lstm_input_forget_clip", "LSTM", {"input_forget": 1, "clip": 0.7}, False, False, False, 0),
        ("onnx_gru_reset_before_linear_reverse_lens", "GRU", {"direction": "reverse"}, True, True, False, 0),
        ("onnx_gru_linear_before_reset_layout1", "GRU", {"linear_before_reset": 1, "layout": 1}, False, True, False, 1),
        ("onnx_rnn_bidirectional_activations", "RNN",
         {"direction": "bidirectional", "activations": ["LeakyRelu", "ScaledTanh"], "activation_alpha": [0.3, 0.9],
          "activation_beta": [1.5]}, True, False, False, 0),
        ("onnx_lstm_hard_sigmoid", "LSTM", {"activations": ["HardSigmoid", "Tanh", "Tanh"], "activation_alpha": [0.3],
                                            "activation_beta": [0.4]}, False, False, False, 0),
    ]
    # The same layers over a sequence of symbolic length (X's time axis named): each runs as a loop.
    specs += [(n + "_symbolic_seq", op, attrs, lens, state, p, layout) for n, op, attrs, lens, state, p, layout in specs[:4]]
    for name, op, attrs, with_lens, with_state, with_p, layout in specs:
        symbolic = name.endswith("_symbolic_seq")
        dirs = 2 if attrs.get("direction") == "bidirectional" else 1
        g = GATES[op]
        x = rng.standard_normal((seq, batch, inp)).astype(np.float32)
        w = (rng.standard_normal((dirs, g * hidden, inp)) * 0.4).astype(np.float32)
        r = (rng.standard_normal((dirs, g * hidden, hidden)) * 0.4).astype(np.float32)
        b = (rng.standard_normal((dirs, 2 * g * hidden)) * 0.2).astype(np.float32)
        lens = np.array([6, 3, 1, 5], np.int32) if with_lens else None
        h0 = rng.standard_normal((dirs, batch, hidden)).astype(np.float32) if with_state else None
        c0 = rng.standard_normal((dirs, batch, hidden)).astype(np.float32) if with_state and op == "LSTM" else None
        p = (rng.standard_normal((dirs, 3 * hidden)) * 0.3).astype(np.float32) if with_p else None
        names = ["X", "W", "R", "B", "sequence_lens" if with_lens else "", "initial_h" if with_state else ""]
        if op == "LSTM":
            names += ["initial_c" if c0 is not None else "", "P" if with_p else ""]
        while names[-1] == "":
            names.pop()
        batch_major = lambda v: np.ascontiguousarray(v.transpose(1, 0, 2)) if layout == 1 else v  # noqa: E731
        values = {"X": batch_major(x), "W": w, "R": r, "B": b, "sequence_lens": lens, "initial_h": None if h0 is None else batch_major(h0),
                  "initial_c": None if c0 is None else batch_major(c0), "P": p}
        outputs = ["Y", "Y_h"] + (["Y_c"] if op == "LSTM" else [])
        node = helper.make_node(op, names, outputs, hidden_size=hidden, **attrs)
        def declared(n):
            shape = list(values[n].shape)
            if n == "X" and symbolic:
                shape[layout] = "seq"
            return shape
        graph_inputs = [helper.make_tensor_value_info(n, TensorProto.INT32 if n == "sequence_lens" else TensorProto.FLOAT, declared(n))
                        for n in names if n and n not in ("W", "R", "B", "P")]
        inits = [numpy_helper.from_array(values[n], n) for n in ("W", "R", "B", "P") if n in names]
        graph = helper.make_graph([node], name, graph_inputs, [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs], inits)
        path = os.path.join(out, f"{name}.onnx")
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)]), path)
        acts = None
        if "activations" in attrs:
            alphas, betas = list(attrs.get("activation_alpha", [])), list(attrs.get("activation_beta", []))
            acts = []
            for a in attrs["activations"] * (dirs if len(attrs["activations"]) < dirs * len(DEFAULT_ACTIVATIONS[op]) else 1):
                takes = {"LeakyRelu": 1, "HardSigmoid": 2, "ScaledTanh": 2}.get(a, 0)
                alpha = alphas.pop(0) if takes >= 1 and alphas else None
                beta = betas.pop(0) if takes >= 2 and betas else None
                acts.append(activation(a, alpha, beta))
        refs = reference_layer(op, x.astype(np.float64), w, r, b, lens, h0, c0, p, attrs.get("direction", "forward"), acts,
                               attrs.get("clip"), attrs.get("linear_before_reset", 0), attrs.get("input_forget", 0))
        if layout == 1:
            refs = [np.ascontiguousarray(refs[0].transpose(2, 0, 1, 3))] + [np.ascontiguousarray(v.transpose(1, 0, 2)) for v in refs[1:]]
        inputs = [values[n] for n in names if n and n not in ("W", "R", "B", "P")]
        cases.append(save_case(out, name, path, inputs, refs))


def main():
    out = sys.argv[1]
    cases = []
    torch_cases(out, cases)
    symbolic_sequence_cases(out, cases)
    onnx_cases(out, cases)
    with open(os.path.join(out, "cases.txt"), "w") as f:
        f.write("\n".join(cases) + "\n")


if __name__ == "__main__":
    main()
