/*! \file schedule_bench.cc
 *  \brief Scheduled kernels against the unscheduled ones and OpenBLAS SGEMM, as % of the FMA
 *         peak measured in the same run.
 *
 *    ./bazelw run //tools:bench_schedules -- [--threads N] [--runs N] [--unscheduled]
 *
 *  Each case is a trace `testdata/bench/<case>.trace.py` with two directives:
 *    # MODULE: <file>       the module it schedules (one PrimFunc, inputs then the output)
 *    # REFERENCE: matmul | dense    C = A @ B, or Y = X @ W^T: the SGEMM it is compared with
 *  Results are checked against SGEMM (|diff| <= 1e-3 * (1 + |want|)) before anything is timed.
 *  Prints a Markdown table: median time, GFLOP/s, % of peak, and OpenBLAS / ours.
 */
#include <cblas.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "frontend/tvmscript.h"
#include "ir/tir/tir_util.h"
#include "passes/schedule/schedule.h"
#include "passes/schedule/trace_parser.h"
#include "support/case_files.h"
#include "support/file_util.h"
#include "support/fma_peak.h"
#include "tools/testing/kernel_main.h"
#include "vm/ndarray.h"

extern "C" void openblas_set_num_threads(int);

namespace mlc {
namespace {

constexpr char kDir[] = "testdata/bench";

struct Options {
  int threads = 1;
  int runs = 10;
  bool unscheduled = false;
  std::string only;
};

/*! \brief Median seconds of each function. The functions take turns in blocks of consecutive
 *  calls (five blocks each), so a slow spell of the shared, noisy machine hits all of them alike,
 *  while within a block each runs in its steady state, as it would in a model: with several
 *  threads a pool's workers spin between back-to-back calls and would steal the core of the
 *  other library's workers if calls were interleaved one by one. Each block starts after a
 *  pause (idle workers go to sleep) and one untimed call. */
std::vector<double> MedianSeconds(int runs, const std::vector<std::function<void()>>& fns) {
  constexpr int kBlocks = 5;
  std::vector<std::vector<double>> t(fns.size());
  for (int block = 0; block < kBlocks; ++block) {
    for (size_t i = 0; i < fns.size(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      fns[i]();
      for (int r = block; r < runs; r += kBlocks) {
        auto start = std::chrono::steady_clock::now();
        fns[i]();
        t[i].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      }
    }
  }
  std::vector<double> out;
  for (std::vector<double>& v : t) {
    std::sort(v.begin(), v.end());
    out.push_back(v.empty() ? 0 : v[v.size() / 2]);
  }
  return out;
}

vm::NDArray RandomMatrix(int64_t rows, int64_t cols, std::mt19937* rng) {
  vm::NDArray a = vm::NDArray::Empty({rows, cols}, DLDataType{kDLFloat, 32, 1});
  std::uniform_real_distribution<float> dist(-1, 1);
  float* p = static_cast<float*>(a.data());
  for (int64_t i = 0; i < rows * cols; ++i) p[i] = dist(*rng);
  return a;
}

struct Gemm {
  int64_t m, n, k;
  bool b_transposed;  // B given as (n, k)
};

absl::StatusOr<Gemm> GemmOf(const tir::PrimFunc& f, const std::string& reference) {
  if (f->params.size() != 3) return absl::InvalidArgumentError("the benchmarked function must take (A, B, C)");
  auto dim = [&](int p, int d) { return *tir::AsConstInt(f->params[p]->shape[d]); };
  if (reference == "matmul") return Gemm{dim(0, 0), dim(1, 1), dim(0, 1), false};
  if (reference == "dense") return Gemm{dim(0, 0), dim(1, 0), dim(0, 1), true};
  return absl::InvalidArgumentError(absl::StrCat("unknown reference '", reference, "' (matmul or dense)"));
}

absl::Status RunCase(const std::string& name, const Options& opt, double peak_gflops) {
  std::string trace_path = absl::StrCat(kDir, "/", name, ".trace.py");
  absl::StatusOr<std::string> trace_text = ReadFile(trace_path);
  if (!trace_text.ok()) return trace_text.status();
  std::string module_path = absl::StrCat(kDir, "/", CaseDirective(*trace_text, "MODULE"));
  absl::StatusOr<std::string> module_text = ReadFile(module_path);
  if (!module_text.ok()) return module_text.status();
  absl::StatusOr<IRModule> mod = ParseTVMScript(*module_text, module_path);
  if (!mod.ok()) return mod.status();
  absl::StatusOr<tir::Trace> trace = script::ParseTrace(*trace_text, trace_path);
  if (!trace.ok()) return trace.status();
  tir::Schedule sch(*mod);
  if (absl::Status s = tir::ApplyTrace(*trace, &sch); !s.ok()) return s;
  if (mod->functions().size() != 1)
    return absl::InvalidArgumentError(absl::StrCat(module_path, ": one PrimFunc expected"));
  std::string func = mod->functions().begin()->first;
  absl::StatusOr<Gemm> gemm = GemmOf(mod->LookupPrimFunc(func), CaseDirective(*trace_text, "REFERENCE"));
  if (!gemm.ok()) return gemm.status();

  std::mt19937 rng(1);
  vm::NDArray a = RandomMatrix(gemm->m, gemm->k, &rng);
  vm::NDArray b = gemm->b_transposed ? RandomMatrix(gemm->n, gemm->k, &rng) : RandomMatrix(gemm->k, gemm->n, &rng);
  vm::NDArray c = vm::NDArray::Empty({gemm->m, gemm->n}, DLDataType{kDLFloat, 32, 1});
  auto sgemm = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, gemm->b_transposed ? CblasTrans : CblasNoTrans, gemm->m, gemm->n, gemm->k,
                1.0f, static_cast<const float*>(a.data()), gemm->k, static_cast<const float*>(b.data()),
                gemm->b_transposed ? gemm->k : gemm->n, 0.0f, static_cast<float*>(c.data()), gemm->n);
  };
  sgemm();
  std::vector<std::string> kernels;
  std::vector<std::unique_ptr<vm::VirtualMachine>> machines;
  std::vector<std::function<void()>> fns;
  std::vector<vm::Value> args = {a, b};
  std::vector<std::pair<std::string, IRModule>> variants = {{"scheduled", sch.mod()}};
  if (opt.unscheduled) variants.insert(variants.begin(), {"unscheduled", *mod});
  for (const auto& [kernel, m] : variants) {
    absl::StatusOr<IRModule> with_main = testing_util::WithMainCalling(m.LookupPrimFunc(func), func);
    if (!with_main.ok()) return with_main.status();
    absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> machine = testing_util::Compile(*with_main);
    if (!machine.ok()) return machine.status();
    absl::StatusOr<vm::Value> out = (*machine)->Invoke("main", args);
    if (!out.ok()) return out.status();
    const float* got = static_cast<const float*>(out->tensor().data());
    const float* want = static_cast<const float*>(c.data());
    for (int64_t i = 0; i < gemm->m * gemm->n; ++i) {
      if (std::abs(got[i] - want[i]) > 1e-3 * (1 + std::abs(want[i]))) {
        return absl::InternalError(
            absl::StrCat(name, " (", kernel, "): element ", i, " is ", got[i], ", SGEMM gives ", want[i]));
      }
    }
    vm::VirtualMachine* vm = machine->get();
    machines.push_back(std::move(*machine));
    kernels.push_back(kernel);
    fns.push_back([vm, &args] { (void)vm->Invoke("main", args); });
  }
  kernels.push_back("OpenBLAS SGEMM");
  fns.push_back(sgemm);
  // The unscheduled kernel is 10-100x slower: time it in fewer rounds of its own.
  std::vector<double> seconds;
  if (opt.unscheduled) {
    seconds = MedianSeconds(std::max(1, opt.runs / 10), {fns[0]});
    fns.erase(fns.begin());
  }
  for (double s : MedianSeconds(opt.runs, fns)) seconds.push_back(s);
  double flops = 2.0 * gemm->m * gemm->n * gemm->k;
  double blas = seconds.back();
  for (size_t i = 0; i < kernels.size(); ++i) {
    double gflops = flops / seconds[i] / 1e9;
    std::printf("| %s (%lldx%lldx%lld) | %d | %s | %.3f | %.1f | %.0f%% | %.3gx |\n", name.c_str(),
                static_cast<long long>(gemm->m), static_cast<long long>(gemm->n), static_cast<long long>(gemm->k),
                opt.threads, kernels[i].c_str(), seconds[i] * 1e3, gflops, 100 * gflops / peak_gflops,
                blas / seconds[i]);
  }
  return absl::OkStatus();
}

int Main(int argc, char** argv) {
  // OpenBLAS's idle worker threads spin for a while after each call, on the core our next
  // kernel's worker needs; with a minimal timeout they sleep at once. OpenBLAS reads the
  // variable when it is loaded, so the process restarts itself with it set.
  if (getenv("OPENBLAS_THREAD_TIMEOUT") == nullptr) {
    setenv("OPENBLAS_THREAD_TIMEOUT", "4", 1);
    execv("/proc/self/exe", argv);
  }
  Options opt;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (arg == "--threads") {
      opt.threads = std::atoi(value().c_str());
    } else if (arg == "--runs") {
      opt.runs = std::atoi(value().c_str());
    } else if (arg == "--unscheduled") {
      opt.unscheduled = true;
    } else if (arg == "--case") {
      opt.only = value();
    } else {
      std::fprintf(
          stderr,
          "usage: bench_schedules [--threads N] [--runs N] [--unscheduled] [--case NAME]\nunknown argument: %s\n",
          arg.c_str());
      return 2;
    }
  }
  if (opt.threads < 1 || opt.runs < 1) {
    std::fprintf(stderr, "bench_schedules: --threads and --runs must be positive\n");
    return 2;
  }
  // Before the VM's pool starts: it reads MLC_NUM_THREADS once.
  setenv("MLC_NUM_THREADS", std::to_string(opt.threads).c_str(), 1);
  openblas_set_num_threads(opt.threads);
  FmaPeak peak = MeasureFmaPeak(opt.threads);
  std::printf("FMA peak (%s, %d thread%s): %.1f GFLOP/s\n\n", peak.isa.c_str(), opt.threads, opt.threads > 1 ? "s" : "",
              peak.gflops);
  std::printf(
      "| case | threads | kernel | median ms | GFLOP/s | %% of peak | OpenBLAS / this "
      "|\n|---|---|---|---|---|---|---|\n");
  std::vector<std::string> cases = CaseNames(kDir, ".trace.py");
  if (cases.empty()) {
    std::fprintf(stderr, "bench_schedules: no cases in %s (run it with bazel run)\n", kDir);
    return 1;
  }
  for (const std::string& name : cases) {
    if (!opt.only.empty() && name != opt.only) continue;
    if (absl::Status s = RunCase(name, opt, peak.gflops); !s.ok()) {
      std::fprintf(stderr, "bench_schedules: %s: %s\n", name.c_str(), std::string(s.message()).c_str());
      return 1;
    }
  }
  return 0;
}

}  // namespace
}  // namespace mlc

int main(int argc, char** argv) { return mlc::Main(argc, argv); }
