/*! \file prim_func_pattern.cc */
#include "passes/prim_func_pattern.h"

#include "ir/tir/stmt_tree.h"
#include "ir/tir/tir_functor.h"
#include "passes/schedule/rules/rules.h"

namespace mlc {
namespace passes {
namespace {

using relax::OpPattern;

/*! \brief How the loads of a spatial block read against its store's indices. */
OpPattern SpatialPattern(const tir::BlockNode* block, const tir::BufferStoreNode* store) {
  struct Loads : tir::StmtExprVisitor {
    const tir::BufferStoreNode* store;
    OpPattern kind = OpPattern::kElemWise;
    void VisitExpr_(const tir::BufferLoadNode* op) override {
      kind = std::max(kind, Of(op->indices));
      tir::StmtExprVisitor::VisitExpr_(op);
    }
    OpPattern Of(const std::vector<tir::PrimExpr>& indices) const {
      if (indices.size() == store->indices.size()) {
        bool same = true;
        for (size_t d = 0; d < indices.size(); ++d) same &= indices[d].same_as(store->indices[d]);
        if (same) return OpPattern::kElemWise;
      }
      // Broadcast: each index a constant or one of the store's, in the store's order.
      size_t next = 0;
      for (const tir::PrimExpr& i : indices) {
        if (tir::AsConstInt(i) != nullptr) continue;
        while (next < store->indices.size() && !store->indices[next].same_as(i)) ++next;
        if (next == store->indices.size()) return OpPattern::kInjective;
        ++next;
      }
      return OpPattern::kBroadcast;
    }
  } loads;
  loads.store = store;
  loads.VisitExpr(store->value);
  (void)block;
  return loads.kind;
}

/*! \brief A reduction block `C = C + A * B` (a matmul's, a convolution's). */
bool SumOfProducts(const tir::BufferStoreNode* store) {
  const auto* add = store->value.as<tir::AddNode>();
  const auto* mul = add ? add->b.as<tir::MulNode>() : nullptr;
  auto load = [](const tir::PrimExpr& e) {
    if (const auto* c = e.as<tir::CastNode>()) return c->value.as<tir::BufferLoadNode>();
    return e.as<tir::BufferLoadNode>();
  };
  return mul != nullptr && add->a.as<tir::BufferLoadNode>() != nullptr && load(mul->a) != nullptr &&
         load(mul->b) != nullptr;
}

}  // namespace

OpPattern PrimFuncPattern(const tir::PrimFunc& func) {
  if (!func.defined() || tir::IsScheduled(func)) return OpPattern::kOpaque;
  OpPattern kind = OpPattern::kElemWise;
  int reductions = 0;
  for (const tir::BlockRealizeNode* r : tir::AllBlocks(func->body)) {
    const tir::BlockNode* block = r->block.get();
    if (r->iter_values.empty()) continue;  // the root
    const auto* store = block->body.as<tir::BufferStoreNode>();
    if (store == nullptr) return OpPattern::kOpaque;
    if (tir::IsReductionBlock(block)) {
      if (++reductions > 1) return OpPattern::kOpaque;
      kind = std::max(kind, SumOfProducts(store) ? OpPattern::kOutEWiseFusable : OpPattern::kCommReduce);
      continue;
    }
    if (!tir::IsSpatialBlock(block)) return OpPattern::kOpaque;
    // The store at the block's iteration variables, each once, in order.
    bool plain = store->indices.size() == block->iter_vars.size();
    for (size_t d = 0; plain && d < store->indices.size(); ++d)
      plain = store->indices[d].same_as(block->iter_vars[d].var);
    kind = std::max(kind, plain ? SpatialPattern(block, store) : OpPattern::kInjective);
  }
  return kind;
}

}  // namespace passes
}  // namespace mlc
