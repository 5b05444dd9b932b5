/*! \file phase_timer.cc */
#include "support/phase_timer.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"

namespace mlc {

void PhaseTimer::Start(absl::string_view name) {
  Stop();
  running_ = std::string(name);
  started_ = absl::Now();
}

void PhaseTimer::Stop() {
  if (running_.empty()) return;
  Add(running_, absl::ToDoubleSeconds(absl::Now() - started_));
  running_.clear();
}

std::string FormatPhaseTable(absl::string_view stage, const std::vector<std::pair<std::string, double>>& phases) {
  double total = 0;
  size_t width = 5;
  for (const auto& [name, seconds] : phases) {
    total += seconds;
    width = std::max(width, name.size());
  }
  std::string out = absl::StrCat(stage, " timing:\n");
  for (const auto& [name, seconds] : phases) {
    absl::StrAppendFormat(&out, "  %-*s %9.1f ms %5.1f%%\n", static_cast<int>(width), name, seconds * 1e3,
                          total > 0 ? 100 * seconds / total : 0.0);
  }
  absl::StrAppendFormat(&out, "  %-*s %9.1f ms\n", static_cast<int>(width), "total", total * 1e3);
  return out;
}

}  // namespace mlc
