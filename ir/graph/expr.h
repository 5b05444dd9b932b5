/*! \file expr.h
 *  \brief Graph-level (Relax-like) expressions and bindings.
 *
 *  A function body is in normal form: SeqExpr { BindingBlock* ; body }, each block a list of
 *  VarBindings `var = value`. Inside a DataflowBlock values are pure and locals are
 *  DataflowVars; results leave the block through ordinary Vars (R.output).
 *
 *  Every expression carries struct info. It is fixed when the node is made, except for
 *  calls, whose struct info is inferred once by normalization (BlockBuilder::Normalize) and
 *  then never changes; the field is `mutable` for that single assignment, as in TVM.
 */
#ifndef MLC_IR_GRAPH_EXPR_H_
#define MLC_IR_GRAPH_EXPR_H_

#include <string>
#include <vector>

#include "ir/core/attrs.h"
#include "ir/graph/struct_info.h"
#include "support/tensor_data.h"

namespace mlc {
namespace relax {

class ExprNode : public Object {
 public:
  ExprNode(NodeKind kind, StructInfo sinfo) : Object(kind), struct_info_(std::move(sinfo)) {}
  static bool IsInstance(const Object* obj) { return CategoryOf(obj->kind()) == NodeCategory::kExpr; }
  /*! \brief May be null only for a call that has not been normalized yet. */
  const StructInfo& struct_info() const { return struct_info_; }
  /*! \brief Sets the struct info of a not-yet-normalized node; see the file comment. */
  void SetStructInfoOnce(StructInfo sinfo) const;

 private:
  mutable StructInfo struct_info_;
};
using Expr = Ref<ExprNode>;

/*! \brief A variable; identity is the pointer, the name is only a hint for printing. */
class VarNode : public ExprNode {
 public:
  static constexpr NodeKind kKind = NodeKind::kVar;
  VarNode(std::string name_hint, StructInfo sinfo) : VarNode(kKind, std::move(name_hint), std::move(sinfo)) {}
  static bool IsInstance(const Object* obj) {
    return obj->kind() == NodeKind::kVar || obj->kind() == NodeKind::kDataflowVar;
  }
  const std::string name_hint;

 protected:
  VarNode(NodeKind kind, std::string name_hint, StructInfo sinfo)
      : ExprNode(kind, std::move(sinfo)), name_hint(std::move(name_hint)) {}
};
using Var = Ref<VarNode>;

/*! \brief A variable local to a dataflow block. */
class DataflowVarNode : public VarNode {
 public:
  MLC_DECLARE_NODE(DataflowVar)
  DataflowVarNode(std::string name_hint, StructInfo sinfo) : VarNode(kKind, std::move(name_hint), std::move(sinfo)) {}
};
using DataflowVar = Ref<DataflowVarNode>;

Var MakeVar(std::string name_hint, StructInfo sinfo);
Var MakeDataflowVar(std::string name_hint, StructInfo sinfo);

/*! \brief A constant tensor (model weights after parameter binding). */
class ConstantNode : public ExprNode {
 public:
  MLC_DECLARE_NODE(Constant)
  explicit ConstantNode(TensorData data);
  const TensorData data;
};
Expr MakeConstant(TensorData data);

class TupleNode : public ExprNode {
 public:
  MLC_DECLARE_NODE(Tuple)
  explicit TupleNode(std::vector<Expr> fields);
  const std::vector<Expr> fields;
};
Expr MakeTuple(std::vector<Expr> fields);

class TupleGetItemNode : public ExprNode {
 public:
  MLC_DECLARE_NODE(TupleGetItem)
  TupleGetItemNode(Expr tuple, int index, StructInfo sinfo)
      : ExprNode(kKind, std::move(sinfo)), tuple(std::move(tuple)), index(index) {}
  const Expr tuple;
  const int index;
};
/*! \brief tuple[index]; fails if `tuple` is not a tuple or the index is out of range. */
absl::StatusOr<Expr> MakeTupleGetItem(Expr tuple, int index);

/*! \brief A shape value, e.g. the shape argument of R.alloc_tensor: int64 constants or
 *         expressions of the function's shape variables (R.shape([n, 4])). */
class ShapeExprNode : public ExprNode {
 public:
  MLC_DECLARE_NODE(ShapeExpr)
  explicit ShapeExprNode(std::vector<tir::PrimExpr> values)
      : ExprNode(kKind, ShapeSInfo(values)), values(std::move(values)) {}
  const std::vector<tir::PrimExpr> values;
};
Expr MakeShapeExpr(std::vector<tir::PrimExpr> values);
Expr MakeShapeExpr(const std::vector<int64_t>& values);

/*! \brief A module-level function name. Two GlobalVars are equal when their names are. */
class GlobalVarNode : public ExprNode {
 public:
  MLC_DECLARE_NODE(GlobalVar)
  explicit GlobalVarNode(std::string name) : ExprNode(kKind, ObjectSInfo()), name(std::move(name)) {}
  const std::string name;
};
using GlobalVar = Ref<GlobalVarNode>;
GlobalVar MakeGlobalVar(std::string name);

/*! \brief A runtime function resolved by name when the program runs ("env.linear"). */
class ExternFuncNode : public ExprNode {
 public:
  MLC_DECLARE_NODE(ExternFunc)
  explicit ExternFuncNode(std::string global_symbol)
      : ExprNode(kKind, ObjectSInfo()), global_symbol(std::move(global_symbol)) {}
  const std::string global_symbol;
};
Expr MakeExternFunc(std::string global_symbol);

struct OpInfo;

/*! \brief A registered operator (see op.h). One node per operator, owned by the registry. */
class OpNode : public ExprNode {
 public:
  MLC_DECLARE_NODE(Op)
  explicit OpNode(const OpInfo* info);
  const OpInfo& info() const { return *info_; }
  const std::string& name() const;

 private:
  const OpInfo* info_;
};
using Op = Ref<OpNode>;

/*! \brief A call of an Op, a GlobalVar (graph function), or an ExternFunc.
 *  `sinfo_args` carries struct info the callee cannot infer, e.g. call_tir's output. */
class CallNode : public ExprNode {
 public:
  MLC_DECLARE_NODE(Call)
  CallNode(Expr op, std::vector<Expr> args, Attrs attrs, std::vector<StructInfo> sinfo_args, StructInfo sinfo = nullptr)
      : ExprNode(kKind, std::move(sinfo)),
        op(std::move(op)),
        args(std::move(args)),
        attrs(std::move(attrs)),
        sinfo_args(std::move(sinfo_args)) {}
  const Expr op;
  const std::vector<Expr> args;
  const Attrs attrs;
  const std::vector<StructInfo> sinfo_args;
};
using Call = Ref<CallNode>;
/*! \brief An unnormalized call; BlockBuilder::Normalize infers its struct info. */
Call MakeCall(Expr op, std::vector<Expr> args, Attrs attrs = {}, std::vector<StructInfo> sinfo_args = {});

/*! \brief `var = value`. */
class VarBindingNode : public Object {
 public:
  MLC_DECLARE_NODE(VarBinding)
  VarBindingNode(Var var, Expr value) : Object(kKind), var(std::move(var)), value(std::move(value)) {}
  const Var var;
  const Expr value;
};
using VarBinding = Ref<VarBindingNode>;

/*! \brief A list of bindings; a dataflow block when `is_dataflow` (R.dataflow()). */
class BindingBlockNode : public Object {
 public:
  MLC_DECLARE_NODE(BindingBlock)
  BindingBlockNode(std::vector<VarBinding> bindings, bool is_dataflow)
      : Object(kKind), bindings(std::move(bindings)), is_dataflow(is_dataflow) {}
  const std::vector<VarBinding> bindings;
  const bool is_dataflow;
};
using BindingBlock = Ref<BindingBlockNode>;

/*! \brief Blocks evaluated in order, then `body`. */
class SeqExprNode : public ExprNode {
 public:
  MLC_DECLARE_NODE(SeqExpr)
  SeqExprNode(std::vector<BindingBlock> blocks, Expr body)
      : ExprNode(kKind, body->struct_info()), blocks(std::move(blocks)), body(std::move(body)) {}
  const std::vector<BindingBlock> blocks;
  const Expr body;
};
using SeqExpr = Ref<SeqExprNode>;

/*! \brief `if cond: true_branch else: false_branch`, bound to a variable outside dataflow blocks.
 *
 *  `cond` is a scalar tensor (nonzero: true). Each branch is one expression in normal form (a
 *  call whose arguments are variables or constants, a variable, a constant or a tuple of them):
 *  a branch of several bindings is a call of a private function holding them (the ONNX importer
 *  makes each subgraph one), which keeps every pass's view of a function a straight list of
 *  bindings, and passes optimize a branch's function like any other.
 *  Only the branch taken is evaluated. The struct info is the branches' when they agree; a
 *  tensor whose shapes differ between the branches has its dtype and rank only (name the
 *  sizes with R.match_cast). */
class IfNode : public ExprNode {
 public:
  MLC_DECLARE_NODE(If)
  IfNode(Expr cond, Expr true_branch, Expr false_branch)
      : ExprNode(kKind, JoinStructInfo(true_branch->struct_info(), false_branch->struct_info())),
        cond(std::move(cond)),
        true_branch(std::move(true_branch)),
        false_branch(std::move(false_branch)) {}
  const Expr cond;
  const Expr true_branch;
  const Expr false_branch;
};
using If = Ref<IfNode>;

}  // namespace relax
}  // namespace mlc

#endif  // MLC_IR_GRAPH_EXPR_H_
