/*! \file prim_expr.h
 *  \brief Loop-level scalar expressions (TensorIR's PrimExpr): immediates, variables,
 *         arithmetic, comparisons, logic, select, cast, buffer loads and intrinsic calls.
 */
#ifndef MLC_IR_TIR_PRIM_EXPR_H_
#define MLC_IR_TIR_PRIM_EXPR_H_

#include <string>
#include <vector>

#include "ir/core/object.h"
#include "support/dtype.h"

namespace mlc {
namespace tir {

class PrimExprNode : public Object {
 public:
  PrimExprNode(NodeKind kind, DataType dtype) : Object(kind), dtype(dtype) {}
  static bool IsInstance(const Object* obj) { return CategoryOf(obj->kind()) == NodeCategory::kPrimExpr; }
  const DataType dtype;
};
using PrimExpr = Ref<PrimExprNode>;

class IntImmNode : public PrimExprNode {
 public:
  MLC_DECLARE_NODE(IntImm)
  IntImmNode(DataType dtype, int64_t value) : PrimExprNode(kKind, dtype), value(value) {}
  const int64_t value;
};
PrimExpr IntImm(DataType dtype, int64_t value);

class FloatImmNode : public PrimExprNode {
 public:
  MLC_DECLARE_NODE(FloatImm)
  FloatImmNode(DataType dtype, double value) : PrimExprNode(kKind, dtype), value(value) {}
  const double value;
};
PrimExpr FloatImm(DataType dtype, double value);

/*! \brief A string argument of an intrinsic call (e.g. a runtime symbol name). */
class StringImmNode : public PrimExprNode {
 public:
  MLC_DECLARE_NODE(StringImm)
  explicit StringImmNode(std::string value) : PrimExprNode(kKind, DataType::Handle()), value(std::move(value)) {}
  const std::string value;
};

/*! \brief A scalar variable (loop variable, block iteration variable). Identity is the pointer. */
class TirVarNode : public PrimExprNode {
 public:
  MLC_DECLARE_NODE(TirVar)
  TirVarNode(std::string name, DataType dtype) : PrimExprNode(kKind, dtype), name(std::move(name)) {}
  const std::string name;
};
using Var = Ref<TirVarNode>;
Var MakeVar(std::string name, DataType dtype = DataType::Int32());

/*! \brief Every binary node: arithmetic, min/max, comparison and logic. */
class BinaryNode : public PrimExprNode {
 public:
  BinaryNode(NodeKind kind, DataType dtype, PrimExpr a, PrimExpr b)
      : PrimExprNode(kind, dtype), a(std::move(a)), b(std::move(b)) {}
  static bool IsInstance(const Object* obj);
  const PrimExpr a, b;
};

#define MLC_BINARY_NODE(Name)                                                                                    \
  class Name##Node : public BinaryNode {                                                                         \
   public:                                                                                                       \
    MLC_DECLARE_NODE(Name)                                                                                       \
    Name##Node(DataType dtype, PrimExpr a, PrimExpr b) : BinaryNode(kKind, dtype, std::move(a), std::move(b)) {} \
  };
MLC_BINARY_NODE(Add)
MLC_BINARY_NODE(Sub)
MLC_BINARY_NODE(Mul)
MLC_BINARY_NODE(Div)
MLC_BINARY_NODE(Mod)
MLC_BINARY_NODE(FloorDiv)
MLC_BINARY_NODE(FloorMod)
MLC_BINARY_NODE(Min)
MLC_BINARY_NODE(Max)
MLC_BINARY_NODE(EQ)
MLC_BINARY_NODE(NE)
MLC_BINARY_NODE(LT)
MLC_BINARY_NODE(LE)
MLC_BINARY_NODE(GT)
MLC_BINARY_NODE(GE)
MLC_BINARY_NODE(And)
MLC_BINARY_NODE(Or)
#undef MLC_BINARY_NODE

/*! \brief Builds a binary node of the given kind; comparisons and logic yield bool. */
PrimExpr MakeBinary(NodeKind kind, PrimExpr a, PrimExpr b);
bool IsComparison(NodeKind kind);

class NotNode : public PrimExprNode {
 public:
  MLC_DECLARE_NODE(Not)
  explicit NotNode(PrimExpr a) : PrimExprNode(kKind, DataType::Bool()), a(std::move(a)) {}
  const PrimExpr a;
};

class SelectNode : public PrimExprNode {
 public:
  MLC_DECLARE_NODE(Select)
  SelectNode(PrimExpr condition, PrimExpr true_value, PrimExpr false_value)
      : PrimExprNode(kKind, true_value->dtype),
        condition(std::move(condition)),
        true_value(std::move(true_value)),
        false_value(std::move(false_value)) {}
  const PrimExpr condition, true_value, false_value;
};

class CastNode : public PrimExprNode {
 public:
  MLC_DECLARE_NODE(Cast)
  CastNode(DataType dtype, PrimExpr value) : PrimExprNode(kKind, dtype), value(std::move(value)) {}
  const PrimExpr value;
};

class BufferNode;
using Buffer = Ref<BufferNode>;

class BufferLoadNode : public PrimExprNode {
 public:
  MLC_DECLARE_NODE(BufferLoad)
  BufferLoadNode(Buffer buffer, std::vector<PrimExpr> indices);
  const Buffer buffer;
  const std::vector<PrimExpr> indices;
};

/*! \brief A call of a math intrinsic by name ("exp", "sqrt", "tanh", ...; see intrinsics.h). */
class TirCallNode : public PrimExprNode {
 public:
  MLC_DECLARE_NODE(TirCall)
  TirCallNode(DataType dtype, std::string name, std::vector<PrimExpr> args)
      : PrimExprNode(kKind, dtype), name(std::move(name)), args(std::move(args)) {}
  const std::string name;
  const std::vector<PrimExpr> args;
};

/*! \brief The constant value of an IntImm, or nullptr. */
inline const int64_t* AsConstInt(const PrimExpr& e) {
  const IntImmNode* imm = e.as<IntImmNode>();
  return imm ? &imm->value : nullptr;
}

/*! \brief Whether e is the integer constant `value`. */
inline bool IsConstInt(const PrimExpr& e, int64_t value) {
  const int64_t* v = AsConstInt(e);
  return v != nullptr && *v == value;
}

}  // namespace tir
}  // namespace mlc

#endif  // MLC_IR_TIR_PRIM_EXPR_H_
