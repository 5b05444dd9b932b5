// Fuzz target: the schedule-trace parser (TVM's spelling) and the binary trace reader.
#include <cstdint>
#include <string>

#include "passes/schedule/trace.h"
#include "passes/schedule/trace_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  (void)mlc::script::ParseTrace(bytes, "fuzz.trace.py");
  (void)mlc::tir::Trace::Deserialize(bytes, "fuzz.trace");
  return 0;
}
