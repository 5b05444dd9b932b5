/*! \file lower_tir.cc
 *  \brief Block lowering, allocation, flattening and simplification of PrimFuncs.
 */
#include "codegen/lower_tir.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "ir/tir/analyzer.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/stmt_tree.h"
#include "ir/tir/tir_functor.h"
#include "ir/tir/tir_util.h"

namespace mlc {
namespace codegen {
namespace {

using tir::PrimExpr;
using tir::Stmt;

/*! \brief Whether a loop runs once (a constant extent of 1): UnitLoopRemover drops it, so a
 *  plan made on the blocks must not name it. */
bool RunsOnce(const tir::ForNode* loop) {
  const int64_t* extent = tir::AsConstInt(loop->extent);
  return extent != nullptr && *extent == 1;
}

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

/*! \brief Step 3b: an intermediate that only the blocks under one loop touch (a convolution's
 *  padded window computed per tile, a packed panel) is allocated inside that loop, each
 *  iteration holding only the region it touches: a thread's window then stays in L1 instead of
 *  the whole intermediate going out to memory and back, and parallel iterations get storage of
 *  their own. TVM's CompactBufferAllocation, restricted to the leading dimensions: a tensor
 *  intrinsic addresses its operand with the strides of the original shape (T.gemm_tile_nd's
 *  row and reduction strides), so the dimensions are cut down to the first one the region spans
 *  more than once (every stride from there on stays), and the dimensions below it keep their
 *  full extent.
 *
 *  Planned on the blocks (their read and write regions bound what the intrinsics touch),
 *  applied to the lowered statements (where the blocks' variables are loop variables). */
class AllocationCompactor {
 public:
  explicit AllocationCompactor(const Stmt& body) {
    const auto* root = body.as<tir::BlockRealizeNode>();
    if (root == nullptr) return;
    std::vector<const tir::BlockRealizeNode*> children = tir::ChildBlocks(Stmt(root->block));
    for (const tir::Buffer& buffer : root->block->alloc_buffers) {
      if (std::optional<Plan> plan = PlanFor(body, buffer, children)) plans_.push_back(*plan);
    }
  }

  /*! \brief The lowered body with the planned buffers moved (those still allocated: step 3
   *  may have computed one in an output instead). */
  Stmt Apply(const Stmt& lowered) const {
    struct Present : tir::StmtExprVisitor {
      std::set<const Object*> allocated, loops;
      void VisitStmt_(const tir::AllocateNode* op) override {
        allocated.insert(op->buffer.get());
        tir::StmtExprVisitor::VisitStmt_(op);
      }
      void VisitStmt_(const tir::ForNode* op) override {
        loops.insert(op->loop_var.get());
        tir::StmtExprVisitor::VisitStmt_(op);
      }
    } present;
    present.VisitStmt(lowered);
    std::vector<Plan> live;
    for (const Plan& p : plans_) {
      if (present.allocated.count(p.from.get()) && present.loops.count(p.loop_var.get()) &&
          present.loops.count(p.place_var.get())) {
        live.push_back(p);
      }
    }
    if (live.empty()) return lowered;
    Rewriter r;
    r.plans = &live;
    return r.VisitStmt(lowered);
  }

 private:
  struct Plan {
    tir::Buffer from, to;
    std::vector<PrimExpr> offsets;  // per leading dimension kept, subtracted from the index
    tir::Var loop_var;              // the innermost loop above every user (the region is per iteration)
    tir::Var place_var;             // the loop whose body holds the allocation
  };

  static std::optional<Plan> PlanFor(const Stmt& body, const tir::Buffer& buffer,
                                     const std::vector<const tir::BlockRealizeNode*>& children) {
    std::vector<int64_t> shape;
    for (const PrimExpr& d : buffer->shape) {
      const int64_t* v = tir::AsConstInt(d);
      if (v == nullptr) return std::nullopt;
      shape.push_back(*v);
    }
    auto touches = [&](const std::vector<tir::BufferRegion>& regions) {
      return std::any_of(regions.begin(), regions.end(),
                         [&](const tir::BufferRegion& r) { return r.buffer.same_as(buffer); });
    };
    std::vector<std::pair<const tir::BlockRealizeNode*, tir::StmtPath>> users;
    for (const tir::BlockRealizeNode* r : children) {
      if (!touches(r->block->reads) && !touches(r->block->writes)) continue;
      std::optional<tir::StmtPath> path = tir::FindBlock(body, r->block->name);
      if (!path) return std::nullopt;
      users.push_back({r, *path});
    }
    if (users.empty()) return std::nullopt;
    // The innermost loop on every user's path.
    size_t common = users[0].second.size() - 1;
    for (const auto& [r, path] : users) {
      size_t i = 0;
      while (i < common && i < path.size() && path[i].same_as(users[0].second[i])) ++i;
      common = i;
    }
    // Of those that run more than once: a loop that runs once is gone when the plan applies,
    // and the loop above it bounds the region instead (giving up there kept a 1x1 convolution's
    // data, packed per row for 14-pixel tiles that cover the row, in one buffer both threads
    // wrote).
    int loop_at = -1;
    for (size_t i = 0; i < common; ++i) {
      const auto* f = users[0].second[i].as<tir::ForNode>();
      if (f != nullptr && !RunsOnce(f)) loop_at = static_cast<int>(i);
    }
    if (loop_at < 0) return std::nullopt;
    const auto* loop = users[0].second[loop_at].as<tir::ForNode>();
    // Loops of extent 1 above it are gone by the time the plan applies: their minimum instead.
    std::vector<std::pair<tir::Var, PrimExpr>> unit_loops;
    for (int i = 0; i < loop_at; ++i) {
      const auto* f = users[0].second[i].as<tir::ForNode>();
      if (f != nullptr && RunsOnce(f)) unit_loops.push_back({f->loop_var, f->min});
    }
    // The union of what the users touch in one iteration of the loop.
    std::vector<tir::IntRange> region;
    for (const auto& [r, path] : users) {
      std::vector<const tir::ForNode*> inner;
      for (size_t i = loop_at + 1; i < path.size(); ++i) {
        if (const auto* f = path[i].as<tir::ForNode>()) inner.push_back(f);
      }
      tir::Analyzer a = tir::AnalyzerFor(tir::LoopsAbove(path));
      for (bool write : {false, true}) {
        if (!touches(write ? r->block->writes : r->block->reads)) continue;
        std::vector<tir::IntRange> acc = tir::AccessRange(r, buffer, write, tir::LoopRanges(inner), a);
        if (acc.size() != shape.size() || !acc[0].min.defined()) return std::nullopt;
        if (region.empty()) {
          region = acc;
          continue;
        }
        for (size_t d = 0; d < region.size(); ++d) {
          // The simplifier folds min(x, x + c) by the bound of the difference.
          region[d] = {a.Simplify(tir::Min(region[d].min, acc[d].min)),
                       a.Simplify(tir::Max(region[d].max, acc[d].max))};
        }
      }
    }
    // Cut the leading dimensions down to the first the region spans more than once. The
    // region's bounds depend only on the loop and the loops above it.
    const tir::Analyzer outer = tir::AnalyzerFor(
        tir::LoopsAbove(tir::StmtPath(users[0].second.begin(), users[0].second.begin() + loop_at + 1)));
    std::vector<int64_t> extents;
    for (size_t d = 0; d < shape.size(); ++d) {
      const PrimExpr extent = outer.Simplify(tir::operator+(tir::operator-(region[d].max, region[d].min), 1));
      const int64_t* e = tir::AsConstInt(extent);
      if (e == nullptr || *e < 1 || *e > shape[d]) return std::nullopt;
      extents.push_back(*e);
    }
    int last_cut = 0;
    while (last_cut + 1 < static_cast<int>(shape.size()) && extents[last_cut] == 1) ++last_cut;
    bool shrinks = false;
    for (int d = 0; d <= last_cut; ++d) shrinks |= extents[d] < shape[d];
    if (!shrinks) return std::nullopt;
    Plan plan;
    plan.from = buffer;
    plan.loop_var = loop->loop_var;
    // Allocated once for the serial loops around that loop, up to the innermost parallel loop
    // (each of whose iterations needs storage of its own): each iteration rewrites its region
    // before reading it, so it can reuse the storage, and an intermediate beyond the stack's
    // limit is not taken from and returned to the workspace per tile (a 1x1 convolution
    // writing NCHW4c took 400 KB per 3-pixel tile, and ran 2x slower on two threads than on one).
    plan.place_var = loop->loop_var;
    for (int i = loop->for_kind == tir::ForKind::kSerial ? loop_at - 1 : -1; i >= 0; --i) {
      const auto* f = users[0].second[i].as<tir::ForNode>();
      if (f == nullptr || RunsOnce(f)) continue;
      if (f->for_kind == tir::ForKind::kParallel) plan.place_var = f->loop_var;  // in its body
      if (f->for_kind != tir::ForKind::kSerial) break;
      plan.place_var = f->loop_var;
    }
    std::vector<PrimExpr> new_shape;
    for (size_t d = 0; d < shape.size(); ++d) {
      bool cut = static_cast<int>(d) <= last_cut;
      new_shape.push_back(cut ? tir::IntImm(buffer->shape[d]->dtype, extents[d]) : buffer->shape[d]);
      if (cut) plan.offsets.push_back(tir::Substitute(region[d].min, unit_loops));
    }
    plan.to = tir::MakeBuffer(buffer->name, new_shape, buffer->dtype);
    return plan;
  }

  struct Rewriter : tir::StmtExprMutator {
    const std::vector<Plan>* plans;
    const Plan* PlanOf(const tir::Buffer& b) const {
      for (const Plan& p : *plans) {
        if (p.from.same_as(b)) return &p;
      }
      return nullptr;
    }
    std::vector<PrimExpr> Shifted(const Plan& p, std::vector<PrimExpr> indices) const {
      for (size_t d = 0; d < p.offsets.size(); ++d) indices[d] = tir::operator-(indices[d], p.offsets[d]);
      return indices;
    }
    PrimExpr VisitExpr_(const tir::BufferLoadNode* op, const PrimExpr& self) override {
      PrimExpr visited = tir::StmtExprMutator::VisitExpr_(op, self);
      const auto* load = visited.as<tir::BufferLoadNode>();
      const Plan* p = PlanOf(load->buffer);
      return p == nullptr ? visited : tir::Load(p->to, Shifted(*p, load->indices));
    }
    Stmt VisitStmt_(const tir::BufferStoreNode* op, const Stmt& self) override {
      Stmt visited = tir::StmtExprMutator::VisitStmt_(op, self);
      const auto* store = visited.as<tir::BufferStoreNode>();
      const Plan* p = PlanOf(store->buffer);
      return p == nullptr ? visited : Stmt(new tir::BufferStoreNode(p->to, store->value, Shifted(*p, store->indices)));
    }
    Stmt VisitStmt_(const tir::AllocateNode* op, const Stmt& self) override {
      if (PlanOf(op->buffer) != nullptr) return VisitStmt(op->body);
      return tir::StmtExprMutator::VisitStmt_(op, self);
    }
    Stmt VisitStmt_(const tir::ForNode* op, const Stmt& self) override {
      Stmt body = VisitStmt(op->body);
      for (const Plan& p : *plans) {
        if (p.place_var.same_as(op->loop_var)) body = Stmt(new tir::AllocateNode(p.to, body));
      }
      return Stmt(new tir::ForNode(op->loop_var, op->min, op->extent, op->for_kind, body, op->annotations));
    }
  };

  std::vector<Plan> plans_;
};

/*! \brief Loops of extent 1 disappear: their variable is replaced by the loop's minimum. */
class UnitLoopRemover : public tir::StmtExprMutator {
 protected:
  Stmt VisitStmt_(const tir::ForNode* op, const Stmt& self) override {
    if (RunsOnce(op)) return VisitStmt(tir::Substitute(op->body, {{op->loop_var, op->min}}));
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
          if (!tir::SameShape(a->buffer, out) || !Qualifies(body, a->buffer, out)) continue;
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
      if (v == nullptr)
        is_static = false;
      else
        size *= *v;
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
      offset = offset.defined() ? tir::operator+(tir::operator*(offset, tir::Cast(DataType::Int64(), b->shape[d])), idx)
                                : idx;
    }
    return offset.defined() ? offset : tir::I64(0);
  }

  std::map<const Object*, tir::Buffer> flat_;
  std::map<const Object*, tir::Buffer> original_;
};

/*! \brief Step 5: consecutive parallel loops that only store one same constant (the border
 *  slabs of a padded result, filled after its producer's loop) become one parallel loop over
 *  their iterations laid end to end, each running its own body under `if`: one launch of the
 *  thread pool instead of one per slab. On two threads a launch costs about a microsecond of
 *  hand-off and waiting, several times a slab's stores (MobileNetV2's expansions each paid four
 *  per call). Stores of one value commute, so the slabs may overlap and interleave freely. */
class ParallelFillMerger : public tir::StmtExprMutator {
 protected:
  Stmt VisitStmt_(const tir::SeqStmtNode* op, const Stmt& self) override {
    std::vector<Stmt> out, run;
    PrimExpr run_value;
    auto flush = [&] {
      if (run.size() == 1) out.push_back(run.front());
      if (run.size() > 1) out.push_back(Merge(run));
      run.clear();
    };
    for (const Stmt& s : op->seq) {
      std::optional<PrimExpr> value = FilledValue(s);
      if (!value) {
        flush();
        out.push_back(VisitStmt(s));
        continue;
      }
      if (!run.empty() && !tir::ExprDeepEqual(*value, run_value)) flush();
      run.push_back(s);
      run_value = *value;
    }
    flush();
    return tir::MakeSeq(out);
  }

 private:
  /*! \brief The constant a parallel loop stores, if its body does nothing else: loops and
   *  stores of that one constant at indices that read no memory. */
  static std::optional<PrimExpr> FilledValue(const Stmt& s) {
    const auto* loop = s.as<tir::ForNode>();
    if (loop == nullptr || loop->for_kind != tir::ForKind::kParallel) return std::nullopt;
    struct Check : tir::StmtExprVisitor {
      bool ok = true;
      PrimExpr value;
      void VisitStmt_(const tir::BufferStoreNode* op) override {
        const bool constant =
            op->value.as<tir::FloatImmNode>() != nullptr || op->value.as<tir::IntImmNode>() != nullptr;
        if (!constant || (value.defined() && !tir::ExprDeepEqual(value, op->value))) ok = false;
        value = op->value;
        tir::StmtExprVisitor::VisitStmt_(op);
      }
      void VisitExpr_(const tir::BufferLoadNode*) override { ok = false; }
      void VisitExpr_(const tir::TirCallNode*) override { ok = false; }
      void VisitStmt_(const tir::IfThenElseNode*) override { ok = false; }
      void VisitStmt_(const tir::EvaluateNode*) override { ok = false; }
      void VisitStmt_(const tir::AllocateNode*) override { ok = false; }
    } check;
    check.VisitStmt(loop->body);
    if (!check.ok || !check.value.defined()) return std::nullopt;
    return check.value;
  }

  /*! \brief for t in parallel(sum of extents): if t < e0: body0(t) elif t < e0 + e1: body1(t - e0)... */
  static Stmt Merge(const std::vector<Stmt>& loops) {
    const auto* first = loops.front().as<tir::ForNode>();
    tir::Var t = tir::MakeVar(first->loop_var->name, first->loop_var->dtype);
    std::vector<PrimExpr> begin;  // where each loop's iterations start in t
    PrimExpr total = tir::IntImm(t->dtype, 0);
    for (const Stmt& loop : loops) {
      begin.push_back(total);
      total = tir::operator+(total, tir::Cast(t->dtype, loop.as<tir::ForNode>()->extent));
    }
    auto body_of = [&](size_t k) {
      const auto* loop = loops[k].as<tir::ForNode>();
      PrimExpr at = tir::operator+(tir::operator-(PrimExpr(t), begin[k]), tir::Cast(t->dtype, loop->min));
      return tir::Substitute(loop->body, {{loop->loop_var, tir::Cast(loop->loop_var->dtype, at)}});
    };
    Stmt body = body_of(loops.size() - 1);
    for (size_t k = loops.size() - 1; k-- > 0;) {
      body = Stmt(new tir::IfThenElseNode(tir::operator<(PrimExpr(t), begin[k + 1]), body_of(k), body));
    }
    return Stmt(new tir::ForNode(t, tir::IntImm(t->dtype, 0), total, tir::ForKind::kParallel, body));
  }
};

/*! \brief Step 6: a select whose condition holds or fails for a whole loop nest is decided
 *  once, outside it: `if c: nest[select -> its first value] else: nest[select -> its second]`.
 *  A concatenation fused with its consumer picks its source by channel, `Select(c < 8, A[...],
 *  Select(c < 10, B[...], ...))` inside the loops over the pixels; as a select per element,
 *  every source's load ran for every output vector (DenseNet-121's batch norm and ReLU of the
 *  concatenated features, 2 to 32 sources each). Only conditions that read no memory are
 *  decided, on selects with an arm that loads, over nests of at least kMinIterations, and at most
 *  kMaxCopies copies of a nest are made (independent selects multiply them). */
class InvariantSelectHoister : public tir::StmtExprMutator {
 public:
  static constexpr int kMaxCopies = 64;
  // A decision pays where it saves the arms' loads over several vectors. Around one vector's
  // lanes (a padding's select per pixel over the 16 channels of a block) a branch per pixel
  // cost more than the blend: EfficientNet-V2-S, LRASPP and DCGAN ran 1-2% slower.
  static constexpr int64_t kMinIterations = 64;

  /*! \brief Whether `body` stores a select with an arm that loads: most kernels have none, and
   *  skip the walk per loop and the second simplification. */
  static bool MayApply(const Stmt& body) {
    struct Finder : tir::StmtExprVisitor {
      bool found = false;
      void VisitExpr_(const tir::SelectNode* op) override {
        found = found || Loads(op->true_value) || Loads(op->false_value);
        if (!found) tir::StmtExprVisitor::VisitExpr_(op);
      }
    } finder;
    finder.VisitStmt(body);
    return finder.found;
  }

 protected:
  Stmt VisitStmt_(const tir::ForNode* op, const Stmt& self) override {
    std::optional<PrimExpr> cond;
    if (copies_ < kMaxCopies && Iterations(self) >= kMinIterations) cond = InvariantCondition(op);
    if (cond) {
      // The copies are still the same nest: counted together, even when it is the outermost.
      ++copies_;
      ++depth_;
      Stmt then_case = VisitStmt(DecideSelects(self, *cond, true));
      Stmt else_case = VisitStmt(DecideSelects(self, *cond, false));
      --depth_;
      return Stmt(new tir::IfThenElseNode(*cond, then_case, else_case));
    }
    // A new outermost nest starts its own count.
    const int saved = copies_;
    if (depth_ == 0) copies_ = 1;
    ++depth_;
    Stmt out = tir::StmtExprMutator::VisitStmt_(op, self);
    --depth_;
    if (depth_ == 0) copies_ = saved;
    return out;
  }

 private:
  /*! \brief How many times the stores in `s` run (a symbolic extent counts as many). */
  static int64_t Iterations(const Stmt& s) {
    if (const auto* loop = s.as<tir::ForNode>()) {
      const int64_t* extent = tir::AsConstInt(loop->extent);
      return std::min<int64_t>(int64_t{1} << 30, (extent ? *extent : kMinIterations) * Iterations(loop->body));
    }
    if (const auto* seq = s.as<tir::SeqStmtNode>()) {
      int64_t total = 0;
      for (const Stmt& part : seq->seq) total = std::min<int64_t>(int64_t{1} << 30, total + Iterations(part));
      return total;
    }
    if (const auto* branch = s.as<tir::IfThenElseNode>()) {
      return std::max(Iterations(branch->then_case),
                      branch->else_case.defined() ? Iterations(branch->else_case) : int64_t{0});
    }
    if (const auto* alloc = s.as<tir::AllocateNode>()) return Iterations(alloc->body);
    return 1;
  }

  static bool Loads(const PrimExpr& e) { return !tir::LoadsIn(e).empty(); }

  /*! \brief The condition of a select in a value `loop` stores that uses none of the loop
   *  variables of `loop` and the loops inside it, reads no memory, and has an arm that does. */
  static std::optional<PrimExpr> InvariantCondition(const tir::ForNode* loop) {
    struct Finder : tir::StmtExprVisitor {
      std::vector<tir::Var> loop_vars;
      std::vector<PrimExpr> candidates;
      void VisitStmt_(const tir::ForNode* op) override {
        loop_vars.push_back(op->loop_var);
        tir::StmtExprVisitor::VisitStmt_(op);
      }
      void VisitStmt_(const tir::BufferStoreNode* op) override { VisitValue(op->value); }
      void VisitValue(const PrimExpr& e) {
        struct Selects : tir::StmtExprVisitor {
          std::vector<const tir::SelectNode*> all;
          void VisitExpr_(const tir::SelectNode* op) override {
            all.push_back(op);
            tir::StmtExprVisitor::VisitExpr_(op);
          }
          void VisitExpr_(const tir::BufferLoadNode*) override {}  // not inside indices
        } selects;
        selects.VisitExpr(e);
        for (const tir::SelectNode* sel : selects.all) {
          if (Loads(sel->condition) || !(Loads(sel->true_value) || Loads(sel->false_value))) continue;
          candidates.push_back(sel->condition);
        }
      }
    } finder;
    finder.loop_vars.push_back(loop->loop_var);
    finder.VisitStmt(loop->body);
    for (const PrimExpr& cond : finder.candidates) {
      bool invariant = true;
      for (const tir::Var& v : finder.loop_vars) invariant = invariant && !tir::UsesVar(cond, v);
      if (invariant) return cond;
    }
    return std::nullopt;
  }

  /*! \brief `s` with every select on `cond` replaced by the arm `holds` picks. */
  static Stmt DecideSelects(const Stmt& s, const PrimExpr& cond, bool holds) {
    struct Decider : tir::StmtExprMutator {
      const PrimExpr& cond;
      bool holds;
      Decider(const PrimExpr& c, bool h) : cond(c), holds(h) {}
      PrimExpr VisitExpr_(const tir::SelectNode* op, const PrimExpr& self) override {
        if (tir::ExprDeepEqual(op->condition, cond)) return VisitExpr(holds ? op->true_value : op->false_value);
        return tir::StmtExprMutator::VisitExpr_(op, self);
      }
    } decider(cond, holds);
    return decider.VisitStmt(s);
  }

  int copies_ = 1;  // copies of the current outermost nest so far
  int depth_ = 0;   // loops around the statement being visited
};

}  // namespace

absl::StatusOr<tir::PrimFunc> LowerPrimFunc(const tir::PrimFunc& func) {
  BlockLowerer blocks;
  AllocationCompactor compact(func->body);
  Stmt body = UnitLoopRemover().VisitStmt(blocks.VisitStmt(func->body));
  body = EpilogueInPlace::Run(func, body);
  body = compact.Apply(body);
  // Indices are simplified while still multi-dimensional, where a layout's `j // 16, j % 16`
  // are visible, and again after flattening, to fold the row-major offsets.
  body = tir::SimplifyWithLoopRanges(body);
  Flattener flatten;
  std::vector<tir::Buffer> params;
  for (const tir::Buffer& p : func->params) params.push_back(flatten.VisitBuffer(p));
  body = tir::SimplifyWithLoopRanges(ParallelFillMerger().VisitStmt(flatten.VisitStmt(body)));
  if (InvariantSelectHoister::MayApply(body))
    body = tir::SimplifyWithLoopRanges(InvariantSelectHoister().VisitStmt(body));
  return tir::PrimFunc(new tir::PrimFuncNode(params, body, func->attrs));
}

}  // namespace codegen
}  // namespace mlc
