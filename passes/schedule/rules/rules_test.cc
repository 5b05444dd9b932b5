/*! \file rules_test.cc
 *  \brief The default schedule's rule table: its generated reference is current, and its shape
 *         is one the driver runs as written (names unique, each block stage's rules together).
 */
#include "passes/schedule/rules/rules.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "ir/testing/golden.h"

namespace mlc {
namespace tir {
namespace {

TEST(DefaultScheduleRules, ReferenceDocIsInSyncWithTheTable) {
  absl::Status s = testing::CheckGolden(
      "docs/schedule_rules.md",
      absl::StrCat("# Default schedule rules\n\n",
                   "Generated from `DefaultScheduleRules()` (`passes/schedule/rules/default_rules.cc`), in the order "
                   "`default-schedule` runs them; `//passes/schedule/rules:rules_test` keeps it in sync. How each "
                   "rule picks its sizes, and what was measured: [schedules.md](schedules.md#default-schedules-no-"
                   "tuning).\n\n",
                   DescribeDefaultScheduleRules()));
  EXPECT_TRUE(s.ok()) << s;
}

TEST(DefaultScheduleRules, NamesAreUniqueAndEachBlockStageIsOneRun) {
  std::set<std::string> names;
  std::set<RuleStage> finished;  // block stages whose run of rules has ended
  RuleStage previous = RuleStage::kFunction;
  for (const DefaultScheduleRule& r : DefaultScheduleRules()) {
    EXPECT_TRUE(names.insert(r.name).second) << "rule " << r.name << " twice";
    EXPECT_EQ(r.stage == RuleStage::kFunction, r.on_function != nullptr) << r.name;
    EXPECT_EQ(r.stage != RuleStage::kFunction, r.on_block != nullptr) << r.name;
    if (r.stage != previous && previous != RuleStage::kFunction) finished.insert(previous);
    // A block stage split in two runs would visit its blocks twice.
    EXPECT_EQ(finished.count(r.stage), 0u) << r.name << ": its stage's rules are not together";
    previous = r.stage;
  }
}

}  // namespace
}  // namespace tir
}  // namespace mlc
