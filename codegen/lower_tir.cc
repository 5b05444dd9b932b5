/*! \file lower_tir.cc
 *  \brief Block lowering, allocation, flattening and simplification of PrimFuncs.
 */
#include "codegen/lower_tir.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "ir/tir/analyzer.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/tir_functor.h"
#include "ir/tir/tir_util.h"

namespace mlc {
namespace codegen {
namespace {

using tir::PrimExpr;
using tir::Stmt;

/*! \brief Steps 1 and 2: blocks to plain statements, alloc_buffers to Allocate. */
class BlockLowerer : public tir::StmtExprMutator {
 protected:
  Stmt VisitStmt_(const tir::BlockRealizeNode* op, const Stmt& self) override {
    const tir::BlockNode* block = op->block.get();
    std::vector<std::pair<tir::Var, PrimExpr>> bind;
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      bind.push_back({block->iter_vars[i].var, VisitExpr(op->iter_values[i])});
    }
    Stmt body = tir::Substitute(VisitStmt(block->body), bind);
    if (block->init.defined()) {
      PrimExpr first_iteration;
      for (size_t i = 0; i < block->iter_vars.size(); ++i) {
        const tir::IterVar& iv = block->iter_vars[i];
        if (iv.kind != tir::IterKind::kReduce) continue;
        PrimExpr cond = tir::Eq(bind[i].second, iv.dom.min);
        first_iteration = first_iteration.defined() ? tir::operator&&(first_iteration, cond) : cond;
      }
      Stmt init = tir::Substitute(VisitStmt(block->init), bind);
      Stmt guarded = first_iteration.defined() ? Stmt(new tir::IfThenElseNode(first_iteration, init, Stmt())) : init;
      body = tir::MakeSeq({guarded, body});
    }
    const int64_t* pred = tir::AsConstInt(op->predicate);
    if (pred == nullptr || *pred == 0) {
      body = Stmt(new tir::IfThenElseNode(tir::Substitute(VisitExpr(op->predicate), bind), body, Stmt()));
    }
    for (auto it = block->alloc_buffers.rbegin(); it != block->alloc_buffers.rend(); ++it) {
      body = Stmt(new tir::AllocateNode(*it, body));
    }
    return body;
  }

  Stmt VisitStmt_(const tir::BlockNode* op, const Stmt& self) override {
    // A bare block (never realized) runs once with no iteration variables.
    Stmt body = VisitStmt(op->body);
    for (auto it = op->alloc_buffers.rbegin(); it != op->alloc_buffers.rend(); ++it) {
      body = Stmt(new tir::AllocateNode(*it, body));
    }
    return body;
  }
};

/*! \brief Loops of extent 1 disappear: their variable is replaced by the loop's minimum. */
class UnitLoopRemover : public tir::StmtExprMutator {
 protected:
  Stmt VisitStmt_(const tir::ForNode* op, const Stmt& self) override {
    const int64_t* extent = tir::AsConstInt(op->extent);
    if (extent != nullptr && *extent == 1) return VisitStmt(tir::Substitute(op->body, {{op->loop_var, op->min}}));
    return tir::StmtExprMutator::VisitStmt_(op, self);
  }
};

/*! \brief Step 3: every buffer becomes a 1-D buffer; indices become row-major offsets. */
class Flattener : public tir::StmtExprMutator {
 public:
  tir::Buffer VisitBuffer(const tir::Buffer& b) override {
    auto it = flat_.find(b.get());
    if (it != flat_.end()) return it->second;
    int64_t size = 1;
    bool is_static = true;
    for (const PrimExpr& d : b->shape) {
      const int64_t* v = tir::AsConstInt(d);
      if (v == nullptr) is_static = false;
      else size *= *v;
    }
    tir::Buffer flat = tir::MakeBuffer(b->name, {is_static ? tir::I64(size) : FlatIndexExtent(b)}, b->dtype);
    flat_[b.get()] = flat;
    original_[flat.get()] = b;
    return flat;
  }

 protected:
  PrimExpr VisitExpr_(const tir::BufferLoadNode* op, const PrimExpr& self) override {
    tir::Buffer flat = VisitBuffer(op->buffer);
    bool changed = false;
    std::vector<PrimExpr> indices = VisitExprs(op->indices, &changed);
    return tir::Load(flat, {Offset(op->buffer, indices)});
  }
  Stmt VisitStmt_(const tir::BufferStoreNode* op, const Stmt& self) override {
    tir::Buffer flat = VisitBuffer(op->buffer);
    bool changed = false;
    std::vector<PrimExpr> indices = VisitExprs(op->indices, &changed);
    return Stmt(new tir::BufferStoreNode(flat, VisitExpr(op->value), {Offset(op->buffer, indices)}));
  }

 private:
  static PrimExpr FlatIndexExtent(const tir::Buffer& b) {
    PrimExpr size = tir::I64(1);
    for (const PrimExpr& d : b->shape) size = tir::operator*(size, tir::Cast(DataType::Int64(), d));
    return size;
  }
  static PrimExpr Offset(const tir::Buffer& b, const std::vector<PrimExpr>& indices) {
    PrimExpr offset;
    for (size_t d = 0; d < indices.size(); ++d) {
      PrimExpr idx = tir::Cast(DataType::Int64(), indices[d]);
      offset = offset.defined() ? tir::operator+(tir::operator*(offset, tir::Cast(DataType::Int64(), b->shape[d])), idx) : idx;
    }
    return offset.defined() ? offset : tir::I64(0);
  }

  std::map<const Object*, tir::Buffer> flat_;
  std::map<const Object*, tir::Buffer> original_;
};

}  // namespace

absl::StatusOr<tir::PrimFunc> LowerPrimFunc(const tir::PrimFunc& func) {
  BlockLowerer blocks;
  Stmt body = UnitLoopRemover().VisitStmt(blocks.VisitStmt(func->body));
  // Indices are simplified while still multi-dimensional, where a layout's `j // 16, j % 16`
  // are visible, and again after flattening, to fold the row-major offsets.
  body = tir::SimplifyWithLoopRanges(body);
  Flattener flatten;
  std::vector<tir::Buffer> params;
  for (const tir::Buffer& p : func->params) params.push_back(flatten.VisitBuffer(p));
  body = tir::SimplifyWithLoopRanges(flatten.VisitStmt(body));
  return tir::PrimFunc(new tir::PrimFuncNode(params, body, func->attrs));
}

}  // namespace codegen
}  // namespace mlc
