"""mlc: compile PyTorch, ONNX and TVMScript models to native code, and run them.

    import mlc
    m = mlc.compile("model.onnx")               # or .irpb, .py / TVMScript text, torch.nn.Module
    y = m(x)                                    # NumPy arrays (or DLPack tensors: torch) in, NumPy out
    m.save("model.mlcx"); m = mlc.load("model.mlcx")

    mod = mlc.ir.load("model.irpb")             # the IR, stage by stage
    print(mod.script())
    mod = mlc.transform.run(mod, "fuse-ops,legalize,fuse-tir")

The stages are the same C++ libraries the stage binaries run (docs/python.md). Errors raise
ValueError for what the caller gave (bad input, an unknown pass or function, a damaged file: the
message names the file, node or parameter) and RuntimeError otherwise. Outputs are NumPy arrays over the runtime's memory: no copy, and
`torch.from_dlpack(y)` shares it too.
"""
import contextlib
import errno
import os
import tempfile

import numpy as np

from . import _mlc
from ._version import __version__  # written by the build (python/BUILD's MLC_VERSION)

__all__ = ["compile", "load", "tune", "generate", "Module", "ir", "transform", "set_limits", "set_num_threads", "get_num_threads",
           "cpu_features"]

set_limits = _mlc.set_limits
set_num_threads = _mlc.set_num_threads
get_num_threads = _mlc.get_num_threads
# The CPU features (LLVM's names) this machine runs, as the VM checks an executable's against.
cpu_features = _mlc.cpu_features


class _Namespace:
    def __init__(self, **members):
        self.__dict__.update(members)


def _load_ir(path):
    """An IRModule from a .irpb file."""
    return _mlc.load_ir(os.fspath(path))


def _parse(text, name="<script>"):
    """An IRModule from TVMScript text."""
    return _mlc.parse_script(text, name)


def _run(module, passes, target="native", tuning_db=None, params=None, quantize=None):
    """Runs a pass pipeline ("fuse-ops,legalize", or a named one such as "default") on an
    IRModule and returns the new one; `params` (name -> array) are bound to main's parameters
    first, as bind-params does; `quantize` ("q8", "q4") quantizes matmul weights first."""
    return _mlc.run_passes(module, passes, target, os.fspath(tuning_db) if tuning_db else "",
                           {k: np.ascontiguousarray(_to_numpy(v)) for k, v in (params or {}).items()},
                           quantize or "")


ir = _Namespace(load=_load_ir, parse=_parse, IRModule=_mlc.IRModule)
transform = _Namespace(run=_run, list_passes=_mlc.list_passes, describe_passes=_mlc.describe_passes)


def _to_numpy(x):
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "__dlpack__"):  # torch tensors and other DLPack producers (CPU)
        return np.from_dlpack(x)
    return np.asarray(x)


class _Result:
    """The place of an executable's n-th result in a module's nested outputs."""

    def __init__(self, index):
        self.index = index


def _output_structure(outputs):
    """A torch.nn.Module's outputs (example results) as a template: each tensor replaced by a
    _Result numbered in the order the exporters flatten them (lists and tuples in order, dicts in
    insertion order: torch's pytree); None for a tensor or a flat tuple of them, which the
    executable returns as they are."""
    import torch
    if isinstance(outputs, torch.Tensor) or (
            type(outputs) is tuple and all(isinstance(o, torch.Tensor) for o in outputs)):
        return None
    count = [0]

    def walk(value):
        if isinstance(value, torch.Tensor):
            count[0] += 1
            return _Result(count[0] - 1)
        if isinstance(value, (list, tuple)):
            return type(value)(walk(v) for v in value)
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        return value  # a number or None: the same every call, not among the executable's results

    return walk(outputs)


def _nest(template, results):
    if isinstance(template, _Result):
        return results[template.index]
    if isinstance(template, (list, tuple)):
        return type(template)(_nest(v, results) for v in template)
    if isinstance(template, dict):
        return {k: _nest(v, results) for k, v in template.items()}
    return template


class Module:
    """A compiled model: call it like the function it was compiled from."""

    def __init__(self, executable, func="main", outputs=None):
        self._exe = executable
        self._func = func
        self._outputs = outputs  # _output_structure of the torch.nn.Module it was compiled from

    def __call__(self, *inputs, **named):
        """m(x, y), m(x, y=...) or m(**{"input.1": x}): inputs by position, then by parameter name.
        Compiled from a torch.nn.Module whose results are nested (a detection model's list of
        dicts), the results come nested the same way."""
        results = self.call(self._func, *inputs, **named)
        if self._outputs is None:
            return results
        return _nest(self._outputs, results if isinstance(results, (list, tuple)) else (results,))

    def run(self, inputs):
        """m.run({"x": x, ...}) (ONNX Runtime's habit) or m.run([x, ...])."""
        return self(**inputs) if isinstance(inputs, dict) else self(*inputs)

    def call(self, func, *inputs, **named):
        """Calls another function of the executable by name (inputs as for __call__)."""
        args = list(inputs)
        if named:
            names = [p.split(":", 1)[0] for p in self._exe.params(func)]
            unknown = [n for n in named if n not in names]
            if unknown:
                raise ValueError(f"{func} has no parameter {', '.join(map(repr, unknown))} (its parameters: {', '.join(names)})")
            for i, name in enumerate(names):
                if name not in named:
                    continue
                if i < len(args):
                    raise ValueError(f"{func}: parameter {name!r} given both by position and by name")
                if i > len(args):
                    missing = names[len(args)]
                    raise ValueError(f"{func}: parameter {missing!r} is missing (given: {', '.join(named)})")
                args.append(named[name])
        return self._exe.call(func, [np.ascontiguousarray(_to_numpy(x)) for x in args])

    def generate(self, prompt_ids, max_new_tokens=32, temperature=0.0, top_k=0, seed=1, stop_id=None, on_token=None):
        """Generates tokens with a decoder compiled from either form docs/language_models.md
        describes (with a key/value cache, or ids -> logits): greedy, or sampled from
        softmax(logits / temperature) over the top_k. `on_token(id)` is called with each new id as
        it is chosen. Returns the new ids; `self.last_generation` keeps the prefill and decode
        times and speeds."""
        prompt = [int(t) for t in np.asarray(_to_numpy(prompt_ids)).reshape(-1)]
        ids, prefill, decode = self._exe.generate(self._func, prompt, int(max_new_tokens), float(temperature), int(top_k),
                                                  int(seed), -1 if stop_id is None else int(stop_id), on_token)
        self.last_generation = {
            "prefill_seconds": prefill, "decode_seconds": decode,
            "prefill_tokens_per_second": len(prompt) / prefill if prefill > 0 else None,
            "decode_tokens_per_second": (len(ids) - 1) / decode if decode > 0 else None,
        }
        return ids

    def profile(self, *inputs, runs=20, trace=None):
        """Runs the function `runs` times timing every kernel and runtime function: a Profile whose
        str() is the table //vm:run --profile prints and whose .rows are dicts (name, kind,
        operators, calls_per_run, seconds_per_run, flops_per_call, bytes_per_call, and
        chunk_seconds_per_run and uneven_seconds_per_run: its parallel loops' chunks over all
        threads, and per call the busiest thread's lead over the least busy), slowest first. `trace` writes the runs as a Chrome trace (Perfetto, chrome://tracing)."""
        args = [np.ascontiguousarray(_to_numpy(x)) for x in inputs]
        rows, text, seconds = self._exe.profile(self._func, args, runs, os.fspath(trace) if trace else "")
        return Profile(rows, text, seconds)

    def save(self, path):
        """Writes the executable (a sealed .mlcx, as //codegen:build writes it)."""
        self._exe.save(os.fspath(path))

    @property
    def functions(self):
        return self._exe.functions()

    @property
    def params(self):
        """main's parameters: "name: dtype (shape)"."""
        return self._exe.params(self._func)

    @property
    def target(self):
        return self._exe.target

    def __repr__(self):
        return f"<mlc.Module {self._func}({', '.join(self.params)}) target={self.target}>"

    def __reduce__(self):
        # Pickled as the executable's bytes. Unpickling loads its native code without a signature
        # check: unpickle only what you trust (as with any pickle).
        return (_module_from_bytes, (self._exe.bytes(), self._func, self._outputs))


class Profile:
    """Module.profile's result: .rows (dicts, slowest first), .seconds_per_run, str() the table."""

    def __init__(self, rows, text, seconds_per_run):
        self.rows = rows
        self.seconds_per_run = seconds_per_run
        self._text = text

    def __str__(self):
        return self._text

    def __repr__(self):
        return f"<mlc.Profile {len(self.rows)} rows, {self.seconds_per_run * 1e3:.3f} ms per run>"


def _module_from_bytes(data, func, outputs=None):
    return Module(_mlc.Executable(data, "<unpickled>", []), func, outputs)


def generate(module, prompt_ids, max_new_tokens=32, **options):
    """module.generate(prompt_ids, max_new_tokens, ...): tokens from a compiled decoder."""
    return module.generate(prompt_ids, max_new_tokens, **options)


def load(path, trusted_keys=()):
    """Loads an executable. With `trusted_keys` (public key files), only one signed by one of
    them loads: loading runs the native code inside (docs/build_and_run.md)."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    return Module(_mlc.Executable(data, path, [os.fspath(k) for k in trusted_keys]))


_MODEL_SUFFIXES = (".onnx", ".irpb", ".fxpb", ".py")


def _import(model, inputs, keep_params_in_input, dims, dynamic_axes=None, capture="auto"):
    """The model as an IRModule, and for a torch.nn.Module the nesting of its results
    (_output_structure; None otherwise)."""
    if isinstance(model, _mlc.IRModule):
        return model, None
    if hasattr(model, "forward") and hasattr(model, "named_parameters"):  # a torch.nn.Module
        return _import_torch(model, inputs, dynamic_axes, capture)
    return _import_file_or_text(model, keep_params_in_input, dims), None


def _import_torch(model, inputs, dynamic_axes, capture):
    if inputs is None:
        raise ValueError("compiling a torch.nn.Module needs example inputs: mlc.compile(model, inputs=(x,))")
    import torch
    if isinstance(inputs, (torch.Tensor, np.ndarray)):  # one input, not a sequence of them
        inputs = (inputs,)
    examples = tuple(x if isinstance(x, torch.Tensor) else torch.from_numpy(np.array(x)) for x in inputs)
    axes = _dynamic_axes_by_index(examples, dynamic_axes or {})
    if capture not in ("auto", "fx", "aten"):
        raise ValueError(f"capture must be 'auto', 'fx' or 'aten', not {capture!r}")
    was_training = model.training  # exporting switches to eval mode; the caller's module is left as it was
    try:
        model.eval()
        with torch.no_grad():
            outputs = _output_structure(model(*examples))
        from . import export_fx  # imports torch: only when a module is given
        with tempfile.TemporaryDirectory(prefix="mlc_fx_") as tmp:
            path = os.path.join(tmp, "model.fxpb")

            def through(kind):
                with torch.no_grad():
                    export_fx.export(model, examples, path, axes, capture=kind)
                with _naming_the_module(path, model, "torch.fx" if kind == "fx" else "ATen capture"):
                    return _mlc.import_fx(path)

            # torch.fx first (modules as written, symbolic dimensions); where it cannot trace the
            # Python or convert a module: with static shapes the ATen operators the module runs
            # (make_fx), then torch.onnx (data-dependent sizes and branches: a detection model's
            # score threshold and NMS); with symbolic dimensions torch.onnx.
            routes = {"fx": [("torch.fx", lambda: through("fx"))], "aten": [("ATen capture", lambda: through("aten"))]}
            routes["auto"] = routes["fx"] + ([] if axes else routes["aten"]) + [
                ("torch.onnx", lambda: _import_torch_onnx(model, examples, axes))]
            errors = []
            for name, route in routes[capture]:
                try:
                    return route(), outputs
                except Exception as error:  # noqa: BLE001 (any tracing or import failure)
                    if len(routes[capture]) == 1:
                        raise
                    errors.append(f"{name}: {error}")
            raise ValueError("the module exports through none of the routes: " + "; ".join(errors))
    finally:
        model.train(was_training)


@contextlib.contextmanager
def _naming_the_module(path, model, route):
    """An import error about the temporary file a module was exported to names the module and
    the route instead (the file is gone when the caller reads the message)."""
    try:
        yield
    except Exception as error:  # noqa: BLE001 (re-raised as it came, the file's name replaced)
        message = str(error)
        if path not in message:
            raise
        message = message.replace(path, f"{type(model).__name__} (through {route})")
        try:
            renamed = type(error)(message)
        except Exception:  # noqa: BLE001 (an exception type that takes other arguments)
            renamed = ValueError(message)
        raise renamed from None


def _import_file_or_text(model, keep_params_in_input, dims):
    is_path = isinstance(model, os.PathLike) or (
        isinstance(model, str) and "\n" not in model and (os.path.exists(model) or model.endswith(_MODEL_SUFFIXES)))
    if is_path and not os.path.exists(model):
        raise FileNotFoundError(errno.ENOENT, "no such model file", os.fspath(model))
    if is_path:
        path = os.fspath(model)
        if path.endswith(".onnx"):
            return _mlc.import_onnx(path, keep_params_in_input, dict(dims or {}))
        if path.endswith(".irpb"):
            return _mlc.load_ir(path)
        if path.endswith(".fxpb"):
            return _mlc.import_fx(path)
        if path.endswith(".py"):
            with open(path) as f:
                return _mlc.parse_script(f.read(), path)
        raise ValueError(f"{path}: unknown model format (expected .onnx, .irpb, .fxpb or .py)")
    if isinstance(model, str):
        return _mlc.parse_script(model, "<script>")
    raise TypeError(f"cannot compile a {type(model).__name__}: give a path (.onnx, .irpb, .fxpb, .py), "
                    "TVMScript text, an mlc.ir.IRModule or a torch.nn.Module")


def _dynamic_axes_by_index(examples, dynamic_axes):
    """dynamic_axes ({input index or "input<i>": {axis: name}}) keyed by input index."""
    names = [f"input{i}" for i in range(len(examples))]
    axes = {}
    for key, dims_of_input in dynamic_axes.items():
        index = key if isinstance(key, int) else names.index(key) if key in names else None
        if index is None or not 0 <= index < len(examples):
            raise ValueError(f"dynamic_axes: no input {key!r} (inputs are numbered 0..{len(examples) - 1})")
        axes[index] = {int(a): str(n) for a, n in dims_of_input.items()}
    return axes


def _import_torch_onnx(model, examples, axes):
    """A torch.nn.Module exported with torch.onnx at the newest opset both it and the importer
    know (the importer reads 11 to 17), its symbolic dimensions (`axes`) as dim_params, which
    become shape variables (docs/importers.md)."""
    import torch
    import torch.onnx._constants
    opset = min(17, getattr(torch.onnx._constants, "ONNX_MAX_OPSET", 14))
    names = [f"input{i}" for i in range(len(examples))]
    with tempfile.TemporaryDirectory(prefix="mlc_onnx_") as tmp:
        path = os.path.join(tmp, "model.onnx")
        # Not under no_grad: there some modules (nn.TransformerEncoderLayer) take fast paths
        # torch.onnx cannot export.
        torch.onnx.export(model, examples, path, opset_version=opset, input_names=names,
                          dynamic_axes={names[i]: a for i, a in axes.items()})
        with _naming_the_module(path, model, f"torch.onnx, opset {opset}"):
            return _mlc.import_onnx(path, False, {})


def compile(model, inputs=None, passes="default", target="native", tuning_db=None, params=None,  # noqa: A001
            keep_params_in_input=False, dims=None, sign_key=None, dynamic_axes=None, upper_bounds=None, quantize=None,
            capture="auto"):
    """Compiles a model and loads it.

    model: an ONNX file, a .irpb, a .fxpb, a TVMScript file or text, an mlc.ir.IRModule, or a
        torch.nn.Module (traced with torch.fx on `inputs`, its example inputs).
    dynamic_axes: for a torch.nn.Module, its symbolic dimensions: {input index: {axis: name}},
        e.g. {0: {0: "batch"}} or {0: {1: "seq"}}; the executable then serves every size there
        (traced with torch.fx, sizes and what is made from them kept symbolic; through
        torch.onnx when torch.fx cannot trace the module).
    passes: the graph pass pipeline (docs/passes.md); "default" fuses, lowers and schedules.
    target: "native", "x86-64-v3", "llvm -mcpu=znver4", ... (docs/targets.md); several,
        comma-separated ("x86-64-v3,x86-64-v4"), build one executable that runs the best of them
        this CPU can (`Module.target` says which).
    tuning_db: records from //tools:tune; their schedules replace the default ones they cover.
    params: name -> array, bound to main's parameters of those names (constants from then on).
    keep_params_in_input, dims: ONNX import options (docs/importers.md).
    sign_key: an Ed25519 private key (PEM) to sign the executable with.
    upper_bounds: shape variable -> the largest size it will take, e.g. {"batch": 64}: the memory
        plan then gives symbolic intermediates fixed places (larger calls still run).
    quantize: "q8" or "q4": the weights of matmuls and dense layers as int8 / int4 codes with
        per-group scales (llama.cpp's Q8_0 / Q4_0; docs/language_models.md), as --quantize does.
    capture: how a torch.nn.Module becomes a graph: "fx" traces its Python with torch.fx
        (modules and functions as written; symbolic dimensions), "aten" records the ATen
        operators it runs on `inputs` (make_fx; static shapes; any Python), "auto" (the default)
        torch.fx first, then ATen (or, with dynamic_axes, torch.onnx) where torch.fx fails.
    """
    module, outputs = _import(model, inputs, keep_params_in_input, dims, dynamic_axes, capture)
    key = os.fspath(sign_key) if sign_key else ""
    targets = _mlc.parse_targets(target)
    builds = [_mlc.build(_run(module, passes, t, tuning_db, params, quantize), "" if len(targets) > 1 else key,
                         dict(upper_bounds or {})) for t in targets]
    exe = builds[0] if len(targets) == 1 else _mlc.merge_executables(builds, key)
    return Module(_mlc.Executable(exe, "<compiled>"), outputs=outputs)


def tune(model, db, inputs=None, passes="default", target="native", trials=0, time_budget=0, seed=1,
         keep_params_in_input=False, dims=None, dynamic_axes=None, capture="auto"):
    """Tunes the model's kernels into the tuning database `db` (created, or added to: a record
    is replaced only by a faster one), as //tools:tune does (docs/tuning.md); then
    mlc.compile(model, tuning_db=db) uses the records. `model` and `inputs` as for compile.
    Returns one dict per task: task, workload, weight, trials, default_seconds, best_seconds,
    choice. Deterministic under `seed`; `trials` (0: 16 per task) and `time_budget` (seconds,
    0: none) bound the search."""
    module, _ = _import(model, inputs, keep_params_in_input, dims, dynamic_axes, capture)
    return _mlc.tune(module, os.fspath(db), target, passes, int(trials), float(time_budget), int(seed))
