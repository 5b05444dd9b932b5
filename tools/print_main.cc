/*! \file print_main.cc
 *  \brief //tools:print — prints any saved IRModule (*.irpb) as TVMScript.
 *
 *    print --in model.irpb [--out model.py] [--show_meta]
 */
#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "ir/graph/printer.h"
#include "ir/graph/serialize.h"
#include "support/file_util.h"
#include "support/resource_limit_flag.h"

ABSL_FLAG(std::string, in, "", "IRModule file to print (*.irpb)");
ABSL_FLAG(std::string, out, "", "write the text here (atomically) instead of to standard output");
ABSL_FLAG(bool, show_meta, false, "include the constants' data as a metadata section the parser reads back");

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("Prints an IRModule file as TVMScript.\n  print --in model.irpb [--out model.py]");
  absl::ParseCommandLine(argc, argv);
  mlc::EnterUserDirectory();  // relative paths are the user's under ./bazelw run
  if (absl::Status s = mlc::ApplyResourceLimitFlag(); !s.ok()) {
    std::cerr << "print: " << s.message() << "\n";
    return 2;
  }
  std::string in = absl::GetFlag(FLAGS_in);
  if (in.empty()) {
    std::cerr << "print: --in is required (an .irpb file)\n";
    return 2;
  }
  absl::StatusOr<mlc::IRModule> mod = mlc::LoadModule(in);
  if (!mod.ok()) {
    std::cerr << "print: " << mod.status().message() << "\n";
    return 1;
  }
  mlc::PrintOptions options;
  options.show_meta = absl::GetFlag(FLAGS_show_meta);
  std::string text = mlc::PrintModule(*mod, options);
  std::string out = absl::GetFlag(FLAGS_out);
  if (out.empty()) {
    std::cout << text;
    return 0;
  }
  absl::Status status = mlc::WriteFileAtomically(out, text);
  if (!status.ok()) {
    std::cerr << "print: " << status.message() << "\n";
    return 1;
  }
  return 0;
}
