/*! \file compute_inline.cc
 *  \brief compute_inline and reverse_compute_inline: merging an elementwise block into its
 *         consumers or into its producer.
 */
#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/tir_functor.h"
#include "ir/tir/tir_util.h"
#include "passes/schedule/schedule.h"

namespace mlc {
namespace tir {
namespace {

/*! \brief Whether `indices` are distinct iteration variables of `block`, each used once. */
bool DistinctIterVars(const BlockNode* block, const std::vector<PrimExpr>& indices) {
  std::set<const Object*> seen;
  for (const PrimExpr& i : indices) {
    const auto* v = i.as<TirVarNode>();
    if (v == nullptr || !seen.insert(v).second) return false;
    bool is_iter = std::any_of(block->iter_vars.begin(), block->iter_vars.end(),
                               [&](const IterVar& iv) { return iv.var.get() == v; });
    if (!is_iter) return false;
  }
  return seen.size() == block->iter_vars.size();
}

/*! \brief Loads of `buffer` replaced by `value` with `vars` bound to the load's indices. */
class LoadInliner : public StmtExprMutator {
 public:
  LoadInliner(Buffer buffer, std::vector<Var> vars, PrimExpr value)
      : buffer_(std::move(buffer)), vars_(std::move(vars)), value_(std::move(value)) {}

 protected:
  PrimExpr VisitExpr_(const BufferLoadNode* op, const PrimExpr& self) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op, self);
    const auto* load = e.as<BufferLoadNode>();
    if (load == nullptr || !load->buffer.same_as(buffer_)) return e;
    std::vector<std::pair<Var, PrimExpr>> bind;
    for (size_t i = 0; i < vars_.size(); ++i) bind.push_back({vars_[i], load->indices[i]});
    return Substitute(value_, bind);
  }

 private:
  Buffer buffer_;
  std::vector<Var> vars_;
  PrimExpr value_;
};

}  // namespace

absl::Status Schedule::ComputeInline(const BlockRV& block_rv) {
  const char* kPrim = "compute_inline";
  absl::StatusOr<BlockRef> b = Resolve(block_rv, kPrim);
  if (!b.ok()) return b.status();
  const BlockNode* block = b->block;
  std::string what = absl::StrCat("block ", block->name);
  if (!IsSpatialBlock(block)) return ErrorAt(kPrim, what, "it is a reduction; only elementwise blocks can be inlined");
  const auto* store = block->body.as<BufferStoreNode>();
  if (store == nullptr) return ErrorAt(kPrim, what, "its body is not a single store");
  if (!DistinctIterVars(block, store->indices)) {
    return ErrorAt(kPrim, what, "it does not store at exactly its iteration variables (out[v0, v1, ...])");
  }
  if (IsParam(b->prim, store->buffer)) {
    return ErrorAt(kPrim, what, absl::StrCat("it writes ", store->buffer->name, ", a parameter of the function"));
  }
  for (const BlockRealizeNode* r : AllBlocks(b->prim->body)) {
    if (r == b->realize) continue;
    for (const BufferRegion& w : r->block->writes) {
      if (w.buffer.same_as(store->buffer)) {
        return ErrorAt(kPrim, what, absl::StrCat("block ", r->block->name, " also writes ", store->buffer->name));
      }
    }
  }
  for (const BufferRegion& rd : block->reads) {
    if (rd.buffer.same_as(store->buffer)) return ErrorAt(kPrim, what, "it reads what it writes");
  }
  std::vector<Var> vars;
  for (const PrimExpr& i : store->indices) vars.push_back(i.as_ref<Var>());
  LoadInliner inliner(store->buffer, vars, store->value);
  const Object* old = b->realize;
  Stmt body = RewriteStmt(b->prim->body, [&](const Stmt& s) -> std::optional<Stmt> {
    if (s.get() == old) return Stmt();
    const auto* r = s.as<BlockRealizeNode>();
    // Every consumer block but the function's root, including scalar (0-d) blocks, which have
    // no iteration variables either.
    if (r == nullptr || s.get() == b->prim->body.get()) return std::nullopt;
    bool reads = std::any_of(r->block->reads.begin(), r->block->reads.end(),
                             [&](const BufferRegion& rr) { return rr.buffer.same_as(store->buffer); });
    if (!reads) return std::nullopt;
    const BlockNode* c = r->block.get();
    Block nb(new BlockNode(c->name, c->iter_vars, c->reads, c->writes, c->alloc_buffers,
                           c->init.defined() ? inliner.VisitStmt(c->init) : c->init, inliner.VisitStmt(c->body),
                           c->annotations));
    return Stmt(new BlockRealizeNode(r->iter_values, r->predicate, WithInferredRegions(nb)));
  });
  SetBody(b->func, DropAllocation(body, store->buffer));
  Record(kPrim, {TraceValue::Block(block_rv)});
  return absl::OkStatus();
}

absl::Status Schedule::ReverseComputeInline(const BlockRV& block_rv) {
  const char* kPrim = "reverse_compute_inline";
  absl::StatusOr<BlockRef> b = Resolve(block_rv, kPrim);
  if (!b.ok()) return b.status();
  const BlockNode* consumer = b->block;
  std::string what = absl::StrCat("block ", consumer->name);
  if (!IsSpatialBlock(consumer))
    return ErrorAt(kPrim, what, "it is a reduction; only elementwise blocks can be inlined");
  const auto* store = consumer->body.as<BufferStoreNode>();
  if (store == nullptr) return ErrorAt(kPrim, what, "its body is not a single store");
  // The buffer it consumes: read at exactly its iteration variables.
  const std::vector<const BufferLoadNode*> loads = LoadsIn(store->value);
  // The producer: the one other block of the scope writing a buffer this block reads.
  const BlockRealizeNode* producer = nullptr;
  Buffer consumed;
  for (const BlockRealizeNode* r : AllBlocks(b->prim->body)) {
    if (r == b->realize) continue;
    for (const BufferRegion& w : r->block->writes) {
      for (const BufferRegion& rd : consumer->reads) {
        if (!w.buffer.same_as(rd.buffer)) continue;
        if (producer != nullptr && producer != r) {
          return ErrorAt(kPrim, what,
                         absl::StrCat("it reads the outputs of several blocks (", producer->block->name, ", ",
                                      r->block->name, ")"));
        }
        producer = r;
        consumed = w.buffer;
      }
    }
  }
  if (producer == nullptr) return ErrorAt(kPrim, what, "no block of the function produces what it reads");
  const BlockNode* p = producer->block.get();
  if (!IsSpatialBlock(p)) {
    return ErrorAt(kPrim, what,
                   absl::StrCat("its producer ", p->name, " is a reduction (decompose it or use reverse_compute_at)"));
  }
  const auto* pstore = p->body.as<BufferStoreNode>();
  if (pstore == nullptr || !pstore->buffer.same_as(consumed)) {
    return ErrorAt(kPrim, what, absl::StrCat("the body of its producer ", p->name, " is not a single store"));
  }
  if (IsParam(b->prim, consumed))
    return ErrorAt(kPrim, what, absl::StrCat(consumed->name, " is a parameter of the function"));
  std::vector<PrimExpr> index;
  for (const BufferLoadNode* l : loads) {
    if (!l->buffer.same_as(consumed)) continue;
    if (!DistinctIterVars(consumer, l->indices)) {
      return ErrorAt(kPrim, what,
                     absl::StrCat("it reads ", consumed->name, " elsewhere than at its iteration variables"));
    }
    if (index.empty()) {
      index = l->indices;
    } else {
      for (size_t d = 0; d < index.size(); ++d) {
        if (!index[d].same_as(l->indices[d]))
          return ErrorAt(kPrim, what, absl::StrCat("it reads ", consumed->name, " at two places"));
      }
    }
  }
  for (const BlockRealizeNode* r : AllBlocks(b->prim->body)) {
    if (r == b->realize || r == producer) continue;
    for (const BufferRegion& rd : r->block->reads) {
      if (rd.buffer.same_as(consumed)) {
        return ErrorAt(kPrim, what, absl::StrCat("block ", r->block->name, " also reads ", consumed->name));
      }
    }
  }
  // consumer var at position d = producer's store index d; loads of the buffer = producer value.
  std::vector<std::pair<Var, PrimExpr>> bind;
  for (size_t d = 0; d < index.size(); ++d) bind.push_back({index[d].as_ref<Var>(), pstore->indices[d]});
  LoadInliner inliner(consumed, std::vector<Var>(), pstore->value);
  PrimExpr value = Substitute(inliner.VisitExpr(store->value), bind);
  std::vector<PrimExpr> out_index;
  for (const PrimExpr& i : store->indices) out_index.push_back(Substitute(i, bind));
  Stmt new_body(new BufferStoreNode(store->buffer, value, out_index));
  Block nb = WithInferredRegions(
      Block(new BlockNode(p->name, p->iter_vars, {}, {}, p->alloc_buffers, p->init, new_body, p->annotations)));
  const Object* old_consumer = b->realize;
  const Object* old_producer = producer;
  Stmt body = RewriteStmt(b->prim->body, [&](const Stmt& s) -> std::optional<Stmt> {
    if (s.get() == old_consumer) return Stmt();
    if (s.get() == old_producer) return Stmt(new BlockRealizeNode(producer->iter_values, producer->predicate, nb));
    return std::nullopt;
  });
  SetBody(b->func, DropAllocation(body, consumed));
  Record(kPrim, {TraceValue::Block(block_rv)});
  return absl::OkStatus();
}

}  // namespace tir
}  // namespace mlc
