/*! \file phase_timer.h
 *  \brief Wall time of the phases of one stage, for the stages' --timing tables.
 *
 *    PhaseTimer t;
 *    t.Start("load");  ...  t.Start("lower");  ...  t.Stop();
 *    std::cerr << FormatPhaseTable("build", t.phases());
 */
#ifndef MLC_SUPPORT_PHASE_TIMER_H_
#define MLC_SUPPORT_PHASE_TIMER_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace mlc {

class PhaseTimer {
 public:
  /*! \brief Ends the running phase, if any, and starts `name`. */
  void Start(absl::string_view name);
  /*! \brief Ends the running phase. */
  void Stop();
  /*! \brief Records a phase measured elsewhere (a part of another phase, say). */
  void Add(absl::string_view name, double seconds) { phases_.emplace_back(std::string(name), seconds); }
  /*! \brief Seconds per phase, in the order they ran. */
  const std::vector<std::pair<std::string, double>>& phases() const { return phases_; }

 private:
  std::vector<std::pair<std::string, double>> phases_;
  std::string running_;
  absl::Time started_;
};

/*! \brief "<stage> timing:" and one line per phase: name, milliseconds, share of the total. */
std::string FormatPhaseTable(absl::string_view stage, const std::vector<std::pair<std::string, double>>& phases);

}  // namespace mlc

#endif  // MLC_SUPPORT_PHASE_TIMER_H_
