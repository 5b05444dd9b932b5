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

/*! \brief Step 3: an intermediate whose only reader is an elementwise epilogue writing an output
 *  parameter of its shape, at the very index it reads (`out[i] = f(conv[i], ...)`: the bias and
 *  activation after a convolution or a GEMM), is computed in the output itself: the epilogue
 *  becomes `out[i] = f(out[i], ...)`. Each element is read once, by the iteration that writes it
 *  after the intermediate was complete, so this computes the same; the intermediate's storage,
 *  and the memory traffic of writing it out and reading it back, are gone (MobileNetV2's
 *  112 x 112 x 96 expansion wrote 4.8 MB twice). */
class EpilogueInPlace {
 public:
  static Stmt Run(const tir::PrimFunc& func, Stmt body) {
    for (bool changed = true; changed;) {
      changed = false;
      struct Allocs : tir::StmtExprVisitor {
        std::vector<const tir::AllocateNode*> found;
        void VisitStmt_(const tir::AllocateNode* op) override {
          found.push_back(op);
          tir::StmtExprVisitor::VisitStmt_(op);
        }
      } collect;
      collect.VisitStmt(body);
      const std::vector<const tir::AllocateNode*>& allocs = collect.found;
      for (const tir::AllocateNode* a : allocs) {
        for (const tir::Buffer& out : func->params) {
          if (!SameShape(a->buffer, out) || !Qualifies(body, a->buffer, out)) continue;
          body = Replace(body, a, out);
          changed = true;
          break;
        }
        if (changed) break;
      }
    }
    return body;
  }

 private:
  static bool SameShape(const tir::Buffer& a, const tir::Buffer& b) {
    if (a->dtype != b->dtype || a->shape.size() != b->shape.size()) return false;
    for (size_t d = 0; d < a->shape.size(); ++d) {
      if (!tir::ExprDeepEqual(a->shape[d], b->shape[d])) return false;
    }
    return true;
  }

  static bool SameIndices(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
    if (a.size() != b.size()) return false;
    for (size_t d = 0; d < a.size(); ++d) {
      if (!tir::ExprDeepEqual(a[d], b[d])) return false;
    }
    return true;
  }

  /*! \brief Every load of `tmp` is in a store to `out` at the same indices, every store to
   *  `out` reads `tmp` there, and `out` is never read nor addressed otherwise. */
  static bool Qualifies(const Stmt& body, const tir::Buffer& tmp, const tir::Buffer& out) {
    struct Check : tir::StmtExprVisitor {
      const tir::Buffer* tmp;
      const tir::Buffer* out;
      const tir::BufferStoreNode* store = nullptr;  // the store being visited, if to `out`
      bool store_reads_tmp = false, ok = true, any = false;
      void VisitStmt_(const tir::BufferStoreNode* op) override {
        if (op->buffer.same_as(*out)) {
          store = op;
          store_reads_tmp = false;
          VisitExpr(op->value);
          for (const PrimExpr& i : op->indices) VisitExpr(i);
          ok &= store_reads_tmp;
          any = true;
          store = nullptr;
          return;
        }
        tir::StmtExprVisitor::VisitStmt_(op);
      }
      void VisitExpr_(const tir::BufferLoadNode* op) override {
        if (op->buffer.same_as(*out)) ok = false;
        if (op->buffer.same_as(*tmp)) {
          // Read only by the epilogue, element for element (an intrinsic's address_of is its
          // own computation's access, before the epilogue).
          if (store == nullptr ? !in_address_of : !SameIndices(op->indices, store->indices)) ok = false;
          if (store != nullptr) store_reads_tmp = true;
        }
        tir::StmtExprVisitor::VisitExpr_(op);
      }
      void VisitExpr_(const tir::TirCallNode* op) override {
        bool saved = in_address_of;
        in_address_of = op->name == "address_of";
        if (in_address_of && store != nullptr) ok = false;
        tir::StmtExprVisitor::VisitExpr_(op);
        in_address_of = saved;
      }
      bool in_address_of = false;
    } check;
    check.tmp = &tmp;
    check.out = &out;
    check.VisitStmt(body);
    return check.ok && check.any;
  }

  static Stmt Replace(const Stmt& body, const tir::AllocateNode* alloc, const tir::Buffer& out) {
    struct Swap : tir::StmtExprMutator {
      const tir::AllocateNode* alloc;
      tir::Buffer tmp, out;
      tir::Buffer VisitBuffer(const tir::Buffer& b) override { return b.same_as(tmp) ? out : b; }
      Stmt VisitStmt_(const tir::AllocateNode* op, const Stmt& self) override {
        if (op == alloc) return VisitStmt(op->body);
        return tir::StmtExprMutator::VisitStmt_(op, self);
      }
    } swap;
    swap.alloc = alloc;
    swap.tmp = alloc->buffer;
    swap.out = out;
    return swap.VisitStmt(body);
  }
};

/*! \brief Step 4: every buffer becomes a 1-D buffer; indices become row-major offsets. */
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
  body = EpilogueInPlace::Run(func, body);
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
