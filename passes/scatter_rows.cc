/*! \file scatter_rows.cc
 *  \brief scatter-rows: a ScatterElements along axis 0 whose indices are one row index
 *         broadcast over every other axis, scatter_elements(data, broadcast_to(reshape(i,
 *         [n, 1, ...]), [n, ...]), updates) with updates [n, data's other axes], becomes
 *         scatter_nd(data, reshape(i, [n, 1]), updates): whole rows written at i, the index read
 *         once per row instead of once per element. It is how PyTorch exports
 *         `out.scatter(0, idx.view(-1, 1, 1, 1).expand_as(x), x)`, torchvision's
 *         MultiScaleRoIAlign merging its levels: Faster R-CNN read a 1.9 M-element int64 index
 *         (15 MB) per level for 150 rows.
 */
#include <string>
#include <vector>

#include "ir/graph/expr_functor.h"
#include "ir/graph/op.h"
#include "passes/pass.h"
#include "passes/pattern.h"

namespace mlc {
namespace passes {
namespace {

/*! \brief The int64 values of a constant, or empty. */
std::vector<int64_t> ConstantInts(const relax::Expr& e) {
  const auto* c = e.as<relax::ConstantNode>();
  if (c == nullptr || c->data.dtype() != DataType::Int64()) return {};
  const int64_t* p = c->data.data_as<int64_t>();
  return std::vector<int64_t>(p, p + c->data.NumElements());
}

class ScatterRowsRewriter : public relax::ExprMutator {
 public:
  using relax::ExprMutator::ExprMutator;

 protected:
  relax::Expr VisitBindingValue_(const relax::VarBindingNode* binding, const relax::CallNode* call) override {
    relax::Expr value = relax::ExprMutator::VisitBindingValue_(binding, call);
    const relax::TupleNode* tuple = PackedCallOperands(value, "mlc.scatter_elements");
    if (tuple == nullptr || tuple->fields.size() != 4) return value;
    const relax::Expr &data = tuple->fields[0], &indices = tuple->fields[1], &updates = tuple->fields[2];
    const std::vector<int64_t> params = ConstantInts(tuple->fields[3]);  // (axis, reduction)
    if (params.size() != 2 || params[0] != 0) return value;
    Pattern row = Wildcard();
    Pattern broadcast = IsOp("broadcast_to")({IsOp("reshape")({row})});
    LookupFn lookup = [this](const relax::Var& v) { return LookupBinding(v); };
    // The indices are a variable bound to the broadcast (MatchPattern's root must be the call).
    const auto* var = indices.as<relax::VarNode>();
    std::optional<relax::Expr> bound = var == nullptr ? std::optional<relax::Expr>(indices) : lookup(relax::Var(var));
    std::optional<Match> m = bound ? MatchPattern(broadcast, *bound, lookup) : std::nullopt;
    if (!m) return value;
    const relax::Expr index = (*m)[row];
    // i [n] -> [n, 1, ..., 1] -> [n, d1, ..., dk] = updates' shape, whose d1..dk are data's.
    const std::vector<tir::PrimExpr> id = DimsOf(index), bd = DimsOf(indices), ud = DimsOf(updates), dd = DimsOf(data);
    const auto* it = index->struct_info().as<relax::TensorStructInfoNode>();
    if (it == nullptr || it->dtype != DataType::Int64() || id.size() != 1 || bd.size() != dd.size() ||
        ud.size() != dd.size() || dd.empty()) {
      return value;
    }
    for (size_t a = 0; a < dd.size(); ++a) {
      if (!SameDim(bd[a], ud[a]) || (a > 0 && !SameDim(ud[a], dd[a]))) return value;
    }
    if (!SameDim(id[0], bd[0])) return value;
    relax::Expr column =
        relax::MakeCall(relax::GetOpOrDie("reshape"), {index}, {},
                        {relax::TensorSInfoOfDims({id[0], tir::IntImm(DataType::Int64(), 1)}, DataType::Int64())});
    TensorData nd_params(DataType::Int64(), {1},
                         std::string(reinterpret_cast<const char*>(&params[1]), sizeof(int64_t)));  // (reduction)
    return CallDpsPacked("mlc.scatter_nd", {data, column, updates, relax::MakeConstant(std::move(nd_params))}, value);
  }
};

class ScatterRowsPass : public FunctionPass {
 public:
  std::string name() const override { return "scatter-rows"; }
  std::string description() const override {
    return "Rewrites mlc.scatter_elements along axis 0 whose indices are a row index broadcast over the other axes "
           "(broadcast_to(reshape(i, [n, 1, ...]))), with updates of data's other axes, as mlc.scatter_nd of whole "
           "rows at reshape(i, [n, 1]): the index read once per row (PyTorch's scatter of expanded indices, "
           "torchvision's RoIAlign levels merged). Run after the importer, before fuse-ops.";
  }

 protected:
  bool skip_primitive() const override { return true; }
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& func, relax::BlockBuilder* builder) override {
    ScatterRowsRewriter rewriter(builder);
    return rewriter.VisitFunction(func);
  }
};

MLC_REGISTER_PASS(ScatterRowsPass);

}  // namespace
}  // namespace passes
}  // namespace mlc
