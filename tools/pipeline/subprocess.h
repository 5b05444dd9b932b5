/*! \file subprocess.h
 *  \brief Runs a stage binary as a separate process and captures what it prints.
 */
#ifndef MLC_TOOLS_PIPELINE_SUBPROCESS_H_
#define MLC_TOOLS_PIPELINE_SUBPROCESS_H_

#include <functional>
#include <string>
#include <vector>

namespace mlc {
namespace pipeline {

struct ProcessResult {
  int exit_code = -1;
  std::string stdout_text;
  std::string stderr_text;
  double seconds = 0;
};

/*! \brief Runs argv[0] with the arguments; never throws. exit_code -1: could not start.
 *  `on_tick`, when given, is called about ten times a second with the seconds elapsed. */
ProcessResult RunProcess(const std::vector<std::string>& argv, const std::function<void(double)>& on_tick = nullptr);

}  // namespace pipeline
}  // namespace mlc

#endif  // MLC_TOOLS_PIPELINE_SUBPROCESS_H_
