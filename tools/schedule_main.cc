/*! \file schedule_main.cc
 *  \brief //tools:schedule — applies a schedule trace to a module.
 *
 *    schedule --in m.irpb --trace s.py --out m.sched.irpb [--trace_out applied.pb] [--print_trace]
 *
 *  The trace is TVM's Python spelling (several PrimFuncs in one file: each get_block names its
 *  func_name) or its Protobuf form. The result is verified before it is written; on any error
 *  nothing is written and the message names the instruction and why the primitive refused.
 */
#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "ir/graph/serialize.h"
#include "ir/graph/verifier.h"
#include "ir/target/target.h"
#include "passes/apply_trace.h"
#include "support/file_util.h"
#include "support/resource_limit_flag.h"

ABSL_FLAG(std::string, in, "", "module to schedule (*.irpb)");
ABSL_FLAG(std::string, trace, "", "trace to apply (*.py in TVM's spelling, else Protobuf)");
ABSL_FLAG(std::string, out, "", "scheduled module to write (*.irpb)");
ABSL_FLAG(std::string, target, "",
          "target the schedule is for (llvm -mcpu=native, x86-64-v3, ...); recorded in the module");
ABSL_FLAG(std::string, trace_out, "", "also write the applied trace (Protobuf; .py: TVM's spelling)");
ABSL_FLAG(bool, print_trace, false, "print the applied trace in TVM's spelling");

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("Applies a schedule trace.\n  schedule --in m.irpb --trace s.py --out m.sched.irpb");
  absl::ParseCommandLine(argc, argv);
  mlc::EnterUserDirectory();  // relative paths are the user's under ./bazelw run
  if (absl::Status s = mlc::ApplyResourceLimitFlag(); !s.ok()) {
    std::cerr << "schedule: " << s.message() << "\n";
    return 2;
  }
  std::string in = absl::GetFlag(FLAGS_in), trace_path = absl::GetFlag(FLAGS_trace), out = absl::GetFlag(FLAGS_out);
  if (in.empty() || trace_path.empty() || out.empty()) {
    std::cerr << "schedule: --in, --trace and --out are required\n";
    return 2;
  }
  absl::StatusOr<mlc::tir::Trace> trace = mlc::passes::ReadTraceFile(trace_path);
  if (!trace.ok()) {
    std::cerr << "schedule: " << trace.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<mlc::IRModule> mod = mlc::LoadModule(in);
  if (!mod.ok()) {
    std::cerr << "schedule: " << mod.status().message() << "\n";
    return 1;
  }
  if (absl::Status s = mlc::RecordTargetFlag(&mod->mutable_attrs(), absl::GetFlag(FLAGS_target)); !s.ok()) {
    std::cerr << "schedule: " << in << ": " << s.message() << "\n";
    return 1;
  }
  mlc::tir::Trace applied;
  absl::StatusOr<mlc::IRModule> result = mlc::passes::ApplyTraceToModule(*mod, *trace, &applied);
  if (!result.ok()) {
    std::cerr << "schedule: " << trace_path << ": " << result.status().message() << "\n";
    return 1;
  }
  if (absl::Status s = mlc::VerifyModule(*result); !s.ok()) {
    std::cerr << "schedule: the scheduled module is ill-formed: " << s.message() << "\n";
    return 1;
  }
  if (absl::GetFlag(FLAGS_print_trace)) std::cout << applied.AsPython();
  std::string trace_out = absl::GetFlag(FLAGS_trace_out);
  if (!trace_out.empty()) {
    bool python = trace_out.size() > 3 && trace_out.substr(trace_out.size() - 3) == ".py";
    absl::Status s = mlc::WriteFileAtomically(trace_out, python ? applied.AsPython() : applied.Serialize());
    if (!s.ok()) {
      std::cerr << "schedule: " << s.message() << "\n";
      return 1;
    }
  }
  if (absl::Status s = mlc::SaveModule(*result, out); !s.ok()) {
    std::cerr << "schedule: " << s.message() << "\n";
    return 1;
  }
  return 0;
}
