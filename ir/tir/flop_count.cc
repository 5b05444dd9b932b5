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
        case NodeKind::kMax:
          ++count;
          break;
        default:
          break;
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
    scale_ *= ConstOr1(op->extent);
    VisitStmt(op->body);
    scale_ = saved;
  }
  void VisitStmt_(const BlockNode* op) override {
    int64_t saved = scale_;
    // A block's domain already covers the loops that bind it; the root block has none.
    if (!op->iter_vars.empty()) {
      scale_ = 1;
      for (const IterVar& iv : op->iter_vars) scale_ *= ConstOr1(iv.dom.extent);
    }
    // The init runs once per spatial point and does no arithmetic worth counting.
    VisitStmt(op->body);
    scale_ = saved;
  }
  void VisitStmt_(const BlockRealizeNode* op) override { VisitStmt(op->block); }

 private:
  void Count(const PrimExpr& value) {
    ExprFlops f;
    f.VisitExpr(value);
    total += f.count * scale_;
  }

  int64_t scale_ = 1;
};

}  // namespace

int64_t CountFlops(const PrimFunc& func) {
  FlopCounter counter;
  counter.VisitStmt(func->body);
  return counter.total;
}

}  // namespace tir
}  // namespace mlc
