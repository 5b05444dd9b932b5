/*! \file knob.cc */
#include "passes/schedule/rules/knob.h"

#include "absl/strings/str_cat.h"

namespace mlc {
namespace tir {

absl::StatusOr<size_t> Decide(const Knob& knob, const Decider& decide) {
  const size_t pick = decide ? decide(knob) : knob.default_choice;
  if (pick >= knob.choices.size()) {
    return absl::InvalidArgumentError(absl::StrCat("@", knob.func, " block ", knob.block, ": ", knob.rule, " choice ",
                                                   pick, " of ", knob.choices.size()));
  }
  return pick;
}

absl::Status RecordDecision(Schedule* sch, const Knob& knob, size_t choice) {
  const size_t n = knob.choices.size();
  std::vector<int64_t> indices(n);
  for (size_t i = 0; i < n; ++i) indices[i] = static_cast<int64_t>(i);
  absl::StatusOr<ExprRV> recorded = sch->SampleCategorical(
      indices, std::vector<double>(n, 1.0 / static_cast<double>(n)), static_cast<int64_t>(choice));
  return recorded.status();
}

}  // namespace tir
}  // namespace mlc
