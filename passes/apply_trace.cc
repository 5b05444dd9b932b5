/*! \file apply_trace.cc
 *  \brief apply-trace{file=...}: the schedule stage as a pass, so pipelines and the Bazel rules
 *         can schedule.
 */
#include "passes/apply_trace.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "passes/pass.h"
#include "passes/schedule/schedule.h"
#include "passes/schedule/trace_parser.h"
#include "support/file_util.h"

namespace mlc {
namespace passes {

absl::StatusOr<tir::Trace> ReadTraceFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  if (absl::EndsWith(path, ".py")) return script::ParseTrace(*text, path);
  return tir::Trace::Deserialize(*text, path);
}

absl::StatusOr<IRModule> ApplyTraceToModule(const IRModule& mod, const tir::Trace& trace, tir::Trace* applied) {
  tir::Schedule sch(mod);
  if (absl::Status s = tir::ApplyTrace(trace, &sch); !s.ok()) return s;
  if (applied != nullptr) *applied = sch.trace();
  return sch.mod();
}

namespace {

class ApplyTracePass : public Pass {
 public:
  std::string name() const override { return "apply-trace"; }
  std::string description() const override {
    return "Applies a schedule trace (TVM's Python spelling, *.py, or its Protobuf form) to the module's PrimFuncs, as "
           "//tools:schedule does.";
  }
  absl::StatusOr<IRModule> Run(const IRModule& mod) override {
    if (file_->empty()) return absl::InvalidArgumentError("apply-trace needs file=<trace>");
    absl::StatusOr<tir::Trace> trace = ReadTraceFile(*file_);
    if (!trace.ok()) return trace.status();
    absl::StatusOr<IRModule> out = ApplyTraceToModule(mod, *trace);
    if (!out.ok()) return absl::Status(out.status().code(), absl::StrCat(*file_, ": ", out.status().message()));
    return out;
  }

 private:
  Option<std::string> file_{this, "file", "", "the trace to apply (required)"};
};

MLC_REGISTER_PASS(ApplyTracePass);

}  // namespace
}  // namespace passes
}  // namespace mlc
