/*! \file run_main.cc
 *  \brief //vm:run — runs a function of an executable on .npy inputs.
 *
 *    run --exe m.mlcx [--func main] --inputs x.npy,w.npy [--outputs out.npy] [--plugin lib.so]
 *        [--bench N [--warmup W]]
 *
 *  Outputs (a tuple result gives several) are written with --outputs, atomically, or printed.
 *  --bench runs the function W times to warm up, then N times, and prints the median and p90
 *  latency.
 */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "support/npy.h"
#include "vm/virtual_machine.h"

ABSL_FLAG(std::string, exe, "", "executable to run (*.mlcx)");
ABSL_FLAG(std::string, func, "main", "function to call");
ABSL_FLAG(std::string, inputs, "", "comma-separated .npy files, one per parameter");
ABSL_FLAG(std::string, outputs, "", "comma-separated .npy files for the results (default: print them)");
ABSL_FLAG(std::string, plugin, "", "comma-separated shared libraries of runtime functions to load");
ABSL_FLAG(int, bench, 0, "time this many runs and print median and p90 latency");
ABSL_FLAG(int, warmup, 10, "runs before timing (with --bench)");
ABSL_FLAG(bool, profile, false, "with --bench: time each kernel and runtime function and print the table");

namespace {

using mlc::vm::NDArray;
using mlc::vm::Value;

NDArray ToNDArray(const mlc::TensorData& t) {
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

int Fail(const std::string& message) {
  std::cerr << "run: " << message << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("Runs a function of an executable.\n  run --exe m.mlcx --inputs x.npy --outputs y.npy");
  absl::ParseCommandLine(argc, argv);
  if (absl::GetFlag(FLAGS_exe).empty()) {
    std::cerr << "run: --exe is required\n";
    return 2;
  }
  for (absl::string_view p : absl::StrSplit(absl::GetFlag(FLAGS_plugin), ',', absl::SkipEmpty())) {
    absl::Status s = mlc::vm::RuntimeRegistry::Global().LoadPlugin(std::string(p));
    if (!s.ok()) return Fail(std::string(s.message()));
  }
  absl::StatusOr<std::unique_ptr<mlc::vm::VirtualMachine>> vm = mlc::vm::VirtualMachine::LoadFile(absl::GetFlag(FLAGS_exe));
  if (!vm.ok()) return Fail(std::string(vm.status().message()));
  std::vector<Value> args;
  for (absl::string_view path : absl::StrSplit(absl::GetFlag(FLAGS_inputs), ',', absl::SkipEmpty())) {
    absl::StatusOr<mlc::TensorData> t = mlc::ReadNpy(std::string(path));
    if (!t.ok()) return Fail(std::string(t.status().message()));
    args.push_back(ToNDArray(*t));
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
    if (absl::GetFlag(FLAGS_profile)) {
      // Timed apart from the runs above: the clock reads around each call cost a little.
      (*vm)->EnableProfiling(true);
      for (int i = 0; i < runs; ++i) (void)(*vm)->Invoke(func, args);
      double total = 0;
      for (const auto& p : (*vm)->Profile()) total += p.seconds;
      std::printf("%-48s %8s %12s %7s\n", "kernel / runtime function", "calls", "us per run", "share");
      for (const auto& p : (*vm)->Profile()) {
        std::printf("%-48s %8lld %12.2f %6.1f%%\n", p.name.c_str(), static_cast<long long>(p.calls / runs), p.seconds / runs * 1e6,
                    100 * p.seconds / total);
      }
      (*vm)->EnableProfiling(false);
    }
  }

  std::vector<NDArray> outputs;
  Flatten(*result, &outputs);
  std::vector<std::string> out_paths = absl::StrSplit(absl::GetFlag(FLAGS_outputs), ',', absl::SkipEmpty());
  if (out_paths.empty()) {
    if (runs == 0) {
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
