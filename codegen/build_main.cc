/*! \file build_main.cc
 *  \brief //codegen:build — IRModule file to executable.
 *
 *    build --in m.irpb --out m.mlcx [--dump_lowered lowered.py] [--dump_llvm kernels.ll] [--opt_level 3]
 *          [--sign_key key.pem] [--threads N] [--timing] [--kernel_cache DIR]
 *    build --merge m.v3.mlcx,m.v4.mlcx --out m.mlcx [--sign_key key.pem]   # one multi-target executable
 */
#include <iostream>
#include <map>
#include <optional>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "codegen/build.h"
#include "ir/graph/serialize.h"
#include "ir/graph/shape_bounds.h"
#include "ir/target/target.h"
#include "support/file_util.h"
#include "support/phase_timer.h"
#include "support/resource_limit_flag.h"
#include "vm/executable_format.h"
#include "vm/executable_variants.h"

ABSL_FLAG(std::string, in, "", "IRModule to build (*.irpb)");
ABSL_FLAG(std::string, out, "", "executable to write (*.mlcx)");
ABSL_FLAG(std::string, target, "",
          "target to compile for (llvm -mcpu=native, x86-64-v3, znver4, ...); recorded in the module");
ABSL_FLAG(std::string, dump_lowered, "", "write the lowered PrimFuncs here (TVMScript)");
ABSL_FLAG(std::string, dump_llvm, "", "write the optimized LLVM IR here");
ABSL_FLAG(std::string, upper_bound, "",
          "upper bounds of shape variables, e.g. n=64,seq=128: intermediates with symbolic shapes get planned storage "
          "(larger calls still run)");
ABSL_FLAG(int, opt_level, 3, "LLVM optimization level (0-3)");
ABSL_FLAG(int, threads, 0, "threads compiling kernels (0: one per core)");
ABSL_FLAG(std::string, kernel_cache, "",
          "directory of compiled kernel objects: a kernel compiled before (same code, target, options) is reused");
ABSL_FLAG(bool, timing, false, "print the time of each phase and the slowest kernels to compile (to stderr)");
ABSL_FLAG(
    std::string, merge, "",
    "executables built for different targets (a.mlcx,b.mlcx) to merge into one multi-target --out; the VM runs the "
    "best this CPU can (vm/executable_variants.h)");
ABSL_FLAG(std::string, sign_key, "",
          "sign the executable with this Ed25519 private key (PEM: openssl genpkey -algorithm ed25519 -out key.pem)");

namespace {

// build --merge: the executables at `paths`, one multi-target executable at `out`.
int MergeExecutables(const std::vector<std::string>& paths, const std::string& out, const mlc::SigningKey* signer) {
  std::vector<mlc::proto::Executable> variants;
  for (const std::string& path : paths) {
    absl::StatusOr<std::string> bytes = mlc::ReadFile(path);
    absl::StatusOr<mlc::proto::Executable> exe = bytes.ok() ? mlc::vm::ParseExecutable(*bytes, path) : bytes.status();
    if (!exe.ok()) {
      std::cerr << "build: --merge: " << exe.status().message() << "\n";
      return 1;
    }
    variants.push_back(*std::move(exe));
  }
  absl::StatusOr<mlc::proto::Executable> merged = mlc::vm::MergeVariants(std::move(variants));
  absl::Status s = merged.ok() ? mlc::vm::WriteExecutable(out, *std::move(merged), signer) : merged.status();
  if (!s.ok()) {
    std::cerr << "build: --merge: " << s.message() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("Builds an executable from an IRModule.\n  build --in m.irpb --out m.mlcx");
  absl::ParseCommandLine(argc, argv);
  mlc::EnterUserDirectory();  // relative paths are the user's under ./bazelw run
  if (absl::Status s = mlc::ApplyResourceLimitFlag(); !s.ok()) {
    std::cerr << "build: " << s.message() << "\n";
    return 2;
  }
  std::string in = absl::GetFlag(FLAGS_in), out = absl::GetFlag(FLAGS_out);
  std::optional<mlc::SigningKey> signer;
  if (!absl::GetFlag(FLAGS_sign_key).empty()) {
    absl::StatusOr<mlc::SigningKey> key = mlc::SigningKey::FromPemFile(absl::GetFlag(FLAGS_sign_key));
    if (!key.ok()) {
      std::cerr << "build: " << key.status().message() << "\n";
      return 1;
    }
    signer = std::move(*key);
  }
  if (const std::string merge = absl::GetFlag(FLAGS_merge); !merge.empty()) {
    if (out.empty() || !in.empty()) {
      std::cerr << "build: --merge takes --out and no --in\n";
      return 2;
    }
    return MergeExecutables(absl::StrSplit(merge, ',', absl::SkipEmpty()), out, signer ? &*signer : nullptr);
  }
  if (in.empty() || out.empty()) {
    std::cerr << "build: --in and --out are required\n";
    return 2;
  }
  mlc::PhaseTimer timer;
  timer.Start("load");
  absl::StatusOr<mlc::IRModule> mod = mlc::LoadModule(in);
  if (!mod.ok()) {
    std::cerr << "build: " << mod.status().message() << "\n";
    return 1;
  }
  if (absl::Status s = mlc::RecordTargetFlag(&mod->mutable_attrs(), absl::GetFlag(FLAGS_target)); !s.ok()) {
    std::cerr << "build: " << in << ": " << s.message() << "\n";
    return 1;
  }
  if (const std::string spec = absl::GetFlag(FLAGS_upper_bound); !spec.empty()) {
    absl::StatusOr<std::map<std::string, int64_t>> bounds = mlc::ParseUpperBounds(spec);
    absl::StatusOr<mlc::IRModule> bounded = bounds.ok() ? mlc::SetShapeUpperBounds(*mod, *bounds) : bounds.status();
    if (!bounded.ok()) {
      std::cerr << "build: --upper_bound: " << bounded.status().message() << "\n";
      return 1;
    }
    mod = *std::move(bounded);
  }
  mlc::codegen::BuildOptions options;
  options.codegen.opt_level = absl::GetFlag(FLAGS_opt_level);
  options.dump_lowered_path = absl::GetFlag(FLAGS_dump_lowered);
  options.dump_llvm_path = absl::GetFlag(FLAGS_dump_llvm);
  options.codegen.num_threads = absl::GetFlag(FLAGS_threads);
  options.codegen.kernel_cache_dir = absl::GetFlag(FLAGS_kernel_cache);
  mlc::codegen::BuildStats stats;
  options.stats = &stats;
  timer.Stop();
  absl::StatusOr<mlc::proto::Executable> exe = mlc::codegen::Build(*mod, options);
  if (!exe.ok()) {
    std::cerr << "build: " << in << ": " << exe.status().message() << "\n";
    return 1;
  }
  for (const auto& [phase, seconds] : stats.phases) timer.Add(phase, seconds);
  timer.Start("write");
  absl::Status s = mlc::vm::WriteExecutable(out, *std::move(exe), signer ? &*signer : nullptr);
  if (!s.ok()) {
    std::cerr << "build: " << s.message() << "\n";
    return 1;
  }
  timer.Stop();
  if (absl::GetFlag(FLAGS_timing)) {
    std::cerr << mlc::FormatPhaseTable("build", timer.phases());
    std::cerr << "  slowest kernels to compile:\n";
    for (size_t i = 0; i < stats.kernel_seconds.size() && i < 5; ++i) {
      std::cerr << absl::StrFormat("    %9.1f ms  @%s\n", stats.kernel_seconds[i].second * 1e3,
                                   stats.kernel_seconds[i].first);
    }
  }
  return 0;
}
