/*! \file import_main.cc
 *  \brief //frontend:import — a framework model to an IRModule file.
 *
 *    import --in model.fxpb --out model.irpb [--te]      PyTorch FX (frontend/torch/export_fx.py)
 *
 *  The result is verified before it is written; on any error nothing is written.
 */
#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "frontend/torch/fx_importer.h"
#include "ir/serialize.h"
#include "ir/verifier.h"

ABSL_FLAG(std::string, in, "", "model to import: *.fxpb (PyTorch FX)");
ABSL_FLAG(std::string, out, "", "IRModule to write (*.irpb)");
ABSL_FLAG(bool, te, false, "lower operators through the operator library's tensor expressions at import");

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("Imports a model.\n  import --in model.fxpb --out model.irpb");
  absl::ParseCommandLine(argc, argv);
  std::string in = absl::GetFlag(FLAGS_in), out = absl::GetFlag(FLAGS_out);
  if (in.empty() || out.empty()) {
    std::cerr << "import: --in and --out are required\n";
    return 2;
  }
  absl::StatusOr<mlc::IRModule> mod;
  if (absl::EndsWith(in, ".fxpb")) {
    mlc::fx::FxImportOptions options;
    options.use_te = absl::GetFlag(FLAGS_te);
    mod = mlc::fx::ImportFxFile(in, options);
  } else if (absl::EndsWith(in, ".onnx")) {
    std::cerr << "import: " << in << ": the ONNX importer is not built yet (issue 7); export with torch.fx instead\n";
    return 1;
  } else {
    std::cerr << "import: " << in << ": unknown format (expected .fxpb)\n";
    return 1;
  }
  if (!mod.ok()) {
    std::cerr << "import: " << mod.status().message() << "\n";
    return 1;
  }
  if (absl::Status s = mlc::VerifyModule(*mod); !s.ok()) {
    std::cerr << "import: " << in << ": the imported module is ill-formed: " << s.message() << "\n";
    return 1;
  }
  if (absl::Status s = mlc::SaveModule(*mod, out); !s.ok()) {
    std::cerr << "import: " << s.message() << "\n";
    return 1;
  }
  return 0;
}
