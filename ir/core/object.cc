/*! \file object.cc
 *  \brief Kind names and categories, generated from node_kinds.h.
 */
#include "ir/core/object.h"

namespace mlc {

NodeCategory CategoryOf(NodeKind kind) {
#define MLC_CATEGORY(C) return NodeCategory::k##C;
  switch (kind) {
    MLC_CASES_OF(MLC_PRIM_EXPR_KINDS)
    MLC_CATEGORY(PrimExpr) MLC_CASES_OF(MLC_STMT_KINDS) MLC_CATEGORY(Stmt) MLC_CASES_OF(MLC_TIR_OTHER_KINDS)
        MLC_CATEGORY(TirOther) MLC_CASES_OF(MLC_EXPR_KINDS) MLC_CATEGORY(Expr) MLC_CASES_OF(MLC_STRUCT_INFO_KINDS)
            MLC_CATEGORY(StructInfo) MLC_CASES_OF(MLC_GRAPH_OTHER_KINDS) MLC_CATEGORY(GraphOther)
                MLC_CASES_OF(MLC_FUNCTION_KINDS) MLC_CATEGORY(Function)
  }
#undef MLC_CATEGORY
  return NodeCategory::kGraphOther;
}

const char* NodeKindName(NodeKind kind) {
  switch (kind) {
#define MLC_NAME_CASE(Name) \
  case NodeKind::k##Name: return #Name;
    MLC_PRIM_EXPR_KINDS(MLC_NAME_CASE)
    MLC_STMT_KINDS(MLC_NAME_CASE) MLC_TIR_OTHER_KINDS(MLC_NAME_CASE) MLC_EXPR_KINDS(MLC_NAME_CASE)
        MLC_STRUCT_INFO_KINDS(MLC_NAME_CASE) MLC_GRAPH_OTHER_KINDS(MLC_NAME_CASE) MLC_FUNCTION_KINDS(MLC_NAME_CASE)
#undef MLC_NAME_CASE
  }
  return "?";
}

}  // namespace mlc
