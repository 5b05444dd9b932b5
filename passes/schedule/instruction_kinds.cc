/*! \file instruction_kinds.cc
 *  \brief The one table of instruction kinds: how each is spelled (parameters, outputs,
 *         decision) and how it is replayed on a schedule. Printing (trace.cc), parsing
 *         (passes/schedule/trace_parser.cc) and ApplyTrace all read it.
 */
#include <functional>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "passes/schedule/schedule.h"

namespace mlc {
namespace tir {
namespace {

/*! \brief Replays one instruction: inputs with handles already in the schedule's ids; returns
 *  the outputs (handles of the schedule). */
using ApplyFn = std::function<absl::StatusOr<std::vector<TraceValue>>(Schedule* sch, const std::vector<TraceValue>& in,
                                                                      const TraceValue& decision)>;

struct Kind {
  InstructionKindInfo info;
  ApplyFn apply;
};

using Outs = absl::StatusOr<std::vector<TraceValue>>;

BlockRV B(const TraceValue& v) { return BlockRV{static_cast<int>(v.i)}; }
LoopRV L(const TraceValue& v) { return LoopRV{static_cast<int>(v.i)}; }

template <typename T, typename F>
Outs Many(absl::StatusOr<std::vector<T>> r, F wrap) {
  if (!r.ok()) return r.status();
  std::vector<TraceValue> out;
  for (const T& x : *r) out.push_back(wrap(x));
  return out;
}

Outs None(const absl::Status& s) {
  if (!s.ok()) return s;
  return std::vector<TraceValue>();
}

Outs OneBlock(const absl::StatusOr<BlockRV>& r) {
  if (!r.ok()) return r.status();
  return std::vector<TraceValue>{TraceValue::Block(*r)};
}

AttrValue ToAttr(const TraceValue& v) {
  switch (v.kind) {
    case TraceValue::kInt: return AttrValue(v.i);
    case TraceValue::kBool: return AttrValue(v.i != 0);
    case TraceValue::kFloat: return AttrValue(v.f);
    case TraceValue::kString: return AttrValue(v.s);
    default: return AttrValue();
  }
}

const std::map<std::string, Kind>& Kinds() {
  using I = InstructionKindInfo;
  static const auto* kinds = new std::map<std::string, Kind>{
      {"get_block",
       {{"get_block", {"name", "func_name"}, {{"func_name", TraceValue::Str("")}}, {}, I::kOneBlock},
        [](Schedule* s, const std::vector<TraceValue>& in, const TraceValue&) {
          return OneBlock(s->GetBlock(in[0].s, in[1].s));
        }}},
      {"get_loops",
       {{"get_loops", {"block"}, {}, {}, I::kLoops},
        [](Schedule* s, const std::vector<TraceValue>& in, const TraceValue&) {
          return Many(s->GetLoops(B(in[0])), [](const LoopRV& l) { return TraceValue::Loop(l); });
        }}},
      {"get_child_blocks",
       {{"get_child_blocks", {"block_or_loop"}, {}, {}, I::kBlocks},
        [](Schedule* s, const std::vector<TraceValue>& in, const TraceValue&) {
          auto wrap = [](const BlockRV& b) { return TraceValue::Block(b); };
          if (in[0].kind == TraceValue::kLoop) return Many(s->GetChildBlocks(L(in[0])), wrap);
          return Many(s->GetChildBlocks(B(in[0])), wrap);
        }}},
      {"get_producers",
       {{"get_producers", {"block"}, {}, {}, I::kBlocks},
        [](Schedule* s, const std::vector<TraceValue>& in, const TraceValue&) {
          return Many(s->GetProducers(B(in[0])), [](const BlockRV& b) { return TraceValue::Block(b); });
        }}},
      {"get_consumers",
       {{"get_consumers", {"block"}, {}, {}, I::kBlocks},
        [](Schedule* s, const std::vector<TraceValue>& in, const TraceValue&) {
          return Many(s->GetConsumers(B(in[0])), [](const BlockRV& b) { return TraceValue::Block(b); });
        }}},
      {"split",
       {{"split",
         {"loop", "factors"},
         {},
         {{"preserve_unit_iters", TraceValue::Bool(true)}, {"disable_predication", TraceValue::Bool(false)}},
         I::kLoops},
        [](Schedule* s, const std::vector<TraceValue>& in, const TraceValue&) -> Outs {
          std::vector<Factor> factors;
          for (const TraceValue& f : in[1].list) {
            if (f.kind == TraceValue::kNone)
              factors.push_back(std::nullopt);
            else if (f.kind == TraceValue::kInt)
              factors.push_back(IntOrRV(f.i));
            else if (f.kind == TraceValue::kExpr)
              factors.push_back(IntOrRV(ExprRV{static_cast<int>(f.i)}));
            else
              return absl::InvalidArgumentError("split: a factor must be an integer, a sampled value or None");
          }
          return Many(s->Split(L(in[0]), factors), [](const LoopRV& l) { return TraceValue::Loop(l); });
        }}},
      {"fuse",
       {{"fuse", {"*loops"}, {}, {}, I::kOneLoop},
        [](Schedule* s, const std::vector<TraceValue>& in, const TraceValue&) -> Outs {
          std::vector<LoopRV> loops;
          for (const TraceValue& l : in[0].list) loops.push_back(L(l));
          absl::StatusOr<LoopRV> r = s->Fuse(loops);
          if (!r.ok()) return r.status();
          return std::vector<TraceValue>{TraceValue::Loop(*r)};
        }}},
      {"reorder",
       {{"reorder", {"*ordered_loops"}, {}, {}, I::kNoOutput},
        [](Schedule* s, const std::vector<TraceValue>& in, const TraceValue&) {
          std::vector<LoopRV> loops;
          for (const TraceValue& l : in[0].list) loops.push_back(L(l));
          return None(s->Reorder(loops));
        }}},
      {"parallel",
       {{"parallel", {"loop"}, {}, {}, I::kNoOutput},
        [](Schedule* s, const std::vector<TraceValue>& in, const TraceValue&) { return None(s->Parallel(L(in[0]))); }}},
      {"vectorize",
       {{"vectorize", {"loop"}, {}, {}, I::kNoOutput},
        [](Schedule* s, const std::vector<TraceValue>& in, const TraceValue&) {
          return None(s->Vectorize(L(in[0])));
        }}},
      {"unroll",
       {{"unroll", {"loop"}, {}, {}, I::kNoOutput},
        [](Schedule* s, const std::vector<TraceValue>& in, const TraceValue&) { return None(s->Unroll(L(in[0]))); }}},
      {"annotate",
       {{"annotate", {"block_or_loop", "ann_key", "ann_val"}, {}, {}, I::kNoOutput},
        [](Schedule* s, const std::vector<TraceValue>& in, const TraceValue&) {
          if (in[0].kind == TraceValue::kLoop) return None(s->Annotate(L(in[0]), in[1].s, ToAttr(in[2])));
          return None(s->Annotate(B(in[0]), in[1].s, ToAttr(in[2])));
        }}},
      {"compute_at",
       {{"compute_at",
         {"block", "loop"},
         {},
         {{"preserve_unit_loops", TraceValue::Bool(false)}, {"index", TraceValue::Int(-1)}},
         I::kNoOutput},
        [](Schedule* s, const std::vector<TraceValue>& in, const TraceValue&) {
          return None(s->ComputeAt(B(in[0]), L(in[1])));
        }}},
      {"reverse_compute_at",
       {{"reverse_compute_at",
         {"block", "loop"},
         {},
         {{"preserve_unit_loops", TraceValue::Bool(false)}, {"index", TraceValue::Int(-1)}},
         I::kNoOutput},
        [](Schedule* s, const std::vector<TraceValue>& in, const TraceValue&) {
          return None(s->ReverseComputeAt(B(in[0]), L(in[1])));
        }}},
      {"compute_inline",
       {{"compute_inline", {"block"}, {}, {}, I::kNoOutput},
        [](Schedule* s, const std::vector<TraceValue>& in, const TraceValue&) {
          return None(s->ComputeInline(B(in[0])));
        }}},
      {"reverse_compute_inline",
       {{"reverse_compute_inline", {"block"}, {}, {}, I::kNoOutput},
        [](Schedule* s, const std::vector<TraceValue>& in, const TraceValue&) {
          return None(s->ReverseComputeInline(B(in[0])));
        }}},
      {"decompose_padding",
       {{"decompose_padding", {"block"}, {}, {}, I::kNoOutput},
        [](Schedule* s, const std::vector<TraceValue>& in, const TraceValue&) {
          return None(s->DecomposePadding(B(in[0])));
        }}},
      {"in_place_epilogue",
       {{"in_place_epilogue", {"block"}, {}, {}, I::kNoOutput},
        [](Schedule* s, const std::vector<TraceValue>& in, const TraceValue&) {
          return None(s->InPlaceEpilogue(B(in[0])));
        }}},
      {"cache_read",
       {{"cache_read", {"block", "read_buffer_index", "storage_scope"}, {}, {}, I::kOneBlock},
        [](Schedule* s, const std::vector<TraceValue>& in, const TraceValue&) {
          return OneBlock(s->CacheRead(B(in[0]), static_cast<int>(in[1].i), in[2].s));
        }}},
      {"cache_write",
       {{"cache_write", {"block", "write_buffer_index", "storage_scope"}, {}, {}, I::kOneBlock},
        [](Schedule* s, const std::vector<TraceValue>& in, const TraceValue&) {
          return OneBlock(s->CacheWrite(B(in[0]), static_cast<int>(in[1].i), in[2].s));
        }}},
      {"decompose_reduction",
       {{"decompose_reduction", {"block", "loop"}, {}, {}, I::kOneBlock},
        [](Schedule* s, const std::vector<TraceValue>& in, const TraceValue&) {
          return OneBlock(s->DecomposeReduction(B(in[0]), L(in[1])));
        }}},
      {"rfactor",
       {{"rfactor", {"loop", "factor_axis"}, {}, {}, I::kOneBlock},
        [](Schedule* s, const std::vector<TraceValue>& in, const TraceValue&) {
          return OneBlock(s->RFactor(L(in[0]), static_cast<int>(in[1].i)));
        }}},
      {"transform_layout",
       {{"transform_layout", {"block", "buffer", "index_map"}, {}, {}, I::kNoOutput},
        [](Schedule* s, const std::vector<TraceValue>& in, const TraceValue&) -> Outs {
          // buffer: ("read" | "write", index)
          if (in[1].kind != TraceValue::kList || in[1].list.size() != 2 || in[1].list[0].kind != TraceValue::kString ||
              in[1].list[1].kind != TraceValue::kInt || in[2].kind != TraceValue::kIndexMap) {
            return absl::InvalidArgumentError(
                "transform_layout: buffer=(\"read\" or \"write\", index), index_map=lambda ...");
          }
          return None(
              s->TransformLayout(B(in[0]), static_cast<int>(in[1].list[1].i), in[1].list[0].s == "write", in[2].map));
        }}},
      {"blockize",
       {{"blockize", {"target"}, {}, {{"preserve_unit_iters", TraceValue::Bool(true)}}, I::kOneBlock},
        [](Schedule* s, const std::vector<TraceValue>& in, const TraceValue&) {
          return OneBlock(s->Blockize(L(in[0])));
        }}},
      {"tensorize",
       {{"tensorize",
         {"block_or_loop", "tensor_intrin"},
         {},
         {{"preserve_unit_iters", TraceValue::Bool(true)}},
         I::kNoOutput},
        [](Schedule* s, const std::vector<TraceValue>& in, const TraceValue&) {
          if (in[0].kind == TraceValue::kLoop) return None(s->Tensorize(L(in[0]), in[1].s));
          return None(s->Tensorize(B(in[0]), in[1].s));
        }}},
      {"sample_perfect_tile",
       {{"sample_perfect_tile", {"loop", "n", "max_innermost_factor"}, {}, {}, I::kExprs, /*has_decision=*/true},
        [](Schedule* s, const std::vector<TraceValue>& in, const TraceValue& decision) {
          std::optional<std::vector<int64_t>> d;
          if (decision.kind == TraceValue::kList) {
            d.emplace();
            for (const TraceValue& x : decision.list) d->push_back(x.i);
          }
          return Many(s->SamplePerfectTile(L(in[0]), static_cast<int>(in[1].i), in[2].i, d),
                      [](const ExprRV& e) { return TraceValue::Expr(e); });
        }}},
      {"sample_categorical",
       {{"sample_categorical", {"candidates", "probs"}, {}, {}, I::kOneExpr, /*has_decision=*/true},
        [](Schedule* s, const std::vector<TraceValue>& in, const TraceValue& decision) -> Outs {
          std::vector<int64_t> cands;
          std::vector<double> probs;
          for (const TraceValue& c : in[0].list) cands.push_back(c.i);
          for (const TraceValue& p : in[1].list)
            probs.push_back(p.kind == TraceValue::kInt ? static_cast<double>(p.i) : p.f);
          std::optional<int64_t> d;
          if (decision.kind == TraceValue::kInt) d = decision.i;
          absl::StatusOr<ExprRV> r = s->SampleCategorical(cands, probs, d);
          if (!r.ok()) return r.status();
          return std::vector<TraceValue>{TraceValue::Expr(*r)};
        }}},
      {"sample_compute_location",
       {{"sample_compute_location", {"block"}, {}, {}, I::kOneLoop, /*has_decision=*/true},
        [](Schedule* s, const std::vector<TraceValue>& in, const TraceValue& decision) -> Outs {
          std::optional<int64_t> d;
          if (decision.kind == TraceValue::kInt) d = decision.i;
          absl::StatusOr<LoopRV> r = s->SampleComputeLocation(B(in[0]), d);
          if (!r.ok()) return r.status();
          return std::vector<TraceValue>{TraceValue::Loop(*r)};
        }}},
  };
  return *kinds;
}

/*! \brief A trace value with its handles mapped to the schedule's. */
absl::StatusOr<TraceValue> MapHandles(const TraceValue& v, const std::map<std::pair<int, int64_t>, TraceValue>& env) {
  if (v.is_rv()) {
    auto it = env.find({v.kind, v.i});
    if (it == env.end()) return absl::InvalidArgumentError("a handle is used before an instruction defines it");
    return it->second;
  }
  if (v.kind == TraceValue::kList) {
    TraceValue out = v;
    for (TraceValue& x : out.list) {
      absl::StatusOr<TraceValue> m = MapHandles(x, env);
      if (!m.ok()) return m;
      x = *m;
    }
    return out;
  }
  return v;
}

}  // namespace

const InstructionKindInfo* FindInstructionKind(const std::string& name) {
  auto it = Kinds().find(name);
  return it == Kinds().end() ? nullptr : &it->second.info;
}

std::vector<std::string> InstructionKindNames() {
  std::vector<std::string> out;
  for (const auto& [n, k] : Kinds()) out.push_back(n);
  return out;
}

absl::Status ApplyTrace(const Trace& trace, Schedule* sch) {
  std::map<std::pair<int, int64_t>, TraceValue> env;
  int index = 0;
  for (const Instruction& inst : trace.instructions()) {
    // "line 6 (sch.parallel)" for a parsed trace, else "instruction 3 (sch.parallel)", from 1.
    std::string where = inst.line > 0 ? absl::StrCat("line ", inst.line, " (sch.", inst.kind, ")")
                                      : absl::StrCat("instruction ", index + 1, " (sch.", inst.kind, ")");
    auto it = Kinds().find(inst.kind);
    if (it == Kinds().end()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": unknown instruction (known: ", absl::StrJoin(InstructionKindNames(), ", "), ")"));
    }
    const InstructionKindInfo& info = it->second.info;
    if (inst.inputs.size() != info.params.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": takes ", info.params.size(), " arguments, got ", inst.inputs.size()));
    }
    std::vector<TraceValue> inputs;
    for (const TraceValue& v : inst.inputs) {
      absl::StatusOr<TraceValue> m = MapHandles(v, env);
      if (!m.ok()) return absl::InvalidArgumentError(absl::StrCat(where, ": ", m.status().message()));
      inputs.push_back(*m);
    }
    Outs outs = it->second.apply(sch, inputs, inst.decision);
    if (!outs.ok()) {
      return absl::Status(outs.status().code(), absl::StrCat(where, ": ", outs.status().message()));
    }
    if (!inst.outputs.empty() && outs->size() != inst.outputs.size()) {
      return absl::FailedPreconditionError(absl::StrCat(where, ": the trace names ", inst.outputs.size(),
                                                        " results, the primitive gives ", outs->size()));
    }
    for (size_t i = 0; i < inst.outputs.size(); ++i) env[{inst.outputs[i].kind, inst.outputs[i].i}] = (*outs)[i];
    ++index;
  }
  return absl::OkStatus();
}

}  // namespace tir
}  // namespace mlc
