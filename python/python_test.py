"""The Python package against PyTorch and NumPy (run by python_test.sh under /usr/bin/python3)."""
import os
import pickle
import sys
import tempfile
import threading
import time
import unittest

import numpy as np
import torch

import mlc

DIGITS = os.path.join(os.environ.get("TEST_SRCDIR", "."), "mlc", "testdata", "models", "digits_mlp")
DECODER = os.path.join(os.environ.get("TEST_SRCDIR", "."), "mlc", "testdata", "models", "decoder")
TMP = os.environ.get("TEST_TMPDIR") or tempfile.mkdtemp()

torch.manual_seed(0)


class SmallCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8 * 8 * 8, 10)

    def forward(self, x):
        return self.fc(torch.flatten(torch.relu(self.conv(x)), 1))


def close(got, want, rtol=1e-4):
    want = np.asarray(want)
    scale = max(float(np.abs(want).max()), 1.0)
    return np.allclose(got, want, rtol=rtol, atol=rtol * scale)


class Compile(unittest.TestCase):
    def test_onnx_model_matches_pytorch(self):
        model = SmallCnn().eval()
        x = torch.randn(2, 3, 8, 8)
        path = os.path.join(TMP, "cnn.onnx")
        torch.onnx.export(model, (x,), path, opset_version=13)
        m = mlc.compile(path)
        y = m(x.numpy())
        self.assertEqual(y.shape, (2, 10))
        self.assertTrue(close(y, model(x).detach().numpy()))

    def test_torch_module_traced_in_process(self):
        model = SmallCnn().eval()
        x = torch.randn(2, 3, 8, 8)
        m = mlc.compile(model, inputs=(x,))
        self.assertTrue(close(m(x), model(x).detach().numpy()))  # a torch tensor in, through DLPack

    def test_torch_module_with_a_dynamic_batch_serves_every_batch(self):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4)).eval()
        compiled = mlc.compile(model, inputs=(torch.rand(2, 16),), dynamic_axes={0: {0: "batch"}})
        for n in (1, 5, 33):
            x = torch.rand(n, 16)
            with torch.no_grad():
                want = model(x).numpy()
            got = compiled(x.numpy())
            self.assertEqual(got.shape, (n, 4))
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        with self.assertRaisesRegex(ValueError, "dimension 1 is 17, expected 16"):
            compiled(np.zeros((3, 17), np.float32))
        with self.assertRaisesRegex(ValueError, "dynamic_axes: no input 3"):
            mlc.compile(model, inputs=(torch.rand(2, 16),), dynamic_axes={3: {0: "batch"}})
        # An upper bound plans the intermediates; sizes beyond it still run.
        bounded = mlc.compile(model, inputs=(torch.rand(2, 16),), dynamic_axes={0: {0: "batch"}}, upper_bounds={"batch": 8})
        for n in (8, 1, 20):
            x = torch.rand(n, 16)
            with torch.no_grad():
                np.testing.assert_allclose(bounded(x.numpy()), model(x).numpy(), rtol=1e-5, atol=1e-5)
        with self.assertRaisesRegex(ValueError, "no graph function has a shape variable seq"):
            mlc.compile(model, inputs=(torch.rand(2, 16),), dynamic_axes={0: {0: "batch"}}, upper_bounds={"seq": 8})

    def test_tvmscript_file_with_bound_params(self):
        params = np.load(os.path.join(DIGITS, "params.npz"))
        m = mlc.compile(os.path.join(DIGITS, "digits_mlp.py"), params=dict(params))
        logits = m(np.load(os.path.join(DIGITS, "test_x.npy")))
        self.assertTrue(close(logits, np.load(os.path.join(DIGITS, "reference.npy"))))
        accuracy = (logits.argmax(1) == np.load(os.path.join(DIGITS, "test_y.npy"))).mean()
        self.assertAlmostEqual(accuracy, 351 / 360)

    def test_tvmscript_text(self):
        m = mlc.compile("""
@R.function
def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
    with R.dataflow():
        z = R.add(R.multiply(x, y), x)
        R.output(z)
    return z
""")
        x, y = np.arange(4, dtype=np.float32), np.full(4, 2, np.float32)
        np.testing.assert_array_equal(m(x, y), x * y + x)

    def test_several_targets_make_one_executable_that_runs_the_best_this_cpu_can(self):
        params = dict(np.load(os.path.join(DIGITS, "params.npz")))
        x = np.load(os.path.join(DIGITS, "test_x.npy"))
        m = mlc.compile(os.path.join(DIGITS, "digits_mlp.py"), params=params, target="x86-64,x86-64-v3")
        # A CPU with AVX2 and FMA runs the x86-64-v3 kernels; one without, the baseline ones.
        v3 = all(f in mlc.cpu_features() for f in ("avx2", "fma", "bmi2", "f16c"))
        self.assertEqual(m.target, "llvm -mcpu=x86-64-v3" if v3 else "llvm -mcpu=x86-64")
        self.assertTrue(close(m(x), np.load(os.path.join(DIGITS, "reference.npy"))))
        path = os.path.join(TMP, "two_targets.mlcx")
        m.save(path)
        self.assertEqual(mlc.load(path).target, m.target)
        with self.assertRaisesRegex(ValueError, "named twice"):
            mlc.compile(os.path.join(DIGITS, "digits_mlp.py"), params=params, target="x86-64-v3,x86-64-v3")

    def test_exp_is_exact_to_the_smallest_normal_float_and_zero_below(self):
        # Compiled exp keeps glibc's vector expf on its fast path by flushing results below the
        # smallest normal float to zero (codegen EmitExpF32): a causal mask's -inf gives 0, NaN stays NaN.
        m = mlc.compile('@R.function\ndef main(x: R.Tensor((32,), "float32")):\n    return R.exp(x)\n')
        x = np.linspace(-3, 3, 32).astype(np.float32)
        x[:14] = [-np.inf, -1e30, -200, -104, -100, -87.5, -87.2, -80, -1, 0, 1, 50, 88, np.nan]
        y = m(x)
        want = np.exp(x.astype(np.float64))
        want[want < np.finfo(np.float32).tiny] = 0
        self.assertTrue(np.isnan(y[13]))
        keep = ~np.isnan(x)
        np.testing.assert_allclose(y[keep], want[keep], rtol=2e-6, atol=0)


class ComparisonAndLogicalOperators(unittest.TestCase):
    def test_every_comparison_and_logical_operator_matches_numpy(self):
        ops = {"equal": np.equal, "not_equal": np.not_equal, "less": np.less, "less_equal": np.less_equal,
               "greater": np.greater, "greater_equal": np.greater_equal}
        logical = {"logical_and": np.logical_and, "logical_or": np.logical_or, "logical_xor": np.logical_xor}
        rng = np.random.default_rng(0)
        x = rng.integers(-2, 3, (3, 5)).astype(np.float32)  # small integers: equal values occur
        y = rng.integers(-2, 3, (5,)).astype(np.float32)    # broadcast along the rows
        for op, ref in ops.items():
            m = mlc.compile(f"""
@R.function
def main(x: R.Tensor((3, 5), "float32"), y: R.Tensor((5,), "float32")):
    with R.dataflow():
        z = R.{op}(x, y)
        R.output(z)
    return z
""")
            got = m(x, y)
            self.assertEqual(got.dtype, np.bool_, op)
            np.testing.assert_array_equal(got, ref(x, y), err_msg=op)
        a, b = x > 0, y < 1
        for op, ref in logical.items():
            m = mlc.compile(f"""
@R.function
def main(a: R.Tensor((3, 5), "bool"), b: R.Tensor((5,), "bool")):
    with R.dataflow():
        z = R.{op}(a, b)
        R.output(z)
    return z
""")
            np.testing.assert_array_equal(m(a, b), ref(a, b), err_msg=op)
        m = mlc.compile("""
@R.function
def main(a: R.Tensor((3, 5), "bool")):
    with R.dataflow():
        z = R.logical_not(a)
        R.output(z)
    return z
""")
        np.testing.assert_array_equal(m(a), np.logical_not(a))


class Runtime(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.model = SmallCnn().eval()
        cls.x = torch.randn(2, 3, 8, 8)
        cls.m = mlc.compile(cls.model, inputs=(cls.x,))

    def test_outputs_are_shared_with_torch_through_dlpack(self):
        y = self.m(self.x)
        t = torch.from_dlpack(y)
        self.assertEqual(t.data_ptr(), y.ctypes.data, "torch sees the VM's buffer, not a copy")
        self.assertIsNotNone(y.base, "the array is a view of the runtime's tensor")
        self.assertTrue(close(t.numpy(), self.model(self.x).detach().numpy()))

    def test_generate_continues_a_prompt_as_pytorch_does(self):
        sys.path.insert(0, DECODER)
        import decoder
        model = decoder.build(decoder.Config("llama", kv_heads=2))
        path = os.path.join(TMP, "decoder_kv.onnx")
        decoder.export_cached_onnx(model, path)
        m = mlc.compile(path)
        streamed = []
        ids = mlc.generate(m, [5, 6, 7], 12, on_token=streamed.append)
        self.assertEqual(ids, decoder.greedy(model, [5, 6, 7], 12))
        self.assertEqual(streamed, ids)
        self.assertGreater(m.last_generation["decode_tokens_per_second"], 0)
        sampled = m.generate(np.array([5, 6, 7]), 12, temperature=0.8, top_k=8, seed=3)
        self.assertEqual(sampled, m.generate([5, 6, 7], 12, temperature=0.8, top_k=8, seed=3))  # seeded
        relu = mlc.compile('@R.function\ndef main(x: R.Tensor((3,), "float32")):\n    return R.nn.relu(x)\n')
        with self.assertRaisesRegex(ValueError, r"main's parameter 0 \(x\) must be int64 \[1, seq\]"):
            relu.generate([1], 2)

    def test_torch_decoder_with_a_dynamic_sequence_compiles_from_the_module(self):
        # The module as written (torch.arange over its length, a triu mask, rotary embeddings)
        # through torch.fx with `seq` symbolic: logits at two lengths, and generation.
        sys.path.insert(0, DECODER)
        import decoder
        model = decoder.build(decoder.Config("llama", kv_heads=2))
        m = mlc.compile(model, inputs=(torch.zeros(1, 5, dtype=torch.int64),), dynamic_axes={0: {1: "seq"}})
        for seq in (3, 9):
            ids = torch.randint(0, 256, (1, seq))
            with torch.no_grad():
                want = model(ids).numpy()
            np.testing.assert_allclose(m(ids.numpy()), want, rtol=1e-4, atol=1e-4)
        self.assertEqual(mlc.generate(m, [5, 6, 7], 8), decoder.greedy(model, [5, 6, 7], 8))

    def test_quantized_decoder_generates_as_its_fake_quantized_pytorch_twin(self):
        sys.path.insert(0, DECODER)
        import decoder
        model = decoder.build(decoder.Config("llama", kv_heads=2))
        path = os.path.join(TMP, "decoder_kv_q.onnx")
        decoder.export_cached_onnx(model, path)
        for q, bits in (("q8", 8), ("q4", 4)):
            m = mlc.compile(path, quantize=q)
            twin = decoder.fake_quantize(decoder.build(decoder.Config("llama", kv_heads=2)), bits)
            self.assertEqual(mlc.generate(m, [5, 6, 7], 12), decoder.greedy(twin, [5, 6, 7], 12), q)
        with self.assertRaisesRegex(ValueError, "'q5' is not a weight format"):
            mlc.compile(path, quantize="q5")

    def test_capture_aten_where_torch_fx_cannot_trace(self):
        class RowLoop(torch.nn.Module):  # range() of a traced size: torch.fx cannot trace it
            def __init__(self):
                super().__init__()
                self.linear = torch.nn.Linear(8, 8)

            def forward(self, x):
                out = torch.zeros_like(x[0])
                for i in range(x.shape[0]):
                    out = out * 0.5 + self.linear(x[i])
                return torch.nn.functional.pad(out.unsqueeze(0), (1, 2), value=3.0)

        model, x = RowLoop().eval(), torch.randn(3, 8)
        want = model(x).detach().numpy()
        self.assertTrue(close(mlc.compile(model, inputs=(x,))(x), want))  # auto: torch.fx fails, ATen serves
        self.assertTrue(close(mlc.compile(model, inputs=(x,), capture="aten")(x), want))
        with self.assertRaisesRegex(TypeError, "Proxy"):
            mlc.compile(model, inputs=(x,), capture="fx")
        with self.assertRaisesRegex(ValueError, "capture must be"):
            mlc.compile(model, inputs=(x,), capture="jit")
        cnn = SmallCnn().eval()
        y = torch.randn(2, 3, 8, 8)
        self.assertTrue(close(mlc.compile(cnn, inputs=(y,), capture="aten")(y), cnn(y).detach().numpy()))

    def test_data_dependent_sizes_and_nested_results_go_through_torch_onnx(self):
        class Threshold(torch.nn.Module):  # a detector's shape: rows the data keep, results in a list of dicts
            def forward(self, x):
                rows = x[x[:, 0] > 0.5]
                return [{"rows": rows * 2, "total": rows.sum(0)}, x.mean()]

        model, x = Threshold(), torch.rand(16, 3)
        for capture, route in (("fx", "torch.fx"), ("aten", "ATen capture")):  # neither captures boolean indexing
            with self.assertRaisesRegex(ValueError, f"^Threshold \\(through {route}\\): node "):
                mlc.compile(model, inputs=x, capture=capture)
        m = mlc.compile(model, inputs=x)  # auto: torch.fx, then ATen, then torch.onnx
        counts = set()
        for seed in range(4):  # one executable, as many rows as each input keeps
            xi = torch.rand(16, 3, generator=torch.Generator().manual_seed(seed))
            got, want = m(xi), model(xi)
            self.assertIsInstance(got, list)
            self.assertEqual(sorted(got[0]), ["rows", "total"])
            self.assertEqual(got[0]["rows"].shape, tuple(want[0]["rows"].shape))
            for g, w in ((got[0]["rows"], want[0]["rows"]), (got[0]["total"], want[0]["total"]), (got[1], want[1])):
                self.assertTrue(close(g, w.numpy()))
            counts.add(len(got[0]["rows"]))
        self.assertGreater(len(counts), 1, "the inputs kept the same number of rows: nothing data-dependent was checked")
        again = pickle.loads(pickle.dumps(m))  # the nesting travels with the executable's bytes
        self.assertEqual(sorted(again(x)[0]), ["rows", "total"])

    def test_python_habits(self):
        self.assertRegex(mlc.__version__, r"^\d+\.\d+\.\d+$")
        with self.assertRaises(FileNotFoundError) as missing:
            mlc.compile(os.path.join(TMP, "nope.onnx"))
        self.assertEqual(missing.exception.filename, os.path.join(TMP, "nope.onnx"))
        model = torch.nn.Linear(3, 4).train()
        x = torch.randn(2, 3)
        m = mlc.compile(model, inputs=x)  # one tensor: one input
        self.assertTrue(close(m(x), model(x).detach().numpy()))
        self.assertTrue(model.training)  # left in the mode it was in
        trace = os.path.join(TMP, "linear.trace.json")
        profile = m.profile(x, runs=5, trace=trace)  # the per-kernel table, as vm/run --profile
        kernels = [r for r in profile.rows if r["kind"] == "kernel"]
        self.assertTrue(kernels and all(r["calls_per_run"] >= 1 and r["seconds_per_run"] > 0 for r in kernels), profile.rows)
        self.assertIn(kernels[0]["name"], str(profile))
        for r in kernels:  # chunks over all threads fit in the threads' time inside the calls
            self.assertTrue(0 <= r["uneven_seconds_per_run"] <= r["seconds_per_run"], r)
            self.assertTrue(0 <= r["chunk_seconds_per_run"] <= r["seconds_per_run"] * mlc.get_num_threads() * 1.01, r)
        self.assertGreater(profile.seconds_per_run, 0)
        with open(trace) as f:
            self.assertIn(kernels[0]["name"], f.read())
        passes = {p["name"]: p for p in mlc.transform.list_passes()}  # records, not Markdown
        self.assertIn("explain", [o["name"] for o in passes["default-schedule"]["options"]])
        self.assertIn("### `default-schedule`", mlc.transform.describe_passes())
        again = pickle.loads(pickle.dumps(m))  # pickled as the executable's bytes
        self.assertTrue(close(again(x), model(x).detach().numpy()))
        self.assertEqual(again.params, m.params)

    def test_set_num_threads_sets_the_threads_kernels_run_on(self):
        before = mlc.get_num_threads()
        want = self.m(self.x)
        try:
            for n in (1, 3):
                mlc.set_num_threads(n)
                self.assertEqual(mlc.get_num_threads(), n)
                np.testing.assert_allclose(self.m(self.x), want, rtol=1e-5, atol=1e-6)
            with self.assertRaises(ValueError) as e:
                mlc.set_num_threads(0)
            self.assertIn("at least 1, got 0", str(e.exception))
        finally:
            mlc.set_num_threads(before)

    def test_save_and_load(self):
        path = os.path.join(TMP, "cnn.mlcx")
        self.m.save(path)
        loaded = mlc.load(path)
        np.testing.assert_array_equal(loaded(self.x), self.m(self.x))
        self.assertIn("float32 (2, 3, 8, 8)", loaded.params[0])

    def test_inputs_by_name_and_as_a_dict(self):
        x = np.random.rand(2, 3, 8, 8).astype(np.float32)
        name = self.m.params[0].split(":")[0]
        want = self.m(x)
        self.assertTrue(close(self.m(**{name: x}), want))
        self.assertTrue(close(self.m.run({name: x}), want))
        self.assertTrue(close(self.m.run([x]), want))
        with self.assertRaises(ValueError) as e:
            self.m(nope=x)
        self.assertIn("no parameter 'nope'", str(e.exception))
        with self.assertRaises(ValueError) as e:
            self.m(x, **{name: x})
        self.assertIn("both by position and by name", str(e.exception))

    def test_a_wrong_input_names_the_parameter(self):
        with self.assertRaises(ValueError) as e:
            self.m(np.zeros((3, 3, 8, 8), np.float32))
        self.assertIn("expected float32 (2, 3, 8, 8), got float32 (3, 3, 8, 8)", str(e.exception))

    def test_a_damaged_executable_is_refused(self):
        path = os.path.join(TMP, "damaged.mlcx")
        self.m.save(path)
        data = bytearray(open(path, "rb").read())
        data[len(data) // 2] ^= 0xFF
        open(path, "wb").write(bytes(data))
        with self.assertRaises(ValueError) as e:
            mlc.load(path)
        self.assertIn("damaged.mlcx", str(e.exception))

    def test_the_gil_is_released_while_kernels_run(self):
        # A kernel of about a second; a Python thread counting meanwhile can only count if the
        # call released the GIL.
        m = mlc.compile("""
@I.ir_module
class M:
    @T.prim_func
    def spin(X: T.Buffer((8,), "float32"), Y: T.Buffer((8,), "float32")):
        for i, k in T.grid(8, 100000000):
            with T.block("Y"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    Y[vi] = T.float32(0)
                Y[vi] = Y[vi] * T.float32(0.5) + X[vi]

    @R.function
    def main(x: R.Tensor((8,), "float32")):
        cls = M
        with R.dataflow():
            y = R.call_tir(cls.spin, (x,), (8,), dtype="float32")
            R.output(y)
        return y
""", passes="legalize")
        count, stop = [0], threading.Event()

        def counter():
            while not stop.is_set():
                count[0] += 1
                time.sleep(0.001)

        thread = threading.Thread(target=counter)
        thread.start()
        time.sleep(0.05)
        before, start = count[0], time.time()
        y = m(np.ones(8, np.float32))
        during, seconds = count[0] - before, time.time() - start
        stop.set()
        thread.join()
        np.testing.assert_allclose(y, np.full(8, 2.0, np.float32), rtol=1e-6)
        self.assertGreater(seconds, 0.05, "the kernel ran long enough to tell")
        self.assertGreater(during, 10, f"the counter thread ran {during} times in {seconds:.2f} s of kernel")


class Tuning(unittest.TestCase):
    def test_tune_writes_records_and_a_build_with_them_is_right(self):
        text = """
@R.function
def main(x: R.Tensor((64, 96), "float32"), w: R.Tensor((128, 96), "float32")):
    with R.dataflow():
        y = R.nn.relu(R.nn.dense(x, w))
        R.output(y)
    return y
"""
        db = os.path.join(TMP, "records.pb")
        reports = mlc.tune(text, db, trials=4, seed=3)
        self.assertEqual(len(reports), 1, reports)
        self.assertGreater(reports[0]["trials"], 0)
        self.assertGreater(reports[0]["best_seconds"], 0)
        self.assertTrue(os.path.getsize(db) > 0)
        x = np.random.default_rng(1).standard_normal((64, 96)).astype(np.float32)
        w = np.random.default_rng(2).standard_normal((128, 96)).astype(np.float32)
        y = mlc.compile(text, tuning_db=db)(x, w)
        np.testing.assert_allclose(y, np.maximum(x @ w.T, 0), rtol=1e-4, atol=1e-4)


class IR(unittest.TestCase):
    def test_load_script_and_transform(self):
        mod = mlc.ir.parse(open(os.path.join(DIGITS, "digits_mlp.py")).read(), "digits_mlp.py")
        self.assertIn("R.nn.dense", mod.script())
        lowered = mlc.transform.run(mod, "fuse-ops,legalize,fuse-tir,remove-unused")
        self.assertIn("R.call_tir", lowered.script())
        self.assertIn("T.prim_func", lowered.script())
        path = os.path.join(TMP, "lowered.irpb")
        lowered.save(path)
        self.assertEqual(mlc.ir.load(path).script(), lowered.script())

    def test_errors_carry_the_stage_message(self):
        with self.assertRaises(ValueError) as e:
            mlc.ir.parse("@R.function\ndef main(x: R.Tensor((3,), \"float32\")):\n    return R.add(x, y)\n", "bad.py")
        self.assertIn("bad.py:3:21: undefined variable 'y'", str(e.exception))
        with self.assertRaises(ValueError) as e:
            mlc.transform.run(mlc.ir.parse("@R.function\ndef main(x: R.Tensor((3,), \"float32\")):\n    return x\n"), "no-such-pass")
        self.assertIn("no-such-pass", str(e.exception))
        with self.assertRaises(ValueError) as e:
            mlc.ir.load(os.path.join(TMP, "missing.irpb"))
        self.assertIn("missing.irpb", str(e.exception))


if __name__ == "__main__":
    unittest.main(verbosity=2)
