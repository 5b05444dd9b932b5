/*! \file golden.h
 *  \brief Golden-file comparison for tests.
 *
 *  A golden is a file under the workspace (e.g. testdata/ir/my_module.py) that a test lists
 *  in its `data`. To rewrite goldens after a deliberate change, run the tests with
 *  `UPDATE_GOLDENS=1 ./bazelw test //...`: bazelw passes the workspace directory to the tests
 *  (as `bazel run` does), and the helper writes there instead of comparing.
 */
#ifndef MLC_IR_TESTING_GOLDEN_H_
#define MLC_IR_TESTING_GOLDEN_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "support/tensor_data.h"

namespace mlc {
namespace testing {

/*! \brief Ok if `actual` equals the golden file's contents (or it was updated); else an error
 *         with the first differing line of each. */
absl::Status CheckGolden(const std::string& workspace_relative_path, const std::string& actual);

/*! \brief Deterministic constants for a module's metadata, from a manifest file
 *         (`<case>.constants`: one "dtype d0,d1,... [v0,v1,...]" per line) with the values
 *         given, or seeded uniform values in [-1, 1); nullopt when there is no manifest. The seeds print modules
 * without their metadata, so the tests that parse them supply it this way. */
std::optional<std::vector<TensorData>> ConstantsFromManifest(const std::string& path);

/*! \brief The contents of a data file of the test, by workspace-relative path. */
std::string ReadTestData(const std::string& workspace_relative_path);

}  // namespace testing
}  // namespace mlc

#endif  // MLC_IR_TESTING_GOLDEN_H_
