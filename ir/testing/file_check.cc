/*! \file file_check.cc
 *  \brief FileCheck, simplified (file_check.h).
 */
#include "ir/testing/file_check.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"

namespace mlc {
namespace testing {

void CheckDirectives(const std::string& text, const std::string& output) {
  std::vector<std::string> lines = absl::StrSplit(output, '\n');
  size_t next = 0;  // first line not yet consumed
  std::vector<std::string> pending_not;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    absl::string_view line = absl::StripLeadingAsciiWhitespace(raw);
    auto directive = [&](absl::string_view prefix, std::string* arg) {
      if (!absl::ConsumePrefix(&line, prefix)) return false;
      *arg = std::string(absl::StripAsciiWhitespace(line));
      return true;
    };
    std::string arg;
    if (directive("# CHECK-NOT:", &arg)) {
      pending_not.push_back(arg);
    } else if (directive("# CHECK-NEXT:", &arg)) {
      ASSERT_LT(next, lines.size()) << "CHECK-NEXT: " << arg << " after the end of the output";
      EXPECT_TRUE(absl::StrContains(lines[next], arg)) << "CHECK-NEXT: " << arg << "\n  next line: " << lines[next];
      ++next;
    } else if (directive("# CHECK:", &arg)) {
      size_t found = next;
      while (found < lines.size() && !absl::StrContains(lines[found], arg)) ++found;
      ASSERT_LT(found, lines.size()) << "CHECK: " << arg << " not found after line " << next << " of:\n" << output;
      for (const std::string& n : pending_not) {
        for (size_t i = next; i < found; ++i)
          EXPECT_FALSE(absl::StrContains(lines[i], n)) << "CHECK-NOT: " << n << " at " << lines[i];
      }
      pending_not.clear();
      next = found + 1;
    } else if (directive("# CHECK-SAME:", &arg)) {
      ASSERT_GT(next, 0u) << "CHECK-SAME: " << arg << " before any matched line";
      EXPECT_TRUE(absl::StrContains(lines[next - 1], arg)) << "CHECK-SAME: " << arg << "\n  line: " << lines[next - 1];
    } else if (absl::StartsWith(line, "# CHECK")) {
      ADD_FAILURE() << "unknown directive: " << line;
    }
  }
  for (const std::string& n : pending_not) {
    for (size_t i = next; i < lines.size(); ++i)
      EXPECT_FALSE(absl::StrContains(lines[i], n)) << "CHECK-NOT: " << n << " at " << lines[i];
  }
}

bool HasDirectives(const std::string& text) { return absl::StrContains(text, "# CHECK"); }

}  // namespace testing
}  // namespace mlc
