// Fuzz target: the TVMScript parser, then the verifier on what it accepts.
#include <cstdint>
#include <string>

#include "frontend/tvmscript.h"
#include "ir/graph/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<mlc::IRModule> mod =
      mlc::ParseTVMScript(std::string(reinterpret_cast<const char*>(data), size), "fuzz.py");
  if (mod.ok()) (void)mlc::VerifyModule(*mod);
  return 0;
}
