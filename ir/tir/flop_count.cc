/*! \file flop_count.cc
 *  \brief CountFlops: float operations per block iteration times the block's domain volume.
 */
#include "ir/tir/flop_count.h"

#include "ir/tir/intrinsics.h"
#include "ir/tir/tir_functor.h"

namespace mlc {
namespace tir {
namespace {

int64_t ConstOr1(const PrimExpr& e) {
  const int64_t* v = AsConstInt(e);
  return v != nullptr && *v > 0 ? *v : 1;
}

/*! \brief Float operations in one evaluation of an expression. */
class ExprFlops : public StmtExprVisitor {
 public:
  int64_t count = 0;

  void VisitExpr_(const BinaryNode* op) override {
    if (op->dtype.is_float()) {
      switch (op->kind()) {
        case NodeKind::kAdd:
        case NodeKind::kSub:
        case NodeKind::kMul:
        case NodeKind::kDiv:
        case NodeKind::kMin:
        case NodeKind::kMax: ++count; break;
        default: break;
      }
    }
    StmtExprVisitor::VisitExpr_(op);
  }
  void VisitExpr_(const TirCallNode* op) override {
    const IntrinsicInfo* info = LookupIntrinsic(op->name);
    if (info != nullptr && info->flops != nullptr) {
      count += info->flops(op->args);
    } else if (op->dtype.is_float()) {
      ++count;
    }
    StmtExprVisitor::VisitExpr_(op);
  }
  // Indices are address arithmetic.
  void VisitExpr_(const BufferLoadNode* op) override {}
};

class FlopCounter : public StmtExprVisitor {
 public:
  int64_t total = 0;

  void VisitStmt_(const BufferStoreNode* op) override { Count(op->value); }
  // Tensor intrinsics (T.gemm_tile) run for their effect.
  void VisitStmt_(const EvaluateNode* op) override { Count(op->value); }
  void VisitStmt_(const ForNode* op) override {
    int64_t saved = scale_;
    bool saved_symbolic = symbolic_;
    scale_ *= ConstOr1(op->extent);
    symbolic_ = symbolic_ || AsConstInt(op->extent) == nullptr;
    VisitStmt(op->body);
    scale_ = saved;
    symbolic_ = saved_symbolic;
  }
  void VisitStmt_(const BlockNode* op) override {
    int64_t saved = scale_;
    bool saved_symbolic = symbolic_;
    // A block's domain already covers the loops that bind it; the root block has none.
    if (!op->iter_vars.empty()) {
      scale_ = 1;
      symbolic_ = false;
      for (const IterVar& iv : op->iter_vars) {
        scale_ *= ConstOr1(iv.dom.extent);
        symbolic_ = symbolic_ || AsConstInt(iv.dom.extent) == nullptr;
      }
    }
    // The init runs once per spatial point and does no arithmetic worth counting.
    VisitStmt(op->body);
    scale_ = saved;
    symbolic_ = saved_symbolic;
  }
  /*! \brief Whether some counted operation runs a number of times known only at run time. */
  bool unknown = false;
  void VisitStmt_(const BlockRealizeNode* op) override { VisitStmt(op->block); }

 private:
  void Count(const PrimExpr& value) {
    ExprFlops f;
    f.VisitExpr(value);
    total += f.count * scale_;
    unknown = unknown || (f.count > 0 && symbolic_);
  }

  int64_t scale_ = 1;
  bool symbolic_ = false;  // scale_ leaves out a symbolic extent
};

}  // namespace

int64_t CountFlops(const PrimFunc& func) {
  FlopCounter counter;
  counter.VisitStmt(func->body);
  return counter.unknown ? -1 : counter.total;
}

}  // namespace tir
}  // namespace mlc
