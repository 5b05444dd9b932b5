/*! \file builtin.cc
 *  \brief Operators with meaning to the compiler itself: call_tir, call_dps_packed, alloc_tensor.
 *         The IR cannot be used without them, so they are registered with the registry itself.
 */
#include "absl/strings/str_cat.h"
#include "ir/op.h"

namespace mlc {
namespace relax {
namespace {

/*! \brief call_tir / call_dps_packed: (callee, (args...)) with the output in sinfo_args[0]. */
absl::StatusOr<StructInfo> InferDestinationPassing(const CallNode& call, NodeKind callee_kind,
                                                   const char* callee_desc) {
  if (call.args.size() != 2) {
    return absl::InvalidArgumentError(absl::StrCat("expects (", callee_desc, ", (args...)), got ", call.args.size(),
                                                   " arguments"));
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
      return absl::InvalidArgumentError(
          absl::StrCat("outputs must be tensors of known shape (static or symbolic) and dtype, got ", StructInfoToString(s)));
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

struct AllocTensorAttrs {
  DataType dtype;
  void VisitAttrs(AttrVisitor* v) { v->Field("dtype", &dtype).Describe("element type"); }
};

absl::StatusOr<StructInfo> InferAllocTensor(const CallNode& call, const AllocTensorAttrs& attrs) {
  const auto* shape = call.args.empty() ? nullptr : call.args[0].as<ShapeExprNode>();
  if (shape == nullptr) return absl::InvalidArgumentError("the shape argument must be a literal shape");
  return TensorSInfo(shape->values, attrs.dtype);
}

}  // namespace

void RegisterBuiltinOps(OpRegistry& registry) {
  registry.Register("call_tir")
      .set_inputs({"func", "args"})
      .set_description(
          "Calls a PrimFunc in destination-passing style: allocates the output(s) described by out_sinfo, "
          "passes them after the inputs, and returns them")
      .set_infer([](const CallNode& call) {
        return InferDestinationPassing(call, NodeKind::kGlobalVar, "a PrimFunc of the module");
      });
  registry.Register("call_dps_packed")
      .set_inputs({"func", "args"})
      .set_description("Calls a registered runtime function by name in destination-passing style")
      .set_infer([](const CallNode& call) {
        return InferDestinationPassing(call, NodeKind::kExternFunc, "a runtime function name");
      });
  registry.Register("alloc_tensor")
      .set_inputs({"shape"})
      .set_attrs_type<AllocTensorAttrs>()
      .set_description("Allocates an uninitialized tensor (has an effect: not allowed in dataflow blocks)")
      .set_infer<AllocTensorAttrs>(InferAllocTensor)
      .set_impure();
}

}  // namespace relax
}  // namespace mlc
