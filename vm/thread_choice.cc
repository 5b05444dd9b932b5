#include "vm/thread_choice.h"

#include <algorithm>

namespace mlc {
namespace vm {

bool ThreadChoice::NextRunSerial() const {
  if (runs_ == 0) return false;  // the warm-up run: page faults and cold caches, not timed
  if (probing()) return probe_runs_ >= kProbeRunsPerSide;
  return serial_chosen_;
}

void ThreadChoice::Record(bool serial, double seconds) {
  if (runs_++ == 0) return;
  if (!probing()) {
    if (++since_probe_ >= kReprobeEvery) {  // start the next probe
      probe_runs_ = 0;
      since_probe_ = 0;
    }
    return;
  }
  // Each side's first run moves the data to where that side reads it: not timed.
  const int run_of_side = probe_runs_ % kProbeRunsPerSide;
  double& best = serial ? best_serial_ : best_pool_;
  if (run_of_side == 1) best = seconds;
  if (run_of_side > 1) best = std::min(best, seconds);
  if (++probe_runs_ < 2 * kProbeRunsPerSide) return;
  pool_seconds_ = best_pool_;
  serial_seconds_ = best_serial_;
  serial_chosen_ = best_serial_ <= kMargin * best_pool_;
}

}  // namespace vm
}  // namespace mlc
