/*! \file cache.cc
 *  \brief cache_read and cache_write: a copy of a buffer that one block reads or writes
 *         instead, to be placed (compute_at) and laid out (transform_layout) for locality.
 */
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/tir_functor.h"
#include "ir/tir/tir_util.h"
#include "passes/schedule/schedule.h"

namespace mlc {
namespace tir {
namespace {

/*! \brief A block copying the whole of `src` into `dst`, in loops ax0, ax1, ... */
Stmt CopyBlock(const std::string& name, const Buffer& src, const Buffer& dst) {
  std::vector<Var> loops;
  std::vector<IterVar> iters;
  std::vector<PrimExpr> values, index;
  for (int d = 0; d < src->ndim(); ++d) {
    DataType t = src->shape[d]->dtype;
    Var ax = MakeVar(absl::StrCat("ax", d), t);
    Var v = MakeVar(absl::StrCat("v", d), t);
    loops.push_back(ax);
    iters.push_back(IterVar{v, Range{IntImm(t, 0), src->shape[d]}, IterKind::kSpatial});
    values.push_back(ax);
    index.push_back(v);
  }
  Stmt body = Store(dst, index, Load(src, index));
  Stmt realize = MakeBlockRealize(name, iters, values, body);
  return MakeLoopNest(loops, src->shape, realize);
}

/*! \brief `body` of the scope with `stmt` inserted at position `pos` of its top level. */
Stmt InsertInScope(const Stmt& scope_body, size_t pos, const Stmt& stmt) {
  std::vector<Stmt> seq;
  if (const auto* s = scope_body.as<SeqStmtNode>()) {
    seq = s->seq;
  } else {
    seq = {scope_body};
  }
  seq.insert(seq.begin() + std::min(pos, seq.size()), stmt);
  return MakeSeq(seq);
}

/*! \brief The index of the top-level statement of the scope that contains the path's end. */
size_t TopLevelIndex(const Stmt& scope_body, const StmtPath& path) {
  const auto* seq = scope_body.as<SeqStmtNode>();
  if (seq == nullptr) return 0;
  for (size_t i = 0; i < seq->seq.size(); ++i) {
    for (const Stmt& s : path) {
      if (s.same_as(seq->seq[i])) return i;
    }
  }
  return 0;
}

/*! \brief The function body with `block` accessing `cache` instead of `from`, the `copy`
 *  inserted at top-level position `pos` of the block's scope, and `cache` allocated there. */
Stmt WithCache(const Stmt& func_body, const StmtPath& path, const BlockNode* block, const Buffer& from,
               const Buffer& cache, size_t pos, const Stmt& copy) {
  const BlockRealizeNode* scope_realize = ScopeOf(path);
  BufferAccessRewriter redirect(from, cache);
  Block redirected = WithBodyRewritten(block, &redirect);
  const BlockNode* sb = scope_realize->block.get();
  Stmt scope_body = InsertInScope(ReplaceNode(sb->body, block, redirected), pos, copy);
  std::vector<Buffer> allocs = sb->alloc_buffers;
  allocs.push_back(cache);
  Block new_scope(
      new BlockNode(sb->name, sb->iter_vars, sb->reads, sb->writes, allocs, sb->init, scope_body, sb->annotations));
  return ReplaceNode(func_body, scope_realize,
                     Stmt(new BlockRealizeNode(scope_realize->iter_values, scope_realize->predicate, new_scope)));
}

}  // namespace

absl::StatusOr<BlockRV> Schedule::CacheRead(const BlockRV& block_rv, int read_index, const std::string& scope) {
  const char* kPrim = "cache_read";
  absl::StatusOr<BlockRef> b = Resolve(block_rv, kPrim);
  if (!b.ok()) return b.status();
  std::string what = absl::StrCat("block ", b->block->name);
  if (read_index < 0 || read_index >= static_cast<int>(b->block->reads.size())) {
    return ErrorAt(
        kPrim, what,
        absl::StrCat("it reads ", b->block->reads.size(), " buffers; index ", read_index, " is out of range"));
  }
  Buffer src = b->block->reads[read_index].buffer;
  Buffer cache = MakeBuffer(absl::StrCat(src->name, "_", scope), src->shape, src->dtype);
  std::string name = UniqueBlockName(b->prim->body, cache->name);
  Stmt copy = CopyBlock(name, src, cache);
  const BlockRealizeNode* scope_realize = ScopeOf(b->path);
  // After the block of the scope that produces the buffer, else at the start.
  size_t pos = 0;
  std::vector<const BlockRealizeNode*> children = ChildBlocks(Stmt(scope_realize->block));
  for (const BlockRealizeNode* r : children) {
    bool writes = std::any_of(r->block->writes.begin(), r->block->writes.end(),
                              [&](const BufferRegion& w) { return w.buffer.same_as(src); });
    if (!writes) continue;
    std::optional<StmtPath> p = FindBlock(b->prim->body, r->block->name);
    pos = TopLevelIndex(scope_realize->block->body, *p) + 1;
  }
  SetBody(b->func, WithCache(b->prim->body, b->path, b->block, src, cache, pos, copy));
  BlockRV out = NewBlockRV(b->func, name);
  Record(kPrim, {TraceValue::Block(block_rv), TraceValue::Int(read_index), TraceValue::Str(scope)},
         {TraceValue::Block(out)});
  return out;
}

absl::StatusOr<BlockRV> Schedule::CacheWrite(const BlockRV& block_rv, int write_index, const std::string& scope) {
  const char* kPrim = "cache_write";
  absl::StatusOr<BlockRef> b = Resolve(block_rv, kPrim);
  if (!b.ok()) return b.status();
  std::string what = absl::StrCat("block ", b->block->name);
  if (write_index < 0 || write_index >= static_cast<int>(b->block->writes.size())) {
    return ErrorAt(
        kPrim, what,
        absl::StrCat("it writes ", b->block->writes.size(), " buffers; index ", write_index, " is out of range"));
  }
  Buffer dst = b->block->writes[write_index].buffer;
  Buffer cache = MakeBuffer(absl::StrCat(dst->name, "_", scope), dst->shape, dst->dtype);
  std::string name = UniqueBlockName(b->prim->body, cache->name);
  Stmt copy = CopyBlock(name, cache, dst);
  size_t pos = TopLevelIndex(ScopeOf(b->path)->block->body, b->path) + 1;
  SetBody(b->func, WithCache(b->prim->body, b->path, b->block, dst, cache, pos, copy));
  BlockRV out = NewBlockRV(b->func, name);
  Record(kPrim, {TraceValue::Block(block_rv), TraceValue::Int(write_index), TraceValue::Str(scope)},
         {TraceValue::Block(out)});
  return out;
}

}  // namespace tir
}  // namespace mlc
