/*! \file compile_bench.cc
 *  \brief The compile-time table (docs/performance.md): per model, the pipeline's stage times
 *         (measured by bench_compile.sh, passed in), our executable's load time and resident
 *         memory, and ONNX Runtime's session-creation time for the same .onnx file, measured
 *         here in one process.
 *
 *    compile_bench --ort_library libonnxruntime.so.1 --threads 2 \
 *        --rows name,model.onnx,model.mlcx,import_s,opt_s,build_s,compile_peak_kb[;...]
 */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "support/resource_limits.h"
#include "tools/bench/ort_session.h"
#include "vm/virtual_machine.h"

ABSL_FLAG(std::string, ort_library, "", "libonnxruntime.so.1");
ABSL_FLAG(int, threads, 1, "intra-op threads of the ONNX Runtime session");
ABSL_FLAG(int, repeats, 3, "loads per model; the median is reported");
ABSL_FLAG(std::string, rows, "", "name,onnx,mlcx,import_s,opt_s,build_s,compile_peak_kb separated by ';'");

namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <typename F>
double MedianSeconds(int repeats, F f) {
  std::vector<double> s;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    if (!f()) return -1;
    s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return Median(s);
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const int repeats = std::max(1, absl::GetFlag(FLAGS_repeats));
  std::printf(
      "| model | weights | import | opt | build | compile | compile peak RSS | load (GB/s) | resident after load | ORT "
      "session |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  for (absl::string_view row : absl::StrSplit(absl::GetFlag(FLAGS_rows), ';', absl::SkipEmpty())) {
    std::vector<std::string> f = absl::StrSplit(row, ',');
    double import_s = 0, opt_s = 0, build_s = 0, peak_kb = 0;
    if (f.size() != 7 || !absl::SimpleAtod(f[3], &import_s) || !absl::SimpleAtod(f[4], &opt_s) ||
        !absl::SimpleAtod(f[5], &build_s) || !absl::SimpleAtod(f[6], &peak_kb)) {
      std::fprintf(stderr, "compile_bench: malformed row '%s'\n", std::string(row).c_str());
      return 2;
    }
    const std::string &name = f[0], &onnx = f[1], &mlcx = f[2];
    const double weights_mb = std::filesystem::file_size(onnx) / 1e6, exe_bytes = std::filesystem::file_size(mlcx);
    // Our load: LoadFile on a fresh VM each time (the file in the page cache, as ORT's is).
    // The resident growth of the first load only: later loads reuse what the earlier ones freed.
    int64_t resident = -1;
    const double load_s = MedianSeconds(repeats, [&] {
      const int64_t before = mlc::ResidentBytes();
      absl::StatusOr<std::unique_ptr<mlc::vm::VirtualMachine>> vm = mlc::vm::VirtualMachine::LoadFile(mlcx);
      if (!vm.ok()) {
        std::fprintf(stderr, "compile_bench: %s\n", std::string(vm.status().message()).c_str());
        return false;
      }
      if (resident < 0) resident = mlc::ResidentBytes() - before;
      return true;
    });
    const double ort_s = MedianSeconds(repeats, [&] {
      absl::StatusOr<std::unique_ptr<mlc::bench::OrtSession>> s =
          mlc::bench::OrtSession::Create(absl::GetFlag(FLAGS_ort_library), onnx, absl::GetFlag(FLAGS_threads));
      if (!s.ok()) std::fprintf(stderr, "compile_bench: ONNX Runtime: %s\n", std::string(s.status().message()).c_str());
      return s.ok();
    });
    std::printf(
        "| %s | %.0f MB | %.2f s | %.2f s | %.2f s | **%.2f s** | %.0f MB (%.1fx) | %.2f s (%.2f) | %.0f MB (%.2fx) | "
        "%.2f s |\n",
        name.c_str(), weights_mb, import_s, opt_s, build_s, import_s + opt_s + build_s, peak_kb / 1e3,
        peak_kb / 1e3 / weights_mb, load_s, load_s > 0 ? exe_bytes / load_s / 1e9 : 0.0, resident / 1e6,
        resident / 1e6 / weights_mb, ort_s);
    std::fflush(stdout);
  }
  return 0;
}
