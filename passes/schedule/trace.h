/*! \file trace.h
 *  \brief Traces: the record of a schedule, one instruction per applied primitive. A trace
 *         prints in TVM's Python spelling, which is also an input format (the parser is
 *         passes/schedule/trace_parser.h), serializes to Protobuf, and replays on a module
 *         (ApplyTrace, schedule.h); the sampling instructions carry their decisions, and
 *         replaying with other decisions is how a search explores.
 *
 *    b0 = sch.get_block(name="Y", func_name="mm_relu")
 *    l1, l2, l3 = sch.get_loops(block=b0)
 *    l4, l5 = sch.split(loop=l2, factors=[None, 4])
 *    sch.reorder(l4, l3, l5)
 */
#ifndef MLC_PASSES_SCHEDULE_TRACE_H_
#define MLC_PASSES_SCHEDULE_TRACE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/tir/prim_expr.h"

namespace mlc {
namespace tir {

/*! \brief Handles to what a schedule works on; the id indexes the schedule's symbol table. */
struct BlockRV {
  int id = -1;
};
struct LoopRV {
  int id = -1;
};
struct ExprRV {
  int id = -1;
};

/*! \brief A layout transformation: new indices from old ones (i, j -> i // 16, j, i % 16),
 *         printed as a Python lambda. */
struct IndexMap {
  std::vector<Var> inputs;
  std::vector<PrimExpr> outputs;
};

/*! \brief An argument, output or decision of an instruction. */
struct TraceValue {
  enum Kind { kNone, kInt, kFloat, kString, kBool, kBlock, kLoop, kExpr, kList, kIndexMap };
  Kind kind = kNone;
  int64_t i = 0;  // kInt, kBool; the handle's id for kBlock / kLoop / kExpr
  double f = 0;
  std::string s;                 // kString
  std::vector<TraceValue> list;  // kList
  IndexMap map;                  // kIndexMap

  static TraceValue None() { return TraceValue(); }
  static TraceValue Int(int64_t v);
  static TraceValue Float(double v);
  static TraceValue Bool(bool v);
  static TraceValue Str(std::string v);
  static TraceValue Block(const BlockRV& rv);
  static TraceValue Loop(const LoopRV& rv);
  static TraceValue Expr(const ExprRV& rv);
  static TraceValue List(std::vector<TraceValue> v);
  static TraceValue Map(IndexMap m);
  bool is_rv() const { return kind == kBlock || kind == kLoop || kind == kExpr; }
};

/*! \brief One applied primitive: its kind ("split"), its arguments in the order of the kind's
 *         parameters, the handles it defined, and for sampling its decision. */
struct Instruction {
  std::string kind;
  std::vector<TraceValue> inputs;
  std::vector<TraceValue> outputs;
  TraceValue decision;
  int line = 0;  // where a parsed trace spelled it (errors name it); 0 when recorded
};

class Trace {
 public:
  const std::vector<Instruction>& instructions() const { return instructions_; }
  void Append(Instruction inst) { instructions_.push_back(std::move(inst)); }
  bool empty() const { return instructions_.empty(); }

  /*! \brief The Python text: `sch = tir.Schedule(mod)`-style lines, handles named b0, l1, v2... */
  std::string AsPython() const;
  /*! \brief The same trace with other decisions (instruction index -> decision). */
  Trace WithDecision(size_t index, TraceValue decision) const;

  /*! \brief Protobuf bytes (passes/schedule/trace.proto), and back; a damaged or foreign file
   *         is an error naming what is wrong. */
  std::string Serialize() const;
  static absl::StatusOr<Trace> Deserialize(const std::string& bytes, const std::string& source);

 private:
  std::vector<Instruction> instructions_;
};

/*! \brief How an instruction kind is spelled: its parameters (keyword names, in order) and
 *         what it returns. One table (instruction_kinds.cc) serves printing, parsing and
 *         replaying. */
struct InstructionKindInfo {
  std::string name;
  std::vector<std::string> params;
  /*! \brief Optional parameters with their default (left out when printing at that value). */
  std::vector<std::pair<std::string, TraceValue>> defaults;
  /*! \brief Keywords of TVM's API this implementation has no choice about, with the one value
   *         it implements (accepted when parsing at that value, else an error). */
  std::vector<std::pair<std::string, TraceValue>> fixed;
  enum Outputs { kNoOutput, kOneBlock, kOneLoop, kOneExpr, kLoops, kBlocks, kExprs } outputs = kNoOutput;
  bool has_decision = false;
};
const InstructionKindInfo* FindInstructionKind(const std::string& name);
std::vector<std::string> InstructionKindNames();

}  // namespace tir
}  // namespace mlc

#endif  // MLC_PASSES_SCHEDULE_TRACE_H_
