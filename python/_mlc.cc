/*! \file _mlc.cc
 *  \brief The native half of the Python package `mlc` (python/mlc/__init__.py is the other):
 *         the same C++ libraries as the stage binaries, in-process.
 *
 *  Every stage is one function here, taking and returning an IRModule handle, so Python
 *  composes them as the pipeline composes the binaries. Errors become Python exceptions
 *  carrying the stage's message (ValueError for bad input, RuntimeError otherwise); the GIL is
 *  released while passes, code generation and kernels run. Outputs are NumPy arrays over the
 *  VM's own storage (no copy), so `torch.from_dlpack(out)` shares it too.
 */
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codegen/build.h"
#include "frontend/onnx/onnx_importer.h"
#include "frontend/torch/fx_importer.h"
#include "frontend/tvmscript.h"
#include "ir/graph/printer.h"
#include "ir/graph/serialize.h"
#include "ir/graph/shape_bounds.h"
#include "ir/graph/verifier.h"
#include "ir/target/target.h"
#include "passes/bind_params.h"
#include "passes/pass.h"
#include "support/cpu_features.h"
#include "support/file_util.h"
#include "support/fma_peak.h"
#include "support/resource_limits.h"
#include "support/signature.h"
#include "tools/tune/tuner.h"
#include "vm/executable_format.h"
#include "vm/executable_variants.h"
#include "vm/generation.h"
#include "vm/profiler.h"
#include "vm/thread_pool.h"
#include "vm/virtual_machine.h"

namespace py = pybind11;

namespace mlc {
namespace python {
namespace {

/*! \brief Raises a failed status as a Python exception: ValueError for what the caller gave
 *  (bad input, unknown names, damaged files), RuntimeError for the rest. */
void Check(const absl::Status& s) {
  if (s.ok()) return;
  const std::string message(s.message());
  switch (s.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kNotFound:  // an unknown pass, function, file
    case absl::StatusCode::kDataLoss:  // a damaged or foreign file
      throw py::value_error(message);
    case absl::StatusCode::kUnimplemented: throw std::runtime_error(absl::StrCat("not supported: ", message));
    case absl::StatusCode::kResourceExhausted: throw std::runtime_error(absl::StrCat("resource limit: ", message));
    default: throw std::runtime_error(message);
  }
}

template <typename T>
T Value(absl::StatusOr<T> v) {
  Check(v.status());
  return *std::move(v);
}

// ---- Tensors: NumPy in (copied into VM storage), NumPy out (over VM storage).

DLDataType DLTypeOf(const py::dtype& dt) {
  const char kind = dt.kind();
  const uint8_t bits = static_cast<uint8_t>(dt.itemsize() * 8);
  switch (kind) {
    case 'f': return {kDLFloat, bits, 1};
    case 'i': return {kDLInt, bits, 1};
    case 'u': return {kDLUInt, bits, 1};
    case 'b': return {vm::kDLBoolCode, 8, 1};
    default:
      throw py::type_error(absl::StrCat("arrays of dtype ", std::string(py::str(static_cast<const py::handle&>(dt))),
                                        " are not supported"));
  }
}

py::dtype NumpyTypeOf(DLDataType t) {
  switch (t.code) {
    case kDLFloat: return py::dtype(absl::StrCat("float", t.bits));
    case kDLInt: return py::dtype(absl::StrCat("int", t.bits));
    case kDLUInt: return py::dtype(absl::StrCat("uint", t.bits));
    case vm::kDLBoolCode: return py::dtype("bool");
    default: throw std::runtime_error(absl::StrCat("no NumPy dtype for ", vm::DLDataTypeName(t)));
  }
}

vm::NDArray ToNDArray(const py::array& a) {
  py::array c = py::array::ensure(a, py::array::c_style);
  std::vector<int64_t> shape(c.shape(), c.shape() + c.ndim());
  absl::StatusOr<vm::NDArray> t = vm::NDArray::Allocate(shape, DLTypeOf(c.dtype()));
  Check(t.status());
  std::memcpy(t->data(), c.data(), t->NumBytes());
  return *std::move(t);
}

py::object ToPython(const vm::Value& v) {
  if (v.is_tuple()) {
    py::tuple out(v.tuple().size());
    for (size_t i = 0; i < v.tuple().size(); ++i) out[i] = ToPython(v.tuple()[i]);
    return std::move(out);
  }
  if (!v.is_tensor()) return py::none();
  // The array keeps the tensor (and so its storage) alive through its base object.
  auto* keep = new vm::NDArray(v.tensor());
  py::capsule base(keep, [](void* p) { delete static_cast<vm::NDArray*>(p); });
  std::vector<py::ssize_t> shape(keep->shape().begin(), keep->shape().end());
  return py::array(NumpyTypeOf(keep->dtype()), shape, keep->data(), base);
}

// ---- The IR.

struct Module {
  IRModule mod;
};

Module ParseScript(const std::string& text, const std::string& name) { return {Value(ParseTVMScript(text, name))}; }

Module LoadIR(const std::string& path) { return {Value(LoadModule(path))}; }

Module ImportOnnx(const std::string& path, bool keep_params_in_input, const std::map<std::string, int64_t>& dims) {
  onnx_import::OnnxImportOptions options;
  options.keep_params_in_input = keep_params_in_input;
  options.dims = dims;
  Module m{Value(onnx_import::ImportOnnxFile(path, options))};
  Check(VerifyModule(m.mod));
  return m;
}

Module ImportFx(const std::string& path) {
  Module m{Value(fx::ImportFxFile(path))};
  Check(VerifyModule(m.mod));
  return m;
}

Module RunPasses(const Module& in, const std::string& pipeline, const std::string& target, const std::string& tuning_db,
                 const std::map<std::string, py::array>& params, const std::string& quantize) {
  auto passes = Value(passes::ParsePipeline(Value(passes::WithWeightQuantization(pipeline, quantize))));
  if (!tuning_db.empty()) Check(passes::InsertTuningRecords(&passes, tuning_db));
  IRModule mod = in.mod;
  Check(RecordTargetFlag(&mod.mutable_attrs(), target));
  if (!params.empty()) {
    std::map<std::string, TensorData> bound;
    for (const auto& [name, array] : params) {
      py::array c = py::array::ensure(array, py::array::c_style);
      DataType dtype = Value(DataType::Parse(std::string(py::str(static_cast<const py::handle&>(c.dtype())))));
      bound.emplace(name, TensorData(dtype, std::vector<int64_t>(c.shape(), c.shape() + c.ndim()),
                                     std::string(static_cast<const char*>(c.data()), c.nbytes())));
    }
    mod = Value(passes::BindParams(mod, "main", bound));
  }
  py::gil_scoped_release release;
  return {Value(passes::RunPipeline(mod, passes))};
}

py::bytes BuildExecutable(const Module& m, const std::string& sign_key,
                          const std::map<std::string, int64_t>& upper_bounds) {
  std::string bytes;
  {
    py::gil_scoped_release release;
    IRModule mod = upper_bounds.empty() ? m.mod : Value(SetShapeUpperBounds(m.mod, upper_bounds));
    proto::Executable exe = Value(codegen::Build(mod));
    std::optional<SigningKey> key;
    if (!sign_key.empty()) key = Value(SigningKey::FromPemFile(sign_key));
    bytes = vm::SerializeExecutable(std::move(exe), key ? &*key : nullptr);
  }
  return py::bytes(bytes);
}

// One multi-target executable of executables built for different targets (their bytes).
py::bytes MergeExecutables(const std::vector<std::string>& executables, const std::string& sign_key) {
  std::string bytes;
  {
    py::gil_scoped_release release;
    std::vector<proto::Executable> variants;
    for (size_t i = 0; i < executables.size(); ++i) {
      variants.push_back(Value(vm::ParseExecutable(executables[i], absl::StrCat("<executable ", i, ">"))));
    }
    std::optional<SigningKey> key;
    if (!sign_key.empty()) key = Value(SigningKey::FromPemFile(sign_key));
    bytes = vm::SerializeExecutable(Value(vm::MergeVariants(std::move(variants))), key ? &*key : nullptr);
  }
  return py::bytes(bytes);
}

py::list Tune(const Module& m, const std::string& db_path, const std::string& target, const std::string& pipeline,
              int trials, double time_budget, uint64_t seed) {
  tune::TuneOptions options;
  options.trials = trials;
  options.time_budget = time_budget;
  options.seed = seed;
  absl::StatusOr<tune::TuneRun> run;
  {
    py::gil_scoped_release release;
    run = tune::TuneToDatabase(m.mod, target, pipeline, options, db_path);
  }
  Check(run.status());
  py::list out;
  for (const tune::TaskReport& r : run->reports) {
    py::dict d;
    d["task"] = r.name;
    d["workload"] = r.workload;
    d["weight"] = r.weight;
    d["trials"] = r.trials;
    d["default_seconds"] = r.default_seconds;
    d["best_seconds"] = r.best_seconds;
    d["choice"] = r.choice;
    d["lost_in_model"] = r.lost_in_model;  // beat the default alone, not in the model (model_check.h)
    out.append(d);
  }
  return out;
}

// ---- The runtime.

class Executable {
 public:
  Executable(const std::string& bytes, const std::string& source, const std::vector<std::string>& trusted_key_files)
      : bytes_(bytes) {
    std::vector<std::string> keys = Value(ReadPublicKeys(trusted_key_files));
    vm_ = Value(vm::VirtualMachine::LoadBytes(bytes_, source, vm::RuntimeRegistry::Global(), keys));
    vm_->ChooseThreadsByTiming(true);
  }

  py::object Call(const std::string& func, const std::vector<py::array>& args) {
    std::vector<vm::Value> inputs;
    for (const py::array& a : args) inputs.emplace_back(ToNDArray(a));
    absl::StatusOr<vm::Value> out;
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mu_);  // one call at a time: the VM's registers are its own
      out = vm_->Invoke(func, inputs);
    }
    return ToPython(Value(std::move(out)));
  }

  /*! \brief Generates tokens with a decoder (vm/generation.h); `on_token` (or None) is called
   *  with each id as it is chosen. Returns (ids, prefill seconds, decode seconds). */
  py::tuple Generate(const std::string& func, const std::vector<int64_t>& prompt, int max_new_tokens,
                     double temperature, int top_k, uint64_t seed, int64_t stop_id, py::object on_token) {
    vm::GenerationOptions options;
    options.max_new_tokens = max_new_tokens;
    options.temperature = temperature;
    options.top_k = top_k;
    options.seed = seed;
    options.stop_token = stop_id;
    if (!on_token.is_none()) {
      options.on_token = [&on_token](int64_t id) {
        py::gil_scoped_acquire hold;
        on_token(id);
      };
    }
    absl::StatusOr<vm::GenerationResult> r;
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mu_);
      absl::StatusOr<vm::Generator> generator = vm::Generator::Create(vm_.get(), func);
      r = generator.ok() ? generator->Generate(prompt, options)
                         : absl::StatusOr<vm::GenerationResult>(generator.status());
    }
    Check(r.status());
    return py::make_tuple(r->tokens, r->prefill_seconds, r->decode_seconds);
  }

  /*! \brief Runs `func` `runs` times timing every kernel and runtime function (after three
   *  untimed runs): (rows, formatted table, total seconds per run); rows are dicts, slowest
   *  first; `trace` (if not empty) gets the Chrome trace. */
  py::tuple Profile(const std::string& func, const std::vector<py::array>& args, int runs, const std::string& trace) {
    if (runs < 1) throw py::value_error("profile: runs must be at least 1");
    std::vector<vm::Value> inputs;
    for (const py::array& a : args) inputs.emplace_back(ToNDArray(a));
    vm::Profiler::Table table;
    std::string text, json;
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mu_);
      for (int i = 0; i < 3; ++i) Value(vm_->Invoke(func, inputs));
      vm_->EnableProfiling(true);
      absl::Status failed;
      for (int i = 0; i < runs && failed.ok(); ++i) failed = vm_->Invoke(func, inputs).status();
      vm_->EnableProfiling(false);
      Check(failed);
      table = vm_->profiler()->Aggregate(runs);
      const FmaPeak peak = MeasureFmaPeak(vm::ThreadPool::Global().num_threads());
      text = vm::FormatProfileTable(table, peak.gflops);
      if (!trace.empty()) json = vm_->profiler()->ChromeTraceJson();
    }
    if (!trace.empty()) Check(WriteFileAtomically(trace, json));
    py::list rows;
    for (const vm::Profiler::Row& r : table.rows) {
      py::dict row;
      row["name"] = r.name;
      row["kind"] = r.kind;
      row["operators"] = r.source_ops;
      row["calls_per_run"] = static_cast<double>(r.calls) / runs;
      row["seconds_per_run"] = r.seconds / runs;
      row["flops_per_call"] = r.flops;
      row["bytes_per_call"] = r.bytes;
      row["chunk_seconds_per_run"] = r.chunk_seconds / runs;
      row["uneven_seconds_per_run"] = r.uneven_seconds / runs;
      rows.append(row);
    }
    return py::make_tuple(rows, text, table.total_seconds / runs);
  }

  void Save(const std::string& path) const { Check(WriteFileAtomically(path, bytes_)); }
  /*! \brief The executable as written (what pickling keeps). */
  py::bytes Bytes() const { return py::bytes(bytes_); }
  std::vector<std::string> Functions() const { return vm_->FunctionNames(); }
  std::vector<std::string> Params(const std::string& func) const { return Value(vm_->DescribeParams(func)); }
  std::string Target() const { return vm_->executable().target(); }

 private:
  std::string bytes_;
  std::unique_ptr<vm::VirtualMachine> vm_;
  std::mutex mu_;
};

}  // namespace
}  // namespace python
}  // namespace mlc

PYBIND11_MODULE(_mlc, m) {
  using namespace mlc::python;  // NOLINT
  using mlc::python::Module;
  m.doc() = "Native half of the mlc package: the compiler's stages and the VM, in-process.";

  py::class_<Module>(m, "IRModule", "A module of graph-level functions and loop-level PrimFuncs.")
      .def(
          "script", [](const Module& self) { return mlc::PrintModule(self.mod); }, "The module as TVMScript text.")
      .def(
          "save", [](const Module& self, const std::string& path) { Check(mlc::SaveModule(self.mod, path)); },
          "Writes the module as a .irpb file (atomically).")
      .def(
          "functions",
          [](const Module& self) {
            std::vector<std::string> names;
            for (const auto& entry : self.mod.functions()) names.push_back(entry.first);
            return names;
          },
          "Names of the module's functions.")
      .def("__str__", [](const Module& self) { return mlc::PrintModule(self.mod); });

  m.def("parse_script", &ParseScript, py::arg("text"), py::arg("name") = "<script>");
  m.def("load_ir", &mlc::python::LoadIR, py::arg("path"));
  m.def("import_onnx", &ImportOnnx, py::arg("path"), py::arg("keep_params_in_input") = false,
        py::arg("dims") = std::map<std::string, int64_t>{});
  m.def("import_fx", &ImportFx, py::arg("path"));
  m.def("run_passes", &RunPasses, py::arg("module"), py::arg("pipeline"), py::arg("target") = "native",
        py::arg("tuning_db") = "", py::arg("params") = std::map<std::string, py::array>{}, py::arg("quantize") = "");
  m.def("build", &BuildExecutable, py::arg("module"), py::arg("sign_key") = "",
        py::arg("upper_bounds") = std::map<std::string, int64_t>());
  m.def("merge_executables", &MergeExecutables, py::arg("executables"), py::arg("sign_key") = "");
  m.def("parse_targets", [](const std::string& text) {
    std::vector<std::string> out;
    for (const mlc::Target& t : Value(mlc::ParseTargetList(text))) out.push_back(t.str());
    return out;
  });
  m.def("tune", &Tune, py::arg("module"), py::arg("db"), py::arg("target") = "native", py::arg("passes") = "default",
        py::arg("trials") = 0, py::arg("time_budget") = 0.0, py::arg("seed") = 1);
  m.def("list_passes", [] {
    // One record per registered pass: name, description and options (name, type, default, help).
    const mlc::passes::PassRegistry& registry = mlc::passes::PassRegistry::Global();
    py::list out;
    for (const std::string& name : registry.Names()) {
      std::unique_ptr<mlc::passes::Pass> pass = Value(registry.Create(name));
      py::list options;
      for (const mlc::passes::PassOption& o : pass->options()) {
        py::dict d;
        d["name"] = o.name;
        d["type"] = o.type;
        d["default"] = o.default_value;
        d["help"] = o.help;
        options.append(d);
      }
      py::dict record;
      record["name"] = name;
      record["description"] = pass->description();
      record["options"] = options;
      out.append(record);
    }
    return out;
  });
  m.def(
      "describe_passes", [] { return mlc::passes::PassRegistry::Global().Describe(); },
      "Markdown reference of every pass, option and named pipeline (docs/passes_reference.md).");
  m.def(
      "set_limits",
      [](const std::string& spec) {
        mlc::ResourceLimits limits = mlc::GetResourceLimits();
        Check(mlc::ParseResourceLimits(spec, &limits));
        mlc::SetResourceLimits(limits);
      },
      py::arg("spec"), "Resource limits as --limits takes them (docs/limits.md).");
  m.def("cpu_features", [] { return mlc::HostCpuFeatures(); });
  m.def(
      "set_num_threads",
      [](int n) {
        if (n < 1)
          throw py::value_error("set_num_threads: the thread count must be at least 1, got " + std::to_string(n));
        py::gil_scoped_release release;  // the old pool's workers are joined
        mlc::vm::ThreadPool::SetGlobalThreads(n);
      },
      py::arg("n"),
      "Threads for the kernels' parallel loops from now on (MLC_NUM_THREADS sets the first count); call it between "
      "runs.");
  m.def(
      "get_num_threads", [] { return mlc::vm::ThreadPool::Global().num_threads(); },
      "Threads the kernels' parallel loops run on.");

  py::class_<Executable>(m, "Executable", "A loaded executable: the VM over its kernels.")
      .def(py::init<const std::string&, const std::string&, const std::vector<std::string>&>(), py::arg("data"),
           py::arg("source") = "<bytes>", py::arg("trusted_keys") = std::vector<std::string>{})
      .def("call", &Executable::Call, py::arg("func"), py::arg("args"))
      .def("generate", &Executable::Generate, py::arg("func"), py::arg("prompt"), py::arg("max_new_tokens"),
           py::arg("temperature"), py::arg("top_k"), py::arg("seed"), py::arg("stop_id"), py::arg("on_token"))
      .def("save", &Executable::Save, py::arg("path"))
      .def("bytes", &Executable::Bytes)
      .def("profile", &Executable::Profile, py::arg("func"), py::arg("args"), py::arg("runs"), py::arg("trace"))
      .def("functions", &Executable::Functions)
      .def("params", &Executable::Params, py::arg("func") = "main")
      .def_property_readonly("target", &Executable::Target);
}
