/*! \file builtin_ops.cc
 *  \brief Operators with meaning to the compiler itself: call_tir, call_dps_packed,
 *         call_pure_packed, alloc_tensor, match_cast.
 *         The IR cannot be used without them, so they are registered with the registry itself.
 */
#include "absl/strings/str_cat.h"
#include "ir/graph/op.h"
#include "ir/tir/prim_expr_ops.h"
#include "support/status_macros.h"

namespace mlc {
namespace relax {
namespace {

/*! \brief call_tir / call_dps_packed: (callee, (args...)) with the output in sinfo_args[0]. */
absl::StatusOr<StructInfo> InferDestinationPassing(const CallNode& call, NodeKind callee_kind,
                                                   const char* callee_desc) {
  if (call.args.size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("expects (", callee_desc, ", (args...)), got ", call.args.size(), " arguments"));
  }
  if (call.args[0]->kind() != callee_kind) {
    return absl::InvalidArgumentError(absl::StrCat("the callee must be ", callee_desc));
  }
  if (call.args[1]->kind() != NodeKind::kTuple) {
    return absl::InvalidArgumentError("the arguments must be given as a tuple");
  }
  if (call.sinfo_args.size() != 1) {
    return absl::InvalidArgumentError("the output struct info (out_sinfo) is required");
  }
  const StructInfo& out = call.sinfo_args[0];
  auto check_tensor = [](const StructInfo& s) -> absl::Status {
    const auto* t = s.as<TensorStructInfoNode>();
    if (t == nullptr || !t->HasKnownShape() || t->dtype.is_void()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "outputs must be tensors of known shape (static or symbolic) and dtype, got ", StructInfoToString(s)));
    }
    return absl::OkStatus();
  };
  if (const auto* tuple = out.as<TupleStructInfoNode>()) {
    for (const StructInfo& f : tuple->fields) {
      if (absl::Status s = check_tensor(f); !s.ok()) return s;
    }
  } else if (absl::Status s = check_tensor(out); !s.ok()) {
    return s;
  }
  return out;
}

/*! \brief call_pure_packed: (callee, (args...)) returning sinfo_args[0], tensors (or a tuple of
 *  them) of known dtype and rank whose shapes may be unknown: the runtime function allocates its
 *  results, whose sizes the values of its inputs decide (NonZero, Unique, NonMaxSuppression).
 *  An R.match_cast after it names the sizes for what follows. */
absl::StatusOr<StructInfo> InferReturning(const CallNode& call) {
  if (call.args.size() != 2 || call.args[0]->kind() != NodeKind::kExternFunc ||
      call.args[1]->kind() != NodeKind::kTuple || call.sinfo_args.size() != 1) {
    return absl::InvalidArgumentError(
        "expects (a runtime function name, (args...)) and the result's struct info (out_sinfo)");
  }
  const StructInfo& out = call.sinfo_args[0];
  auto check_tensor = [](const StructInfo& s) -> absl::Status {
    const auto* t = s.as<TensorStructInfoNode>();
    if (t == nullptr || t->ndim < 0 || t->dtype.is_void()) {
      return absl::InvalidArgumentError(
          absl::StrCat("results must be tensors of known rank and dtype, got ", StructInfoToString(s)));
    }
    return absl::OkStatus();
  };
  if (const auto* tuple = out.as<TupleStructInfoNode>()) {
    for (const StructInfo& f : tuple->fields) MLC_RETURN_IF_ERROR(check_tensor(f));
  } else {
    MLC_RETURN_IF_ERROR(check_tensor(out));
  }
  return out;
}

struct AllocTensorAttrs {
  DataType dtype;
  void VisitAttrs(AttrVisitor* v) { v->Field("dtype", &dtype).Describe("element type"); }
};

absl::StatusOr<StructInfo> InferAllocTensor(const CallNode& call, const AllocTensorAttrs& attrs) {
  const auto* shape = call.args.empty() ? nullptr : call.args[0]->struct_info().as<ShapeStructInfoNode>();
  if (shape == nullptr || !shape->values) {
    return absl::InvalidArgumentError("the shape argument must be a shape of known dimensions, e.g. R.shape([n, 4])");
  }
  return TensorSInfoOfDims(*shape->values, attrs.dtype);
}

/*! \brief R.match_cast(value, target): the value, checked when it runs to have the target's
 *  dtype and shape; the target's shape variables that nothing defined before are bound from it.
 *  Only a cast that could succeed is accepted (a static dimension against a different one, or
 *  another dtype or rank, is refused here rather than failing at every run). */
absl::StatusOr<StructInfo> InferMatchCast(const CallNode& call) {
  if (call.args.size() != 1 || call.sinfo_args.size() != 1) {
    return absl::InvalidArgumentError(
        "expects (value, struct info), e.g. R.match_cast(x, R.Tensor((n, 784), \"float32\"))");
  }
  const StructInfo& target = call.sinfo_args[0];
  const auto* to = target.as<TensorStructInfoNode>();
  if (to == nullptr)
    return absl::UnimplementedError(absl::StrCat("casts to tensors only, not to ", StructInfoToString(target)));
  const auto* from = call.args[0]->struct_info().as<TensorStructInfoNode>();
  if (from == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("the value is ", StructInfoToString(call.args[0]->struct_info()), ", not a tensor"));
  }
  auto never = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("a value of ", StructInfoToString(call.args[0]->struct_info()),
                                                   " never matches ", StructInfoToString(target), ": ", why));
  };
  if (!from->dtype.is_void() && !to->dtype.is_void() && from->dtype != to->dtype) return never("the dtypes differ");
  if (from->ndim >= 0 && to->ndim >= 0 && from->ndim != to->ndim) return never("the ranks differ");
  std::vector<tir::PrimExpr> a = from->Dims(), b = to->Dims();
  if (!a.empty() && !b.empty()) {
    for (size_t i = 0; i < a.size(); ++i) {
      const int64_t* x = tir::AsConstInt(a[i]);
      const int64_t* y = tir::AsConstInt(b[i]);
      if (x != nullptr && y != nullptr && *x != *y)
        return never(absl::StrCat("dimension ", i, " is ", *x, ", not ", *y));
    }
  }
  return target;
}

}  // namespace

const TensorStructInfoNode* MatchCastTarget(const Expr& value) {
  const auto* call = value.as<CallNode>();
  if (call == nullptr || call->sinfo_args.size() != 1) return nullptr;
  const auto* op = call->op.as<OpNode>();
  if (op == nullptr || op->name() != "match_cast") return nullptr;
  return call->sinfo_args[0].as<TensorStructInfoNode>();
}

void RegisterBuiltinOps(OpRegistry& registry) {
  registry.Register("call_tir")
      .set_builtin()
      .set_inputs({"func", "args"})
      .set_description(
          "Calls a PrimFunc in destination-passing style: allocates the output(s) described by out_sinfo, "
          "passes them after the inputs, and returns them")
      .set_infer([](const CallNode& call) {
        return InferDestinationPassing(call, NodeKind::kGlobalVar, "a PrimFunc of the module");
      });
  registry.Register("call_dps_packed")
      .set_builtin()
      .set_inputs({"func", "args"})
      .set_description("Calls a registered runtime function by name in destination-passing style")
      .set_infer([](const CallNode& call) {
        return InferDestinationPassing(call, NodeKind::kExternFunc, "a runtime function name");
      });
  registry.Register("call_pure_packed")
      .set_builtin()
      .set_inputs({"func", "args"})
      .set_description(
          "Calls a registered runtime function by name that allocates and returns its results, whose shapes its "
          "inputs' "
          "values decide (out_sinfo gives their dtypes and ranks); R.match_cast names their sizes")
      .set_infer(InferReturning);
  registry.Register("alloc_tensor")
      .set_builtin()
      .set_inputs({"shape"})
      .set_attrs_type<AllocTensorAttrs>()
      .set_description("Allocates an uninitialized tensor (has an effect: not allowed in dataflow blocks)")
      .set_infer<AllocTensorAttrs>(InferAllocTensor)
      .set_impure();
  registry.Register("match_cast")
      .set_builtin()
      .set_inputs({"value"})
      .set_description(
          "The value, checked at run time to match the struct info given second (dtype, rank, every dimension); shape "
          "variables of that struct info not defined before are bound from the value: R.match_cast(x, R.Tensor((n, m), "
          "\"float32\"))")
      .set_infer(InferMatchCast);
}

}  // namespace relax
}  // namespace mlc
