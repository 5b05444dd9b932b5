/*! \file fuzz_init.cc
 *  \brief What every fuzz target (and its corpus replay) sets up first.
 *
 *  Smaller resource limits than a user's: sanitizers make a step ten times dearer, and
 *  libFuzzer's RSS budget is the machine. An input that hits a limit gets the same clear error a
 *  user would, so the limits' paths are fuzzed too. And Protobuf's log is silenced: it reports
 *  every malformed string field of a mutated message on stderr, which slowed fuzzing down.
 */
#include <cstdint>

#include "google/protobuf/stubs/logging.h"
#include "support/resource_limits.h"

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  mlc::ResourceLimits limits;
  limits.max_tensor_bytes = int64_t{256} << 20;
  limits.max_constant_bytes = int64_t{256} << 20;
  limits.max_kernel_iterations = int64_t{1} << 30;
  limits.max_fold_steps = int64_t{1} << 18;
  mlc::SetResourceLimits(limits);
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}
