/*! \file pass_golden_test.cc
 *  \brief The golden-file test of one pass: every case in its directory
 *         (testdata/passes/<pass>/), run as `pass_golden_test testdata/passes/<pass>`.
 *
 *  A case is a TVMScript module `<case>.py` whose first line is `# RUN: --passes=<pipeline>`.
 *  The pipeline runs on it, and then:
 *   - the `# CHECK:` lines of the case (ir/testing/file_check.h) must match the printed result;
 *     they survive printer changes that do not matter to the case.
 *   - `<case>.expected.py`, when present, must equal the printed result exactly
 *     (UPDATE_GOLDENS=1 ./bazelw test rewrites it).
 *   - the pass the directory is named after must report that it changed the module (a golden
 *     that records a no-op proves nothing), unless the case says `# EXPECT: no change`.
 *   - the result, printed with its constants, parses back to a structurally equal module.
 *  `<case>.constants` lists `dtype d0,d1,... [v0,v1,...]` per line: the metadata constants of
 *  the input, filled with the values given or seeded random ones.
 */

#include <algorithm>
#include <iostream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "frontend/tvmscript.h"
#include "gtest/gtest.h"
#include "ir/graph/printer.h"
#include "ir/graph/structural_equal.h"
#include "ir/testing/file_check.h"
#include "ir/testing/golden.h"
#include "passes/pass.h"
#include "support/case_files.h"
#include "support/file_util.h"

namespace mlc {
namespace passes {
namespace {

std::string g_dir;  // testdata/passes/<pass>, from the command line

TEST(PassGolden, EveryCaseOfThisPass) {
  std::string pass_dir_name = g_dir.substr(g_dir.rfind('/') + 1);
  std::string pass_name = pass_dir_name;
  std::replace(pass_name.begin(), pass_name.end(), '_', '-');
  std::vector<std::string> cases = CaseNames(g_dir, ".py", ".expected.py");
  ASSERT_FALSE(cases.empty()) << "no cases in " << g_dir;
  for (const std::string& name : cases) {
    SCOPED_TRACE(name);
    std::string base = absl::StrCat(g_dir, "/", name);
    std::string text = *ReadFile(base + ".py");
    std::string first_line = text.substr(0, text.find('\n'));
    ASSERT_EQ(first_line.rfind("# RUN: --passes=", 0), 0u) << "a case starts with # RUN: --passes=...";
    std::string pipeline = first_line.substr(std::string("# RUN: --passes=").size());
    ParseOptions options;
    options.constants = testing::ConstantsFromManifest(base + ".constants");
    absl::StatusOr<IRModule> mod = ParseTVMScript(text, base + ".py", options);
    ASSERT_TRUE(mod.ok()) << mod.status();
    absl::StatusOr<std::vector<std::unique_ptr<Pass>>> passes = ParsePipeline(pipeline);
    ASSERT_TRUE(passes.ok()) << passes.status();
    std::vector<PassRecord> records;
    PipelineOptions run_options;
    run_options.records = &records;
    absl::StatusOr<IRModule> result = RunPipeline(*mod, *passes, run_options);
    ASSERT_TRUE(result.ok()) << result.status();
    std::string printed = PrintModule(*result);

    bool expect_change = !absl::StrContains(text, "# EXPECT: no change");
    bool ran = false, changed = false;
    for (const PassRecord& r : records) {
      if (r.pass != pass_name) continue;
      ran = true;
      changed |= r.changed;
    }
    EXPECT_TRUE(ran) << "the pipeline of a case in " << g_dir << " must run " << pass_name;
    EXPECT_EQ(changed, expect_change) << pass_name
                                      << (expect_change ? " did nothing to this case" : " changed this case");

    testing::CheckDirectives(text, printed);
    absl::StatusOr<std::string> expected = ReadFile(base + ".expected.py");
    if (expected.ok() || std::getenv("UPDATE_GOLDENS") != nullptr) {
      if (expected.ok() || !testing::HasDirectives(text)) {
        absl::Status golden = testing::CheckGolden(base + ".expected.py", printed);
        EXPECT_TRUE(golden.ok()) << golden;
      }
    } else {
      EXPECT_TRUE(testing::HasDirectives(text)) << "a case needs CHECK lines or a " << name << ".expected.py";
    }
    // Round trip: the printed result (with its constants) parses back to the same module.
    PrintOptions with_meta;
    with_meta.show_meta = true;
    absl::StatusOr<IRModule> reparsed = ParseTVMScript(PrintModule(*result, with_meta), "result.py");
    ASSERT_TRUE(reparsed.ok()) << reparsed.status();
    absl::Status eq = CheckStructuralEqual(*result, *reparsed);
    EXPECT_TRUE(eq.ok()) << eq;
  }
}

}  // namespace
}  // namespace passes
}  // namespace mlc

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc != 2) {
    std::cerr << "usage: pass_golden_test testdata/passes/<pass>\n";
    return 2;
  }
  mlc::passes::g_dir = argv[1];
  return RUN_ALL_TESTS();
}
