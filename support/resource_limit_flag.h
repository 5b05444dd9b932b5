/*! \file resource_limit_flag.h
 *  \brief The `--limits=name=value,...` flag every stage binary takes (support/resource_limits.h).
 */
#ifndef MLC_SUPPORT_RESOURCE_LIMIT_FLAG_H_
#define MLC_SUPPORT_RESOURCE_LIMIT_FLAG_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace mlc {

/*! \brief Sets the process's limits from --limits; call after absl::ParseCommandLine. */
absl::Status ApplyResourceLimitFlag();

/*! \brief The flag as given ("--limits=..."), for a driver to pass on to the stages it runs;
 *         empty when it was not given. */
std::vector<std::string> ResourceLimitFlagArgs();

}  // namespace mlc

#endif  // MLC_SUPPORT_RESOURCE_LIMIT_FLAG_H_
