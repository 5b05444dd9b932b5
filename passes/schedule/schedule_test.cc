/*! \file schedule_test.cc
 *  \brief Every schedule case of testdata/schedule against its golden, and numerically: the
 *         scheduled PrimFuncs, built and run, match the unscheduled ones on random inputs.
 *
 *  A case is `<case>.trace.py` (a trace in TVM's Python spelling) applied to the module
 *  `<case>.py`, or to the module a `# MODULE: <file>` line names. Then:
 *   - `# ERROR: text`: the trace must be refused with a message containing the text;
 *   - otherwise the result must print as `<case>.expected.py`, parse back to an equal module,
 *     replay to the same module from its printed trace and from its Protobuf form, and compute
 *     what the unscheduled module computes (float32 inputs in [-1, 1), rtol 1e-4).
 */

#include "passes/schedule/schedule.h"

#include <algorithm>
#include <random>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "frontend/tvmscript.h"
#include "gtest/gtest.h"
#include "ir/graph/op.h"
#include "ir/graph/printer.h"
#include "ir/graph/structural_equal.h"
#include "ir/testing/golden.h"
#include "passes/schedule/trace_parser.h"
#include "support/case_files.h"
#include "support/file_util.h"
#include "tools/testing/kernel_harness.h"

namespace mlc {
namespace {

using testing_util::Compile;
using testing_util::F;
using vm::NDArray;
using vm::Value;

constexpr char kDir[] = "testdata/schedule";

/*! \brief Every PrimFunc of `before` that `after` changed computes the same on random inputs. */
void CheckSameResults(const IRModule& before, const IRModule& after) {
  for (const auto& [name, f] : before.functions()) {
    tir::PrimFunc original = f.as_ref<tir::PrimFunc>();
    tir::PrimFunc scheduled = after.LookupPrimFunc(name);
    if (!original.defined() || !scheduled.defined() || original.same_as(scheduled)) continue;
    SCOPED_TRACE(name);
    absl::StatusOr<IRModule> original_main = testing_util::WithMainCalling(original, name);
    ASSERT_TRUE(original_main.ok()) << original_main.status();
    absl::StatusOr<IRModule> scheduled_main = testing_util::WithMainCalling(scheduled, name);
    ASSERT_TRUE(scheduled_main.ok()) << scheduled_main.status();
    absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> a = Compile(*original_main);
    ASSERT_TRUE(a.ok()) << a.status();
    absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> b = Compile(*scheduled_main);
    ASSERT_TRUE(b.ok()) << b.status();
    std::mt19937 rng(7);
    std::vector<Value> args;
    for (size_t i = 0; i + 1 < original->params.size(); ++i) {
      std::vector<int64_t> shape;
      for (const tir::PrimExpr& d : original->params[i]->shape) shape.push_back(*tir::AsConstInt(d));
      args.push_back(testing_util::Random(shape, &rng));
    }
    absl::StatusOr<Value> want = (*a)->Invoke("main", args);
    ASSERT_TRUE(want.ok()) << want.status();
    absl::StatusOr<Value> got = (*b)->Invoke("main", args);
    ASSERT_TRUE(got.ok()) << got.status();
    const NDArray& w = want->tensor();
    std::vector<double> expected(F(w), F(w) + w.NumElements());
    testing_util::ExpectClose(got->tensor(), expected, 1e-4, 1e-5);
  }
}

TEST(ScheduleCases, EachCaseMatchesItsGoldenReplaysAndComputesTheSame) {
  std::vector<std::string> cases = CaseNames(kDir, ".trace.py");
  ASSERT_GE(cases.size(), 20u);
  for (const std::string& name : cases) {
    SCOPED_TRACE(name);
    std::string trace_path = absl::StrCat(kDir, "/", name, ".trace.py");
    std::string trace_text = *ReadFile(trace_path);
    std::string module_file = CaseDirective(trace_text, "MODULE");
    std::string module_path = absl::StrCat(kDir, "/", module_file.empty() ? name + ".py" : module_file);
    absl::StatusOr<std::string> module_text = ReadFile(module_path);
    ASSERT_TRUE(module_text.ok()) << module_path;
    absl::StatusOr<IRModule> mod = ParseTVMScript(*module_text, module_path);
    ASSERT_TRUE(mod.ok()) << mod.status();
    absl::StatusOr<tir::Trace> trace = script::ParseTrace(trace_text, trace_path);
    ASSERT_TRUE(trace.ok()) << trace.status();
    tir::Schedule sch(*mod);
    absl::Status applied = tir::ApplyTrace(*trace, &sch);
    std::string error = CaseDirective(trace_text, "ERROR");
    if (!error.empty()) {
      ASSERT_FALSE(applied.ok()) << "the trace should be refused";
      EXPECT_TRUE(absl::StrContains(applied.message(), error))
          << "message: " << applied.message() << "\nexpected: " << error;
      continue;
    }
    ASSERT_TRUE(applied.ok()) << applied;
    IRModule result = sch.mod();
    absl::Status golden = testing::CheckGolden(absl::StrCat(kDir, "/", name, ".expected.py"), PrintModule(result));
    EXPECT_TRUE(golden.ok()) << golden;
    // The printed module parses back to the same module.
    absl::StatusOr<IRModule> reparsed = ParseTVMScript(PrintModule(result), "scheduled.py");
    ASSERT_TRUE(reparsed.ok()) << reparsed.status() << "\n" << PrintModule(result);
    absl::Status eq = CheckStructuralEqual(result, *reparsed);
    EXPECT_TRUE(eq.ok()) << eq;
    // The applied trace replays to the same module, from its text and from its Protobuf form.
    absl::StatusOr<tir::Trace> printed = script::ParseTrace(sch.trace().AsPython(), "printed.py");
    ASSERT_TRUE(printed.ok()) << printed.status() << "\n" << sch.trace().AsPython();
    tir::Schedule replay(*mod);
    ASSERT_TRUE(tir::ApplyTrace(*printed, &replay).ok());
    EXPECT_TRUE(CheckStructuralEqual(result, replay.mod()).ok()) << "replaying the printed trace differs";
    EXPECT_EQ(replay.trace().AsPython(), sch.trace().AsPython());
    absl::StatusOr<tir::Trace> from_proto = tir::Trace::Deserialize(sch.trace().Serialize(), "trace.pb");
    ASSERT_TRUE(from_proto.ok()) << from_proto.status();
    tir::Schedule replay2(*mod);
    ASSERT_TRUE(tir::ApplyTrace(*from_proto, &replay2).ok());
    EXPECT_TRUE(CheckStructuralEqual(result, replay2.mod()).ok()) << "replaying the Protobuf trace differs";
    CheckSameResults(*mod, result);
  }
}

}  // namespace
}  // namespace mlc
