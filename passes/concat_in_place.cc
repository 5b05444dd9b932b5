/*! \file concat_in_place.cc
 *  \brief concat-in-place: a concat whose inputs are computed in the function only for it, and
 *         lie one after another in its result's bytes, becomes R.concat_in_place.
 *
 *    a = conv2d(x, W1)                      a = conv2d(x, W1)     -- written into c's bytes [0, |a|)
 *    b = conv2d(x, W2)                      b = conv2d(x, W2)     -- ... and [|a|, |a| + |b|)
 *    c = concat(a, b, axis=1)               c = concat_in_place(a, b, axis=1)   -- nothing to copy
 *
 *  With every axis before the joined one of extent 1 (batch 1, channel blocks outermost in
 *  NCHW16c), each input is one contiguous range of the result. The memory plan
 *  (codegen/memory_plan.h) then gives each input the place of its range in the result's
 *  storage, so its producer writes it where the concat would have copied it, and the VM's
 *  CONCAT copies only an input it finds elsewhere (none, once planned). Otherwise fuse-ops
 *  fuses the concat into the last branch's kernel, which copies every branch after computing
 *  its own: on GoogLeNet at two threads, 0.35 ms of 9.5 (3.7%), most of it reading what the
 *  other core wrote.
 *
 *  Only where the plan can place every input: each is the result of a call in the function
 *  (not a parameter or a constant), used by this concat alone, given once, of a known static
 *  shape, and each ends on a 64-byte boundary (so the next starts on one, as kernels expect of
 *  their buffers). And only where the concat is a pass of its own: not where an input is a copy
 *  (a slice, a reshape, a transpose: injective) that fuses into the concat's copy, nor where the
 *  concat's one reader is such a copy, into which the concat fuses. Run after alter-op-layout
 *  (which turns channel concats into concats of whole channel blocks) and before fuse-ops.
 */
#include <map>
#include <set>

#include "ir/graph/op.h"
#include "passes/pass.h"
#include "passes/pattern.h"

namespace mlc {
namespace passes {
namespace {

/*! \brief Bytes of a tensor of static shape, or -1. */
int64_t StaticBytes(const relax::TensorStructInfoNode* t) {
  if (t == nullptr || !t->HasKnownShape()) return -1;
  int64_t bytes = (t->dtype.bits() + 7) / 8;
  for (const tir::PrimExpr& d : t->Dims()) {
    const int64_t* v = tir::AsConstInt(d);
    if (v == nullptr || *v < 0) return -1;
    bytes *= *v;
  }
  return bytes;
}

class ConcatInPlacePass : public FunctionPass {
 public:
  std::string name() const override { return "concat-in-place"; }
  std::string description() const override {
    return "Turns a concat whose inputs are computed in the function for it alone and lie one after another in its "
           "result (every axis before the joined one is 1) into R.concat_in_place: the memory plan places each input "
           "in the result's storage, so its producer writes it there and nothing is copied. Run after "
           "alter-op-layout, before fuse-ops.";
  }

 protected:
  bool skip_primitive() const override { return true; }
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& func, relax::BlockBuilder* builder) override {
    std::map<const relax::VarNode*, int> uses = CountVarUses(func);
    // Dataflow variables bound to calls, and the calls that read each variable.
    std::map<const relax::VarNode*, const relax::CallNode*> producer;
    std::map<const relax::VarNode*, std::vector<const relax::CallNode*>> readers;
    std::map<const relax::CallNode*, const relax::VarNode*> bound_to;
    for (const relax::BindingBlock& block : func->body->blocks) {
      if (!block->is_dataflow) continue;
      for (const relax::VarBinding& b : block->bindings) {
        const auto* call = b->value.as<relax::CallNode>();
        if (call == nullptr) continue;
        producer[b->var.get()] = call;
        bound_to[call] = b->var.get();
        for (const relax::Expr& arg : call->args) {
          if (const auto* v = arg.as<relax::VarNode>()) readers[v].push_back(call);
        }
      }
    }
    // A copy (slice, reshape, transpose, layout change) fuses into the concat's own copy, and
    // the concat into a copy that reads it: there the concat costs no pass of its own, and in
    // place it would only keep them apart (ShuffleNet-V2's slice, concat and channel shuffle:
    // 1.7% slower on two threads with the concat in place).
    auto is_copy = [](const relax::CallNode* call) {
      const auto* op = call == nullptr ? nullptr : call->op.as<relax::OpNode>();
      return op != nullptr && op->info().pattern == relax::OpPattern::kInjective;
    };
    const relax::Op concat_in_place = relax::GetOpOrDie("concat_in_place");
    return Rewrite(
        IsOp("concat"), func,
        [&](const relax::Expr& matched, const Match&, relax::BlockBuilder*) -> relax::Expr {
          const auto* call = matched.as<relax::CallNode>();
          if (call->args.size() < 2) return matched;
          auto self = bound_to.find(call);
          if (self == bound_to.end()) return matched;
          const std::vector<const relax::CallNode*>& r = readers[self->second];
          if (r.size() == 1 && is_copy(r.front())) return matched;
          std::set<const relax::VarNode*> seen;
          for (const relax::Expr& arg : call->args) {
            const auto* var = arg.as<relax::VarNode>();
            if (var == nullptr || !producer.count(var) || is_copy(producer[var]) || uses[var] != 1 ||
                !seen.insert(var).second)
              return matched;
            const int64_t bytes = StaticBytes(arg->struct_info().as<relax::TensorStructInfoNode>());
            if (bytes <= 0 || bytes % 64 != 0) return matched;
          }
          // The op's own check decides whether the inputs are contiguous in the result.
          relax::Call joined = relax::MakeCall(concat_in_place, call->args, call->attrs);
          if (!relax::InferCallStructInfo(*joined.get(), nullptr).ok()) return matched;
          return joined;
        },
        builder);
  }
};

MLC_REGISTER_PASS(ConcatInPlacePass);

}  // namespace
}  // namespace passes
}  // namespace mlc
