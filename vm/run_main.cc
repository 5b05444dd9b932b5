/*! \file run_main.cc
 *  \brief //vm:run — runs a function of an executable on .npy inputs.
 *
 *    run --exe m.mlcx [--func main] --inputs x.npy,w.npy [--outputs out.npy] [--plugin lib.so]
 *        [--trusted_keys builder.pub,...]
 *        [--bench N [--warmup W]] [--profile] [--profile_json trace.json]
 *
 *  Outputs (a tuple result gives several) are written with --outputs, atomically, or printed.
 *  --bench runs the function W times to warm up, then N times, and prints the median and p90
 *  latency. --profile then runs it again timing every kernel, runtime function and parallel
 *  chunk and prints a table (vm/profiler.h) and the memory held; --profile_json writes those
 *  events as a Chrome trace.
 */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "support/cross_core.h"
#include "support/file_util.h"
#include "support/fma_peak.h"
#include "support/npy.h"
#include "support/resource_limit_flag.h"
#include "support/resource_limits.h"
#include "support/signature.h"
#include "vm/thread_pool.h"
#include "vm/virtual_machine.h"

ABSL_FLAG(std::string, exe, "", "executable to run (*.mlcx)");
ABSL_FLAG(std::string, func, "main", "function to call");
ABSL_FLAG(std::string, inputs, "", "comma-separated .npy files, one per parameter");
ABSL_FLAG(std::string, outputs, "", "comma-separated .npy files for the results (default: print them)");
ABSL_FLAG(std::string, plugin, "", "comma-separated shared libraries of runtime functions to load");
ABSL_FLAG(std::string, trusted_keys, "",
          "comma-separated Ed25519 public keys (PEM); when given, only an executable signed by one of them is loaded");
ABSL_FLAG(int, bench, 0, "time this many runs and print median and p90 latency");
ABSL_FLAG(int, warmup, 10, "runs before timing (with --bench)");
ABSL_FLAG(bool, choose_threads, true,
          "time the function on the thread pool and on one thread and run it the faster way "
          "(vm/thread_choice.h); false: always the pool (MLC_NUM_THREADS threads)");
ABSL_FLAG(bool, profile, false,
          "after warm-up, run the function (--bench times, else 20) timing each kernel, runtime function and parallel "
          "chunk; print the table and the memory held");
ABSL_FLAG(std::string, profile_json, "", "write the profiled runs as a Chrome trace (Perfetto, chrome://tracing) here");

namespace {

using mlc::vm::NDArray;
using mlc::vm::Value;

absl::StatusOr<NDArray> ToNDArray(const mlc::TensorData& t) {
  DLDataType dt;
  dt.code = static_cast<uint8_t>(t.dtype().code());
  dt.bits = static_cast<uint8_t>(t.dtype().bits());
  dt.lanes = 1;
  return NDArray::FromBytes(t.shape(), dt, t.bytes());
}

mlc::TensorData ToTensorData(const NDArray& a) {
  mlc::DataType dtype(static_cast<mlc::DataType::Code>(a.dtype().code), a.dtype().bits);
  return mlc::TensorData(dtype, a.shape(), a.Bytes());
}

void Flatten(const Value& v, std::vector<NDArray>* out) {
  if (v.is_tensor()) out->push_back(v.tensor());
  if (v.is_tuple()) {
    for (const Value& f : v.tuple()) Flatten(f, out);
  }
}

std::string Preview(const NDArray& a) {
  std::string out = absl::StrCat(mlc::vm::DescribeTensor(a.dtype(), a.shape()), " [");
  int64_t n = std::min<int64_t>(a.NumElements(), 16);
  for (int64_t i = 0; i < n; ++i) {
    if (i) out += ", ";
    if (a.dtype().code == kDLFloat && a.dtype().bits == 32) {
      absl::StrAppend(&out, static_cast<const float*>(a.data())[i]);
    } else if (a.dtype().code == kDLFloat && a.dtype().bits == 64) {
      absl::StrAppend(&out, static_cast<const double*>(a.data())[i]);
    } else if (a.dtype().code == kDLInt && a.dtype().bits == 64) {
      absl::StrAppend(&out, static_cast<const int64_t*>(a.data())[i]);
    } else if (a.dtype().code == kDLInt && a.dtype().bits == 32) {
      absl::StrAppend(&out, static_cast<const int32_t*>(a.data())[i]);
    } else {
      out += "?";
    }
  }
  if (a.NumElements() > n) out += ", ...";
  return out + "]";
}

constexpr int kDefaultProfileRuns = 20;

std::string Megabytes(int64_t bytes) { return absl::StrFormat("%.2f MB", bytes / 1e6); }

/*! \brief Profiled runs after the timed ones (the clock reads cost a little), then the table,
 *         the memory held, and the trace. The FMA peak is measured here, on as many threads as
 *         the pool runs, so "% peak" is of this machine now. */
absl::Status Profile(mlc::vm::VirtualMachine& vm, const std::string& func, const std::vector<Value>& args, int runs,
                     const std::string& json_path) {
  // Past the thread choice's first probe (vm/thread_choice.h): the profile shows the chosen way.
  for (int i = 0; i < 3 + 2 * mlc::vm::ThreadChoice::kProbeRunsPerSide; ++i) (void)vm.Invoke(func, args);
  vm.EnableProfiling(true);
  for (int i = 0; i < runs; ++i) {
    absl::StatusOr<Value> r = vm.Invoke(func, args);
    if (!r.ok()) {
      vm.EnableProfiling(false);
      return r.status();
    }
  }
  vm.EnableProfiling(false);
  const int threads = mlc::vm::ThreadPool::Global().num_threads();
  mlc::FmaPeak peak = mlc::MeasureFmaPeak(threads);
  std::printf("profile of %s: %d runs, %d thread%s, FMA peak %.1f GFLOP/s (%s), kernels for '%s'\n", func.c_str(), runs,
              threads, threads > 1 ? "s" : "", peak.gflops, peak.isa.c_str(), vm.executable().target().c_str());
  // Two-thread times depend on how far apart the two CPUs are (support/cross_core.h).
  if (threads > 1) std::printf("%s\n", mlc::MeasureCrossCoreLink().Describe().c_str());
  if (const mlc::vm::ThreadChoice* choice = vm.thread_choice(func); choice != nullptr && !choice->probing()) {
    std::printf("thread choice: fastest run %.1f us on the pool, %.1f us on one thread: %s\n",
                choice->pool_seconds() * 1e6, choice->serial_seconds() * 1e6,
                choice->serial_chosen() ? "runs on one thread (--choose_threads=false for the pool)" : "the pool");
  }
  std::fputs(mlc::vm::FormatProfileTable(vm.profiler()->Aggregate(runs), peak.gflops).c_str(), stdout);
  mlc::vm::VirtualMachine::MemoryStats m = vm.Memory();
  std::printf(
      "memory: tensors %s at peak (intermediates and results; pool holds %s), constants %s, kernel workspace %s\n",
      Megabytes(m.tensors_peak).c_str(), Megabytes(m.tensors_held).c_str(), Megabytes(m.constants).c_str(),
      Megabytes(m.workspace_held).c_str());
  if (!json_path.empty()) {
    if (absl::Status s = mlc::WriteFileAtomically(json_path, vm.profiler()->ChromeTraceJson()); !s.ok()) return s;
    std::printf("trace written to %s\n", json_path.c_str());
  }
  return absl::OkStatus();
}

int Fail(const std::string& message) {
  std::cerr << "run: " << message << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("Runs a function of an executable.\n  run --exe m.mlcx --inputs x.npy --outputs y.npy");
  absl::ParseCommandLine(argc, argv);
  mlc::EnterUserDirectory();  // relative paths are the user's under ./bazelw run
  if (absl::Status s = mlc::ApplyResourceLimitFlag(); !s.ok()) {
    std::cerr << "run: " << s.message() << "\n";
    return 2;
  }
  if (absl::GetFlag(FLAGS_exe).empty()) {
    std::cerr << "run: --exe is required\n";
    return 2;
  }
  for (absl::string_view p : absl::StrSplit(absl::GetFlag(FLAGS_plugin), ',', absl::SkipEmpty())) {
    absl::Status s = mlc::vm::RuntimeRegistry::Global().LoadPlugin(std::string(p));
    if (!s.ok()) return Fail(std::string(s.message()));
  }
  std::vector<std::string> key_paths = absl::StrSplit(absl::GetFlag(FLAGS_trusted_keys), ',', absl::SkipEmpty());
  absl::StatusOr<std::vector<std::string>> trusted = mlc::ReadPublicKeys(key_paths);
  if (!trusted.ok()) return Fail(std::string(trusted.status().message()));
  const auto load_start = std::chrono::steady_clock::now();
  absl::StatusOr<std::unique_ptr<mlc::vm::VirtualMachine>> vm =
      mlc::vm::VirtualMachine::LoadFile(absl::GetFlag(FLAGS_exe), mlc::vm::RuntimeRegistry::Global(), *trusted);
  if (!vm.ok()) return Fail(std::string(vm.status().message()));
  (*vm)->ChooseThreadsByTiming(absl::GetFlag(FLAGS_choose_threads));
  const double load_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count();
  const int64_t resident_after_load = mlc::ResidentBytes();
  std::vector<Value> args;
  for (absl::string_view path : absl::StrSplit(absl::GetFlag(FLAGS_inputs), ',', absl::SkipEmpty())) {
    absl::StatusOr<mlc::TensorData> t = mlc::ReadNpy(std::string(path));
    if (!t.ok()) return Fail(std::string(t.status().message()));
    absl::StatusOr<NDArray> a = ToNDArray(*t);
    if (!a.ok()) return Fail(absl::StrCat(path, ": ", a.status().message()));
    args.push_back(*std::move(a));
  }
  const std::string func = absl::GetFlag(FLAGS_func);
  absl::StatusOr<Value> result = (*vm)->Invoke(func, args);
  if (!result.ok()) return Fail(std::string(result.status().message()));

  int runs = absl::GetFlag(FLAGS_bench);
  if (runs > 0) {
    for (int i = 0; i < absl::GetFlag(FLAGS_warmup); ++i) (void)(*vm)->Invoke(func, args);
    std::vector<double> us;
    for (int i = 0; i < runs; ++i) {
      auto start = std::chrono::steady_clock::now();
      absl::StatusOr<Value> r = (*vm)->Invoke(func, args);
      auto end = std::chrono::steady_clock::now();
      if (!r.ok()) return Fail(std::string(r.status().message()));
      us.push_back(std::chrono::duration<double, std::micro>(end - start).count());
    }
    std::sort(us.begin(), us.end());
    double median = us[us.size() / 2];
    double p90 = us[std::min(us.size() - 1, static_cast<size_t>(us.size() * 0.9))];
    std::printf("bench %s: %d runs, median %.2f us, p90 %.2f us\n", func.c_str(), runs, median, p90);
    const int64_t file_bytes = static_cast<int64_t>(std::filesystem::file_size(absl::GetFlag(FLAGS_exe)));
    std::printf("load: %.3f s for %s (%.2f GB/s); resident after loading %s, constants %s\n", load_seconds,
                Megabytes(file_bytes).c_str(), file_bytes / load_seconds / 1e9, Megabytes(resident_after_load).c_str(),
                Megabytes((*vm)->Memory().constants).c_str());
  }
  const std::string json_path = absl::GetFlag(FLAGS_profile_json);
  const bool profile = absl::GetFlag(FLAGS_profile) || !json_path.empty();
  if (profile) {
    absl::Status s = Profile(**vm, func, args, runs > 0 ? runs : kDefaultProfileRuns, json_path);
    if (!s.ok()) return Fail(std::string(s.message()));
  }

  std::vector<NDArray> outputs;
  Flatten(*result, &outputs);
  std::vector<std::string> out_paths = absl::StrSplit(absl::GetFlag(FLAGS_outputs), ',', absl::SkipEmpty());
  if (out_paths.empty()) {
    if (runs == 0 && !profile) {
      for (const NDArray& a : outputs) std::cout << Preview(a) << "\n";
    }
    return 0;
  }
  if (out_paths.size() != outputs.size()) {
    return Fail(absl::StrCat(func, " returned ", outputs.size(), " tensors, --outputs names ", out_paths.size()));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    absl::Status s = mlc::WriteNpy(out_paths[i], ToTensorData(outputs[i]));
    if (!s.ok()) return Fail(std::string(s.message()));
  }
  return 0;
}
