/*! \file resource_limit_flag.cc */
#include "support/resource_limit_flag.h"

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "support/resource_limits.h"

ABSL_FLAG(std::string, limits, "",
          "resource limits, name=value,... (values: integers, K/M/G/T suffixes, 2^N): max_tensor_bytes (64G), "
          "max_kernel_iterations (2^38), max_nesting_depth (2000), max_constant_bytes (1792M), max_fold_steps (2^24); "
          "see docs/limits.md");

namespace mlc {

absl::Status ApplyResourceLimitFlag() {
  ResourceLimits limits = GetResourceLimits();
  if (absl::Status s = ParseResourceLimits(absl::GetFlag(FLAGS_limits), &limits); !s.ok()) return s;
  SetResourceLimits(limits);
  return absl::OkStatus();
}

std::vector<std::string> ResourceLimitFlagArgs() {
  const std::string spec = absl::GetFlag(FLAGS_limits);
  if (spec.empty()) return {};
  return {absl::StrCat("--limits=", spec)};
}

}  // namespace mlc
