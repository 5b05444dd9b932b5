/*! \file pipeline_main.cc
 *  \brief //tools:pipeline — the driver. At this stage of the project only the IR core exists,
 *         so it takes the bundled example (the seeds' MyModule), verifies it, writes it as an
 *         .irpb file, reads it back and prints it. The compile-and-run stages replace this.
 */
#include <cstdlib>
#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "ir/printer.h"
#include "ir/serialize.h"
#include "ir/structural_equal.h"
#include "ir/testing/seed_modules.h"
#include "ir/verifier.h"

ABSL_FLAG(std::string, out, "", "directory for the example's .irpb (default: a temporary directory)");

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  std::string dir = absl::GetFlag(FLAGS_out);
  if (dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    dir = tmp != nullptr ? tmp : "/tmp";
  }
  mlc::IRModule mod = mlc::testing::MyModule();
  if (absl::Status s = mlc::VerifyModule(mod); !s.ok()) {
    std::cerr << "pipeline: " << s.message() << "\n";
    return 1;
  }
  std::string path = absl::StrCat(dir, "/my_module.irpb");
  if (absl::Status s = mlc::SaveModule(mod, path); !s.ok()) {
    std::cerr << "pipeline: " << s.message() << "\n";
    return 1;
  }
  absl::StatusOr<mlc::IRModule> loaded = mlc::LoadModule(path);
  if (!loaded.ok()) {
    std::cerr << "pipeline: " << loaded.status().message() << "\n";
    return 1;
  }
  if (absl::Status s = mlc::CheckStructuralEqual(mod, *loaded); !s.ok()) {
    std::cerr << "pipeline: round trip changed the module: " << s.message() << "\n";
    return 1;
  }
  std::cout << mlc::PrintModule(*loaded);
  std::cerr << "pipeline: bundled example verified, saved to " << path << " and read back.\n";
  return 0;
}
