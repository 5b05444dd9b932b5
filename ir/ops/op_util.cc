/*! \file op_util.cc */
#include "ir/ops/op_util.h"

#include "absl/strings/str_cat.h"

namespace mlc {
namespace relax {

absl::StatusOr<const TensorStructInfoNode*> TensorArg(const CallNode& call, int index) {
  const OpNode* op = call.op.as<OpNode>();
  std::string arg_name = absl::StrCat("argument ", index);
  if (op != nullptr && index < static_cast<int>(op->info().arg_names.size())) {
    arg_name = absl::StrCat("argument ", index, " (", op->info().arg_names[index], ")");
  }
  if (index >= static_cast<int>(call.args.size())) {
    return absl::InvalidArgumentError(absl::StrCat(arg_name, " is missing"));
  }
  const auto* t = call.args[index]->struct_info().as<TensorStructInfoNode>();
  if (t == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(arg_name, " must be a tensor, got ", StructInfoToString(call.args[index]->struct_info())));
  }
  return t;
}

absl::StatusOr<std::vector<int64_t>> KnownDims(const TensorStructInfoNode* t, const std::vector<int>& need_static,
                                               const std::string& what) {
  return KnownValues(t->Dims(), need_static, what);
}

FLegalize LegalizeTE(std::string name, TeRule rule) {
  return [name, rule](BlockBuilder* bb, const CallNode& call) { return te::CallTE(bb, name, rule, call.args); };
}

}  // namespace relax
}  // namespace mlc
