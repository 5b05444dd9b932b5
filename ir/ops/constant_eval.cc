/*! \file constant_eval.cc */
#include "ir/ops/constant_eval.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ir/graph/block_builder.h"
#include "ir/graph/op.h"
#include "ir/tir/interpreter.h"
#include "support/resource_limits.h"

namespace mlc {
namespace relax {
namespace {

// Steps per element of the inputs and the result the fold may take beyond max_fold_steps: a
// data movement (transpose, layout change, cast) takes two per element (a loop iteration and
// a store), fused elementwise chains a few more.
constexpr int64_t kFoldStepsPerElement = 4;

}  // namespace

absl::StatusOr<TensorData> EvaluateConstantCall(const CallNode& call, const IRModule* mod, int64_t max_elements) {
  const auto* callee = call.op.as<OpNode>();
  if (callee == nullptr || !callee->info().pure) return absl::NotFoundError("not a pure operator call");
  const auto* out = call.struct_info().as<TensorStructInfoNode>();
  if (out == nullptr || !out->shape || out->dtype.is_void())
    return absl::NotFoundError("the result is not a tensor of static shape");
  std::vector<Expr> inputs;
  tir::PrimFunc prim;
  if (callee->name() == "call_tir") {
    if (mod == nullptr) return absl::NotFoundError("call_tir without a module");
    inputs = call.args[1].as<TupleNode>()->fields;
    prim = mod->LookupPrimFunc(call.args[0].as<GlobalVarNode>()->name);
  } else {
    inputs = call.args;
    if (!callee->info().legalize) return absl::NotFoundError(absl::StrCat(callee->name(), " has no legalization"));
    for (const Expr& a : inputs) {
      if (a->kind() != NodeKind::kConstant) return absl::NotFoundError("an argument is not a constant");
    }
    BlockBuilder scratch;
    absl::StatusOr<Expr> lowered = callee->info().legalize(&scratch, call);
    if (!lowered.ok()) return lowered.status();
    const auto* ct = lowered->as<CallNode>();
    if (ct == nullptr || ct->args.empty() || ct->args[0].as<GlobalVarNode>() == nullptr) {
      return absl::NotFoundError("the legalization is not one call_tir");
    }
    prim = scratch.module().LookupPrimFunc(ct->args[0].as<GlobalVarNode>()->name);
  }
  if (!prim.defined()) return absl::NotFoundError("the callee is not a PrimFunc");
  std::vector<TensorData> tensors;
  int64_t largest_input = 0, elements_moved = NumElements(*out->shape);
  for (const Expr& a : inputs) {
    if (a->kind() != NodeKind::kConstant) return absl::NotFoundError("an argument is not a constant");
    tensors.push_back(a.as<ConstantNode>()->data);
    largest_input = std::max(largest_input, tensors.back().NumElements());
    elements_moved += tensors.back().NumElements();
  }
  // A result no larger than an input (a weight transposed, reshaped, cast, scaled) never grows
  // the constants, whatever its size; a larger one (a broadcast) is bounded by max_elements.
  if (NumElements(*out->shape) > std::max(max_elements, largest_input)) {
    return absl::NotFoundError(absl::StrCat("the result has more than ", max_elements, " elements"));
  }
  tensors.emplace_back(out->dtype, *out->shape);
  std::vector<TensorData*> ptrs;
  for (TensorData& t : tensors) ptrs.push_back(&t);
  // The step budget: max_fold_steps for the work, plus a few steps per element read and
  // written, so moving a large weight once folds and work far beyond its data does not.
  int64_t max_steps = GetResourceLimits().max_fold_steps + kFoldStepsPerElement * elements_moved;
  if (absl::Status s = tir::InterpretPrimFunc(prim, ptrs, max_steps); !s.ok()) return s;
  return tensors.back();
}

}  // namespace relax
}  // namespace mlc
