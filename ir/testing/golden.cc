/*! \file golden.cc
 *  \brief Golden-file comparison.
 */
#include "ir/testing/golden.h"

#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "support/file_util.h"

namespace mlc {
namespace testing {

std::optional<std::vector<TensorData>> ConstantsFromManifest(const std::string& path) {
  absl::StatusOr<std::string> manifest = ReadFile(path);
  if (!manifest.ok()) return std::nullopt;
  std::vector<TensorData> out;
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (absl::string_view line : absl::StrSplit(*manifest, '\n', absl::SkipEmpty())) {
    std::vector<std::string> parts = absl::StrSplit(line, ' ');
    std::vector<int64_t> shape;
    for (absl::string_view d : absl::StrSplit(parts.size() > 1 ? parts[1] : "", ',', absl::SkipEmpty())) {
      int64_t v = 0;
      (void)absl::SimpleAtoi(d, &v);
      shape.push_back(v);
    }
    absl::StatusOr<DataType> parsed = DataType::Parse(parts[0]);
    DataType dtype = parsed.ok() ? *parsed : DataType::Float32();
    // Values given on the line (a runtime function's parameters), else random: floats in
    // [-1, 1); integers (quantized weights) small, in [-8, 8) or [0, 16); bools 0/1.
    std::vector<double> values(static_cast<size_t>(NumElements(shape)));
    std::vector<std::string> given;
    if (parts.size() > 2) given = absl::StrSplit(parts[2], ',', absl::SkipEmpty());
    for (size_t i = 0; i < values.size(); ++i) {
      double& v = values[i];
      if (i < given.size() && absl::SimpleAtod(given[i], &v)) continue;
      v = dist(rng);
      if (dtype.is_int()) v = std::floor(8 * v);
      if (dtype.is_uint()) v = std::floor(8 * v + 8);
      if (dtype.is_bool()) v = v > 0;
    }
    TensorData t = TensorFromDoubles(dtype, shape, values);
    out.push_back(std::move(t));
  }
  return out;
}

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
  return absl::FailedPreconditionError(
      absl::StrCat("output differs from golden ", path, " at line ", line + 1,
                   ":\n  golden: ", line < want.size() ? want[line] : "<end of file>",
                   "\n  actual: ", line < got.size() ? got[line] : "<end of file>", "\nFull output:\n", actual,
                   "\n(rewrite with UPDATE_GOLDENS=1 ./bazelw test <test> after a deliberate change)"));
}

}  // namespace testing
}  // namespace mlc
