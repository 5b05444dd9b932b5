/*! \file tir_util.cc
 *  \brief Block region inference, loop nests and substitution.
 */
#include "ir/tir/tir_util.h"

#include <algorithm>
#include <map>
#include <set>

#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/tir_functor.h"

namespace mlc {
namespace tir {
namespace {

/*! \brief Records every buffer access of a block body, in order of first appearance. */
class AccessCollector : public StmtExprVisitor {
 public:
  struct Access {
    Buffer buffer;
    std::vector<std::vector<PrimExpr>> index_lists;
  };
  std::vector<Access> reads, writes;

 protected:
  void VisitExpr_(const BufferLoadNode* op) override {
    Record(&reads, op->buffer, op->indices);
    StmtExprVisitor::VisitExpr_(op);
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    Record(&writes, op->buffer, op->indices);
    StmtExprVisitor::VisitStmt_(op);
  }
  // Nested blocks declare their own regions; an outer block sees them through these.
  void VisitStmt_(const BlockNode* op) override {
    for (const BufferRegion& r : op->reads) RecordRegion(&reads, r);
    for (const BufferRegion& r : op->writes) RecordRegion(&writes, r);
  }

 private:
  static void Record(std::vector<Access>* list, const Buffer& b, const std::vector<PrimExpr>& indices) {
    // An access with the wrong number of indices is malformed; the verifier reports it.
    if (static_cast<int>(indices.size()) != b->ndim()) return;
    for (Access& a : *list) {
      if (a.buffer.same_as(b)) {
        a.index_lists.push_back(indices);
        return;
      }
    }
    list->push_back({b, {indices}});
  }
  static void RecordRegion(std::vector<Access>* list, const BufferRegion& r) {
    // Whole-buffer accesses of nested blocks widen the region to the full extent.
    std::vector<PrimExpr> marker;
    for (size_t i = 0; i < r.region.size(); ++i) marker.push_back(PrimExpr());
    Record(list, r.buffer, marker);
  }
};

bool SameExpr(const PrimExpr& a, const PrimExpr& b) {
  if (a.same_as(b)) return true;
  if (!a.defined() || !b.defined()) return false;
  // Indices are small; compare their printed forms (vars by identity through the node).
  if (a->kind() != b->kind()) return false;
  if (const auto* x = a.as<IntImmNode>()) return x->value == b.as<IntImmNode>()->value && a->dtype == b->dtype;
  if (a->kind() == NodeKind::kTirVar) return false;  // distinct var nodes
  if (const auto* x = a.as<BinaryNode>()) {
    const auto* y = static_cast<const BinaryNode*>(b.get());
    return SameExpr(x->a, y->a) && SameExpr(x->b, y->b);
  }
  return false;
}

std::vector<BufferRegion> ToRegions(const std::vector<AccessCollector::Access>& accesses,
                                    const std::set<const Object*>& exclude) {
  std::vector<BufferRegion> out;
  for (const auto& access : accesses) {
    if (exclude.count(access.buffer.get())) continue;
    BufferRegion region{access.buffer, {}};
    for (int d = 0; d < access.buffer->ndim(); ++d) {
      const PrimExpr& first = access.index_lists[0][d];
      bool all_same = first.defined();
      for (const auto& list : access.index_lists) all_same = all_same && SameExpr(list[d], first);
      if (all_same) {
        region.region.push_back({first, Const(first->dtype, 1)});
        continue;
      }
      // Constant indices cover [min, max]; anything else covers the whole dimension.
      bool all_const = true;
      int64_t lo = 0, hi = 0;
      for (size_t k = 0; k < access.index_lists.size(); ++k) {
        const int64_t* v = access.index_lists[k][d].defined() ? AsConstInt(access.index_lists[k][d]) : nullptr;
        if (v == nullptr) {
          all_const = false;
          break;
        }
        lo = k == 0 ? *v : std::min(lo, *v);
        hi = k == 0 ? *v : std::max(hi, *v);
      }
      DataType it = access.buffer->shape[d]->dtype;
      if (all_const) {
        region.region.push_back({Const(it, static_cast<double>(lo)), Const(it, static_cast<double>(hi - lo + 1))});
      } else {
        region.region.push_back({Const(it, 0), access.buffer->shape[d]});
      }
    }
    out.push_back(std::move(region));
  }
  return out;
}

class Substituter : public StmtExprMutator {
 public:
  explicit Substituter(const std::vector<std::pair<Var, PrimExpr>>& map) {
    for (const auto& [var, value] : map) map_[var.get()] = value;
  }

 protected:
  PrimExpr VisitExpr_(const TirVarNode* op, const PrimExpr& self) override {
    auto it = map_.find(op);
    return it == map_.end() ? self : it->second;
  }

 private:
  std::map<const Object*, PrimExpr> map_;
};

}  // namespace

std::pair<std::vector<BufferRegion>, std::vector<BufferRegion>> InferAccessRegions(
    const Stmt& body, const Stmt& init, const std::vector<Buffer>& alloc_buffers) {
  AccessCollector collector;
  collector.VisitStmt(init);
  collector.VisitStmt(body);
  std::set<const Object*> allocated;
  for (const Buffer& b : alloc_buffers) allocated.insert(b.get());
  std::set<const Object*> read_exclude = allocated;
  if (init.defined()) {
    for (const auto& w : collector.writes) read_exclude.insert(w.buffer.get());
  }
  return {ToRegions(collector.reads, read_exclude), ToRegions(collector.writes, allocated)};
}

Stmt MakeLoopNest(const std::vector<Var>& vars, const std::vector<PrimExpr>& extents, Stmt body) {
  for (int i = static_cast<int>(vars.size()) - 1; i >= 0; --i) {
    body = Stmt(new ForNode(vars[i], Const(extents[i]->dtype, 0), extents[i], ForKind::kSerial, std::move(body)));
  }
  return body;
}

Stmt MakeBlockRealize(const std::string& name, std::vector<IterVar> iter_vars, std::vector<PrimExpr> values, Stmt body,
                      Stmt init, std::vector<Buffer> alloc_buffers) {
  auto [reads, writes] = InferAccessRegions(body, init, alloc_buffers);
  Block block(new BlockNode(name, std::move(iter_vars), std::move(reads), std::move(writes), std::move(alloc_buffers),
                            std::move(init), std::move(body)));
  return Stmt(new BlockRealizeNode(std::move(values), True(), std::move(block)));
}

PrimExpr Substitute(const PrimExpr& expr, const std::vector<std::pair<Var, PrimExpr>>& map) {
  return Substituter(map).VisitExpr(expr);
}

Stmt Substitute(const Stmt& stmt, const std::vector<std::pair<Var, PrimExpr>>& map) {
  return Substituter(map).VisitStmt(stmt);
}

}  // namespace tir
}  // namespace mlc
