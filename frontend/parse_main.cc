/*! \file parse_main.cc
 *  \brief //frontend:parse — TVMScript text to an IRModule file.
 *
 *    parse --in model.py --out model.irpb [--metadata constants.py]
 *
 *  The result is verified before it is written; on any error nothing is written and the exit
 *  code is non-zero.
 */
#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "frontend/tvmscript.h"
#include "ir/graph/serialize.h"
#include "support/file_util.h"
#include "support/resource_limit_flag.h"

ABSL_FLAG(std::string, in, "", "TVMScript file to parse (*.py)");
ABSL_FLAG(std::string, out, "", "IRModule file to write (*.irpb)");
ABSL_FLAG(std::string, metadata, "",
          "file with a `metadata = {...}` section holding the constants that "
          "metadata[\"relax.expr.Constant\"][i] refers to, when the text has none");

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("Parses TVMScript into an IRModule file.\n  parse --in model.py --out model.irpb");
  absl::ParseCommandLine(argc, argv);
  mlc::EnterUserDirectory();  // relative paths are the user's under ./bazelw run
  if (absl::Status s = mlc::ApplyResourceLimitFlag(); !s.ok()) {
    std::cerr << "parse: " << s.message() << "\n";
    return 2;
  }
  std::string in = absl::GetFlag(FLAGS_in), out = absl::GetFlag(FLAGS_out);
  if (in.empty() || out.empty()) {
    std::cerr << "parse: --in and --out are required\n";
    return 2;
  }
  absl::StatusOr<std::string> source = mlc::ReadFile(in);
  if (!source.ok()) {
    std::cerr << "parse: " << source.status().message() << "\n";
    return 1;
  }
  mlc::ParseOptions options;
  if (!absl::GetFlag(FLAGS_metadata).empty()) {
    absl::StatusOr<std::string> meta_text = mlc::ReadFile(absl::GetFlag(FLAGS_metadata));
    if (!meta_text.ok()) {
      std::cerr << "parse: " << meta_text.status().message() << "\n";
      return 1;
    }
    absl::StatusOr<std::vector<mlc::TensorData>> constants =
        mlc::ParseMetadata(*meta_text, absl::GetFlag(FLAGS_metadata));
    if (!constants.ok()) {
      std::cerr << "parse: " << constants.status().message() << "\n";
      return 1;
    }
    options.constants = std::move(*constants);
  }
  absl::StatusOr<mlc::IRModule> mod = mlc::ParseTVMScript(*source, in, options);
  if (!mod.ok()) {
    std::cerr << mod.status().message() << "\n";
    return 1;
  }
  if (absl::Status s = mlc::SaveModule(*mod, out); !s.ok()) {
    std::cerr << "parse: " << s.message() << "\n";
    return 1;
  }
  return 0;
}
