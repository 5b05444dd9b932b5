/*! \file golden.cc
 *  \brief Golden-file comparison.
 */
#include "ir/testing/golden.h"

#include <cstdlib>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "support/file_util.h"

namespace mlc {
namespace testing {

std::string ReadTestData(const std::string& path) {
  absl::StatusOr<std::string> contents = ReadFile(path);
  return contents.ok() ? *contents : std::string();
}

absl::Status CheckGolden(const std::string& path, const std::string& actual) {
  const char* update = std::getenv("UPDATE_GOLDENS");
  const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  if (update != nullptr && std::string(update) == "1") {
    if (workspace == nullptr) {
      return absl::FailedPreconditionError(
          "UPDATE_GOLDENS=1 needs ./bazelw test or bazel run (BUILD_WORKSPACE_DIRECTORY is unset)");
    }
    return WriteFileAtomically(absl::StrCat(workspace, "/", path), actual);
  }
  absl::StatusOr<std::string> expected = ReadFile(path);
  if (!expected.ok()) {
    return absl::NotFoundError(absl::StrCat("golden ", path, " is missing (list it in the test's data, or create it ",
                                            "with UPDATE_GOLDENS=1 ./bazelw test <test>)"));
  }
  if (*expected == actual) return absl::OkStatus();
  std::vector<std::string> want = absl::StrSplit(*expected, '\n');
  std::vector<std::string> got = absl::StrSplit(actual, '\n');
  size_t line = 0;
  while (line < want.size() && line < got.size() && want[line] == got[line]) ++line;
  return absl::FailedPreconditionError(absl::StrCat(
      "output differs from golden ", path, " at line ", line + 1, ":\n  golden: ",
      line < want.size() ? want[line] : "<end of file>", "\n  actual: ", line < got.size() ? got[line] : "<end of file>",
      "\nFull output:\n", actual, "\n(rewrite with UPDATE_GOLDENS=1 ./bazelw test <test> after a deliberate change)"));
}

}  // namespace testing
}  // namespace mlc
