/*! \file node_kinds.h
 *  \brief The single list of IR node kinds, by category, as X-macros: MLC_<CATEGORY>_KINDS(X)
 *         calls X(Name) once per kind.
 *
 *  The NodeKind enum, kind names and categories are generated from these lists, and so are the
 *  case labels a switch uses for the kinds it does not handle (MLC_CASES_NOT_PRIM_EXPR...):
 *  switches over NodeKind are written without `default:`, so a kind added here and not handled
 *  by a switch of its category is a compile error (-Werror=switch).
 */
#ifndef MLC_IR_CORE_NODE_KINDS_H_
#define MLC_IR_CORE_NODE_KINDS_H_

// Loop level (TensorIR-like): expressions. The binary ones share one node class (BinaryNode);
// the comparisons (and the logical connectives) among them give a boolean.
#define MLC_ARITHMETIC_BINARY_KINDS(X) X(Add) X(Sub) X(Mul) X(Div) X(Mod) X(FloorDiv) X(FloorMod) X(Min) X(Max)
#define MLC_COMPARISON_KINDS(X) X(EQ) X(NE) X(LT) X(LE) X(GT) X(GE) X(And) X(Or)
#define MLC_BINARY_KINDS(X) MLC_ARITHMETIC_BINARY_KINDS(X) MLC_COMPARISON_KINDS(X)
#define MLC_NON_BINARY_PRIM_EXPR_KINDS(X) \
  X(IntImm) X(FloatImm) X(StringImm) X(TirVar) X(Not) X(Select) X(Cast) X(BufferLoad) X(TirCall)
#define MLC_PRIM_EXPR_KINDS(X) MLC_NON_BINARY_PRIM_EXPR_KINDS(X) MLC_BINARY_KINDS(X)
// Loop level: statements.
#define MLC_STMT_KINDS(X) \
  X(BufferStore) X(For) X(SeqStmt) X(IfThenElse) X(Evaluate) X(Block) X(BlockRealize) X(Allocate)
// Loop level: other nodes with identity.
#define MLC_TIR_OTHER_KINDS(X) X(Buffer)
// Graph level (Relax-like): expressions.
#define MLC_EXPR_KINDS(X)                                                                                              \
  X(Var)                                                                                                               \
  X(DataflowVar) X(Constant) X(Tuple) X(TupleGetItem) X(ShapeExpr) X(Call) X(GlobalVar) X(ExternFunc) X(Op) X(SeqExpr) \
      X(If)
// Graph level: struct info (the type and shape of a value).
#define MLC_STRUCT_INFO_KINDS(X) \
  X(ObjectStructInfo) X(PrimStructInfo) X(ShapeStructInfo) X(TensorStructInfo) X(TupleStructInfo) X(FuncStructInfo)
// Graph level: bindings.
#define MLC_GRAPH_OTHER_KINDS(X) X(VarBinding) X(BindingBlock)
// Module-level functions of both levels.
#define MLC_FUNCTION_KINDS(X) X(Function) X(PrimFunc)

#define MLC_KIND_CASE(Name) case ::mlc::NodeKind::k##Name:
#define MLC_BINARY_CASES MLC_BINARY_KINDS(MLC_KIND_CASE)
#define MLC_CASES_OF(LIST) LIST(MLC_KIND_CASE)
/*! \brief Case labels of every kind outside one category. */
#define MLC_CASES_NOT_PRIM_EXPR                                                                      \
  MLC_CASES_OF(MLC_STMT_KINDS)                                                                       \
  MLC_CASES_OF(MLC_TIR_OTHER_KINDS) MLC_CASES_OF(MLC_EXPR_KINDS) MLC_CASES_OF(MLC_STRUCT_INFO_KINDS) \
      MLC_CASES_OF(MLC_GRAPH_OTHER_KINDS) MLC_CASES_OF(MLC_FUNCTION_KINDS)
#define MLC_CASES_NOT_BINARY MLC_CASES_OF(MLC_NON_BINARY_PRIM_EXPR_KINDS) MLC_CASES_NOT_PRIM_EXPR
#define MLC_CASES_NOT_STMT                                                                           \
  MLC_CASES_OF(MLC_PRIM_EXPR_KINDS)                                                                  \
  MLC_CASES_OF(MLC_TIR_OTHER_KINDS) MLC_CASES_OF(MLC_EXPR_KINDS) MLC_CASES_OF(MLC_STRUCT_INFO_KINDS) \
      MLC_CASES_OF(MLC_GRAPH_OTHER_KINDS) MLC_CASES_OF(MLC_FUNCTION_KINDS)
#define MLC_CASES_NOT_EXPR                                                                           \
  MLC_CASES_OF(MLC_PRIM_EXPR_KINDS)                                                                  \
  MLC_CASES_OF(MLC_STMT_KINDS) MLC_CASES_OF(MLC_TIR_OTHER_KINDS) MLC_CASES_OF(MLC_STRUCT_INFO_KINDS) \
      MLC_CASES_OF(MLC_GRAPH_OTHER_KINDS) MLC_CASES_OF(MLC_FUNCTION_KINDS)
#define MLC_CASES_NOT_STRUCT_INFO                                                             \
  MLC_CASES_OF(MLC_PRIM_EXPR_KINDS)                                                           \
  MLC_CASES_OF(MLC_STMT_KINDS) MLC_CASES_OF(MLC_TIR_OTHER_KINDS) MLC_CASES_OF(MLC_EXPR_KINDS) \
      MLC_CASES_OF(MLC_GRAPH_OTHER_KINDS) MLC_CASES_OF(MLC_FUNCTION_KINDS)

#endif  // MLC_IR_CORE_NODE_KINDS_H_
