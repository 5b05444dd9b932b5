/*! \file import_main.cc
 *  \brief //frontend:import — a framework model to an IRModule file.
 *
 *    import --in model.fxpb --out model.irpb             PyTorch FX (frontend/torch/export_fx.py)
 *    import --in model.onnx --out model.irpb [--keep_params_in_input] [--dim batch=1]
 *    import ... --converter_plugin=libmyconverters.so    converters of your own, loaded first
 *
 *  The result is verified before it is written; on any error nothing is written.
 */
#include <dlfcn.h>

#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "frontend/model_file.h"
#include "ir/graph/serialize.h"
#include "ir/graph/verifier.h"
#include "support/file_util.h"
#include "support/phase_timer.h"
#include "support/resource_limit_flag.h"

ABSL_FLAG(std::string, in, "", "model to import: *.fxpb (PyTorch FX) or *.onnx");
ABSL_FLAG(std::string, out, "", "IRModule to write (*.irpb)");
ABSL_FLAG(bool, timing, false, "print the time of each phase (to stderr)");
ABSL_FLAG(bool, keep_params_in_input, false, "ONNX: initializers become parameters of main instead of constants");
ABSL_FLAG(std::string, dim, "", "ONNX: values of symbolic dimensions, e.g. batch=1,seq=128");
ABSL_FLAG(
    std::string, converter_plugin, "",
    "comma-separated shared libraries of converters (MLC_REGISTER_FX_CONVERTER / MLC_REGISTER_ONNX_CONVERTER) to load "
    "first; they add converters or replace built-in ones");

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("Imports a model.\n  import --in model.fxpb --out model.irpb");
  absl::ParseCommandLine(argc, argv);
  mlc::EnterUserDirectory();  // relative paths are the user's under ./bazelw run
  if (absl::Status s = mlc::ApplyResourceLimitFlag(); !s.ok()) {
    std::cerr << "import: " << s.message() << "\n";
    return 2;
  }
  for (absl::string_view p : absl::StrSplit(absl::GetFlag(FLAGS_converter_plugin), ',', absl::SkipEmpty())) {
    // A plug-in registers its converters from its static initializers; a registry fills with
    // the built-in ones on first use, before, so a key the plug-in repeats replaces them.
    if (dlopen(std::string(p).c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
      std::cerr << "import: cannot load converter plug-in " << p << ": " << dlerror() << "\n";
      return 1;
    }
  }
  std::string in = absl::GetFlag(FLAGS_in), out = absl::GetFlag(FLAGS_out);
  if (in.empty() || out.empty()) {
    std::cerr << "import: --in and --out are required\n";
    return 2;
  }
  mlc::PhaseTimer timer;
  timer.Start("read and convert");
  mlc::onnx_import::OnnxImportOptions options;
  options.keep_params_in_input = absl::GetFlag(FLAGS_keep_params_in_input);
  for (absl::string_view kv : absl::StrSplit(absl::GetFlag(FLAGS_dim), ',', absl::SkipEmpty())) {
    std::vector<std::string> parts = absl::StrSplit(kv, '=');
    int64_t value = 0;
    if (parts.size() != 2 || !absl::SimpleAtoi(parts[1], &value) || value <= 0) {
      std::cerr << "import: --dim takes name=size pairs, got '" << kv << "'\n";
      return 2;
    }
    options.dims[parts[0]] = value;
  }
  absl::StatusOr<mlc::IRModule> mod = mlc::ImportModelFile(in, options);
  if (!mod.ok()) {
    std::cerr << "import: " << mod.status().message() << "\n";
    return 1;
  }
  timer.Start("verify");
  if (absl::Status s = mlc::VerifyModule(*mod); !s.ok()) {
    std::cerr << "import: " << in << ": " << (absl::IsResourceExhausted(s) ? "" : "the imported module is ill-formed: ")
              << s.message() << "\n";
    return 1;
  }
  timer.Start("write");
  if (absl::Status s = mlc::SaveModule(*mod, out); !s.ok()) {
    std::cerr << "import: " << s.message() << "\n";
    return 1;
  }
  timer.Stop();
  if (absl::GetFlag(FLAGS_timing)) std::cerr << mlc::FormatPhaseTable("import", timer.phases());
  return 0;
}
