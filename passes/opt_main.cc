/*! \file opt_main.cc
 *  \brief //passes:opt — runs a text pipeline of passes on an IRModule file.
 *
 *    opt --in a.irpb --out b.irpb --passes=legalize,fuse-ops{max-depth=4},fuse-tir
 *        [--print-after-all] [--print-after=fuse-ops] [--timing] [--dump-dir=DIR]
 *        [--pass-plugin=libmypass.so] [--list-passes] [--target=T] [--tuning_db=records.pb]
 *
 *  The verifier runs after every pass. The output is written atomically, and only on success.
 */
#include <dlfcn.h>

#include <algorithm>
#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "ir/graph/serialize.h"
#include "ir/target/target.h"
#include "passes/pass.h"
#include "support/file_util.h"
#include "support/phase_timer.h"
#include "support/resource_limit_flag.h"

ABSL_FLAG(std::string, in, "", "IRModule to transform (*.irpb)");
ABSL_FLAG(std::string, out, "", "IRModule to write (*.irpb)");
ABSL_FLAG(std::string, target, "",
          "target to compile for (llvm -mcpu=native, x86-64-v3, znver4, ...); recorded in the module");
ABSL_FLAG(std::string, passes, "default",
          "pipeline: pass,pass{option=value,...},... or a named pipeline (default, blas, O0: passes/pipelines.cc)");
ABSL_FLAG(std::string, quantize, "",
          "quantized weights before the pipeline: q8 or q4 (int8 / int4 codes, fp16 scales per group of 32; "
          "activations quantized per block when the kernel runs, as llama.cpp does; none)");
ABSL_FLAG(bool, print_after_all, false, "print the module after every pass (to stderr)");
ABSL_FLAG(std::string, print_after, "", "comma-separated passes after which to print the module");
ABSL_FLAG(bool, timing, false, "print the time of loading, of each pass and of writing (to stderr)");
ABSL_FLAG(std::string, dump_dir, "", "write the module after each pass into this directory");
ABSL_FLAG(std::string, pass_plugin, "", "comma-separated shared libraries of passes to load");
ABSL_FLAG(bool, list_passes, false, "describe every registered pass and its options, then exit");
ABSL_FLAG(bool, verify_each, true, "run the verifier after every pass");
ABSL_FLAG(std::string, tuning_db, "",
          "tuning database (//tools:tune): its records schedule their kernels before default-schedule");

int main(int argc, char** argv) {
  // Flags may be spelled with dashes (--print-after-all) as in the docs.
  std::vector<std::string> args(argv, argv + argc);
  std::vector<char*> normalized;
  for (std::string& a : args) {
    if (a.rfind("--", 0) == 0) {
      size_t end = a.find('=');
      for (size_t i = 2; i < std::min(end, a.size()); ++i) {
        if (a[i] == '-') a[i] = '_';
      }
    }
    normalized.push_back(a.data());
  }
  absl::SetProgramUsageMessage(
      "Runs passes on an IRModule.\n  opt --in a.irpb --out b.irpb --passes=legalize,fuse-tir");
  absl::ParseCommandLine(static_cast<int>(normalized.size()), normalized.data());
  mlc::EnterUserDirectory();  // relative paths are the user's under ./bazelw run
  if (absl::Status s = mlc::ApplyResourceLimitFlag(); !s.ok()) {
    std::cerr << "opt: " << s.message() << "\n";
    return 2;
  }
  for (absl::string_view p : absl::StrSplit(absl::GetFlag(FLAGS_pass_plugin), ',', absl::SkipEmpty())) {
    // A plug-in registers its passes from its static initializers (MLC_REGISTER_PASS).
    if (dlopen(std::string(p).c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
      std::cerr << "opt: cannot load pass plug-in " << p << ": " << dlerror() << "\n";
      return 1;
    }
  }
  if (absl::GetFlag(FLAGS_list_passes)) {
    std::cout << mlc::passes::PassRegistry::Global().Describe();
    return 0;
  }
  std::string in = absl::GetFlag(FLAGS_in), out = absl::GetFlag(FLAGS_out);
  if (in.empty() || out.empty()) {
    std::cerr << "opt: --in and --out are required\n";
    return 2;
  }
  absl::StatusOr<std::string> pipeline =
      mlc::passes::WithWeightQuantization(absl::GetFlag(FLAGS_passes), absl::GetFlag(FLAGS_quantize));
  if (!pipeline.ok()) {
    std::cerr << "opt: --" << pipeline.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<std::vector<std::unique_ptr<mlc::passes::Pass>>> passes = mlc::passes::ParsePipeline(*pipeline);
  if (!passes.ok()) {
    std::cerr << "opt: " << passes.status().message() << "\n";
    return 1;
  }
  if (std::string db = absl::GetFlag(FLAGS_tuning_db); !db.empty()) {
    if (absl::Status s = mlc::passes::InsertTuningRecords(&*passes, db); !s.ok()) {
      std::cerr << "opt: --tuning_db: " << s.message() << "\n";
      return 1;
    }
  }
  mlc::PhaseTimer timer;
  timer.Start("load");
  absl::StatusOr<mlc::IRModule> mod = mlc::LoadModule(in);
  if (!mod.ok()) {
    std::cerr << "opt: " << mod.status().message() << "\n";
    return 1;
  }
  if (absl::Status s = mlc::RecordTargetFlag(&mod->mutable_attrs(), absl::GetFlag(FLAGS_target)); !s.ok()) {
    std::cerr << "opt: " << in << ": " << s.message() << "\n";
    return 1;
  }
  mlc::passes::PipelineOptions options;
  options.verify_each = absl::GetFlag(FLAGS_verify_each);
  options.print_after_all = absl::GetFlag(FLAGS_print_after_all);
  for (absl::string_view p : absl::StrSplit(absl::GetFlag(FLAGS_print_after), ',', absl::SkipEmpty())) {
    options.print_after.insert(std::string(p));
  }
  options.dump_dir = absl::GetFlag(FLAGS_dump_dir);
  options.log = &std::cerr;
  std::vector<mlc::passes::PassRecord> records;
  options.records = &records;
  timer.Stop();
  absl::StatusOr<mlc::IRModule> result = mlc::passes::RunPipeline(*mod, *passes, options);
  if (!result.ok()) {
    std::cerr << "opt: " << in << ": " << result.status().message() << "\n";
    return 1;
  }
  for (const mlc::passes::PassRecord& r : records) {
    timer.Add(absl::StrCat("pass ", r.pass, r.changed ? "" : " (no change)"), r.ms / 1e3);
  }
  timer.Start("write");
  if (absl::Status s = mlc::SaveModule(*result, out); !s.ok()) {
    std::cerr << "opt: " << s.message() << "\n";
    return 1;
  }
  timer.Stop();
  if (absl::GetFlag(FLAGS_timing)) std::cerr << mlc::FormatPhaseTable("opt", timer.phases());
  return 0;
}
