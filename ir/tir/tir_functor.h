/*! \file tir_functor.h
 *  \brief Visitor and mutator over the loop level (PrimExpr and Stmt).
 *
 *  Dispatch is a switch over NodeKind. The mutator rebuilds a node only when a child
 *  changed, and otherwise returns the node it was given, so `out.same_as(in)` tells whether
 *  anything changed. Override the VisitExpr_/VisitStmt_ overloads of the kinds you care
 *  about; VisitBuffer lets a mutator remap buffers everywhere they appear.
 */
#ifndef MLC_IR_TIR_TIR_FUNCTOR_H_
#define MLC_IR_TIR_TIR_FUNCTOR_H_

#include <vector>

#include "ir/tir/prim_func.h"
#include "ir/tir/stmt.h"

namespace mlc {
namespace tir {

class StmtExprVisitor {
 public:
  virtual ~StmtExprVisitor() = default;
  virtual void VisitExpr(const PrimExpr& e);
  virtual void VisitStmt(const Stmt& s);

 protected:
  virtual void VisitExpr_(const TirVarNode* op) {}
  virtual void VisitExpr_(const BufferLoadNode* op);
  virtual void VisitExpr_(const BinaryNode* op);
  virtual void VisitExpr_(const NotNode* op);
  virtual void VisitExpr_(const SelectNode* op);
  virtual void VisitExpr_(const CastNode* op);
  virtual void VisitExpr_(const TirCallNode* op);
  virtual void VisitStmt_(const BufferStoreNode* op);
  virtual void VisitStmt_(const ForNode* op);
  virtual void VisitStmt_(const SeqStmtNode* op);
  virtual void VisitStmt_(const IfThenElseNode* op);
  virtual void VisitStmt_(const EvaluateNode* op);
  virtual void VisitStmt_(const BlockNode* op);
  virtual void VisitStmt_(const BlockRealizeNode* op);
  virtual void VisitStmt_(const AllocateNode* op);
};

class StmtExprMutator {
 public:
  virtual ~StmtExprMutator() = default;
  virtual PrimExpr VisitExpr(const PrimExpr& e);
  virtual Stmt VisitStmt(const Stmt& s);
  /*! \brief Called for every buffer reference and definition; identity by default. */
  virtual Buffer VisitBuffer(const Buffer& b) { return b; }

 protected:
  virtual PrimExpr VisitExpr_(const TirVarNode* op, const PrimExpr& self) { return self; }
  virtual PrimExpr VisitExpr_(const BufferLoadNode* op, const PrimExpr& self);
  virtual PrimExpr VisitExpr_(const BinaryNode* op, const PrimExpr& self);
  virtual PrimExpr VisitExpr_(const NotNode* op, const PrimExpr& self);
  virtual PrimExpr VisitExpr_(const SelectNode* op, const PrimExpr& self);
  virtual PrimExpr VisitExpr_(const CastNode* op, const PrimExpr& self);
  virtual PrimExpr VisitExpr_(const TirCallNode* op, const PrimExpr& self);
  virtual Stmt VisitStmt_(const BufferStoreNode* op, const Stmt& self);
  virtual Stmt VisitStmt_(const ForNode* op, const Stmt& self);
  virtual Stmt VisitStmt_(const SeqStmtNode* op, const Stmt& self);
  virtual Stmt VisitStmt_(const IfThenElseNode* op, const Stmt& self);
  virtual Stmt VisitStmt_(const EvaluateNode* op, const Stmt& self);
  virtual Stmt VisitStmt_(const BlockNode* op, const Stmt& self);
  virtual Stmt VisitStmt_(const BlockRealizeNode* op, const Stmt& self);
  virtual Stmt VisitStmt_(const AllocateNode* op, const Stmt& self);

  /*! \brief Visits each element; sets *changed if any differs. */
  std::vector<PrimExpr> VisitExprs(const std::vector<PrimExpr>& exprs, bool* changed);
  std::vector<BufferRegion> VisitRegions(const std::vector<BufferRegion>& regions, bool* changed);
};

/*! \brief The same PrimFunc with `mutator` applied to its body and parameter buffers. */
PrimFunc MutatePrimFunc(const PrimFunc& func, StmtExprMutator* mutator);

}  // namespace tir
}  // namespace mlc

#endif  // MLC_IR_TIR_TIR_FUNCTOR_H_
