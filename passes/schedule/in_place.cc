/*! \file in_place.cc
 *  \brief in_place_epilogue: a reduction computed in the output of its epilogue.
 *
 *    tmp[i] = sum ...                     out[i + o] = sum ...
 *    out[i + o] = f(tmp[i], ...)    ->    out[i + o] = f(out[i + o], ...)
 *
 *  The epilogue reads each element of the intermediate once, in the iteration that writes the
 *  same element of the output, so computing the sums where the results go computes the same
 *  and saves the intermediate's storage and the traffic of writing and reading it back. Code
 *  generation does this for epilogues at the same index (lower_tir's EpilogueInPlace, after
 *  tensorize); a constant offset (the interior of a padded output, decompose_padding) must be
 *  known before tensorize, which takes the strides of the buffer the tile writes.
 */
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ir/tir/analyzer.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/stmt_tree.h"
#include "ir/tir/tir_functor.h"
#include "ir/tir/tir_util.h"
#include "passes/schedule/schedule.h"

namespace mlc {
namespace tir {

absl::Status Schedule::InPlaceEpilogue(const BlockRV& block_rv) {
  const char* kPrim = "in_place_epilogue";
  absl::StatusOr<BlockRef> b = Resolve(block_rv, kPrim);
  if (!b.ok()) return b.status();
  const BlockNode* epilogue = b->block;
  const std::string what = absl::StrCat("block ", epilogue->name);
  const auto* store = epilogue->body.as<BufferStoreNode>();
  if (!IsSpatialBlock(epilogue) || store == nullptr || !IsParam(b->prim, store->buffer)) {
    return ErrorAt(kPrim, what, "it is not one store to a parameter of the function");
  }
  const Buffer& out = store->buffer;
  // The intermediate: the one buffer it reads at its iteration variables, which the store
  // indexes at a constant offset.
  Analyzer analyzer;
  std::optional<Buffer> tmp;
  std::vector<PrimExpr> offset;
  for (const BufferLoadNode* l : LoadsIn(store->value)) {
    if (l->buffer.same_as(out)) return ErrorAt(kPrim, what, absl::StrCat("it reads ", out->name, ", which it writes"));
    if (IsParam(b->prim, l->buffer) || l->indices.size() != store->indices.size()) continue;
    std::vector<PrimExpr> o;
    for (size_t d = 0; d < l->indices.size(); ++d) {
      PrimExpr diff = analyzer.Simplify(store->indices[d] - l->indices[d]);
      if (AsConstInt(diff) == nullptr) break;
      o.push_back(diff);
    }
    if (o.size() != l->indices.size() || (tmp && !tmp->same_as(l->buffer))) {
      return ErrorAt(
          kPrim, what,
          absl::StrCat("it reads ", l->buffer->name, " elsewhere than where it stores, or several intermediates"));
    }
    tmp = l->buffer;
    offset = o;
  }
  if (!tmp) return ErrorAt(kPrim, what, "it reads no intermediate at the place it stores");
  // One producer, a reduction; no other block reads the intermediate or touches the output
  // between them (other writers of the output, such as a padding's border, must store
  // elsewhere: checked where they write constants over constant boxes).
  const BlockRealizeNode* producer = nullptr;
  for (const BlockRealizeNode* r : AllBlocks(b->prim->body)) {
    if (r == b->realize || r->iter_values.empty()) continue;
    for (const BufferRegion& w : r->block->writes) {
      if (w.buffer.same_as(*tmp)) {
        if (producer != nullptr) return ErrorAt(kPrim, what, absl::StrCat("several blocks write ", (*tmp)->name));
        producer = r;
      }
    }
    for (const BufferRegion& rd : r->block->reads) {
      if (rd.buffer.same_as(out))
        return ErrorAt(kPrim, what, absl::StrCat("block ", r->block->name, " reads ", out->name));
      if (rd.buffer.same_as(*tmp) && r->block->writes.size() == 1 && !r->block->writes[0].buffer.same_as(*tmp)) {
        return ErrorAt(kPrim, what, absl::StrCat("block ", r->block->name, " also reads ", (*tmp)->name));
      }
    }
  }
  if (producer == nullptr || IsSpatialBlock(producer->block.get())) {
    return ErrorAt(kPrim, what, absl::StrCat("no reduction block produces ", (*tmp)->name));
  }
  for (const BlockRealizeNode* r : AllBlocks(b->prim->body)) {
    if (r == b->realize || r == producer || r->iter_values.empty()) continue;
    const auto* s = r->block->body.as<BufferStoreNode>();
    bool writes_out = std::any_of(r->block->writes.begin(), r->block->writes.end(),
                                  [&](const BufferRegion& w) { return w.buffer.same_as(out); });
    if (!writes_out) continue;
    // A constant store over a box that misses the interior [offset, offset + tmp's shape) on some axis.
    bool disjoint = false;
    if (s != nullptr && (s->value.as<FloatImmNode>() != nullptr || s->value.as<IntImmNode>() != nullptr)) {
      Analyzer domains;
      for (const IterVar& iv : r->block->iter_vars) domains.Bind(iv.var, iv.dom);
      for (size_t d = 0; d < s->indices.size() && d < offset.size() && !disjoint; ++d) {
        ConstIntBound at = domains.Bound(s->indices[d]);
        const int64_t* o = AsConstInt(offset[d]);
        const int64_t* n = AsConstInt((*tmp)->shape[d]);
        if (o != nullptr && n != nullptr) disjoint = at.max < *o || at.min >= *o + *n;
      }
    }
    if (!disjoint) return ErrorAt(kPrim, what, absl::StrCat("block ", r->block->name, " may write where it stores"));
  }
  // Loads and stores of the intermediate go to the output, at the offset.
  BufferAccessRewriter relocate(*tmp, out, [&](std::vector<PrimExpr> idx) {
    for (size_t d = 0; d < idx.size(); ++d) {
      const int64_t* o = AsConstInt(offset[d]);
      if (o == nullptr || *o != 0) idx[d] = idx[d] + offset[d];
    }
    return idx;
  });
  auto rebuilt = [&](const BlockRealizeNode* r) {
    return Stmt(new BlockRealizeNode(r->iter_values, r->predicate, WithBodyRewritten(r->block.get(), &relocate)));
  };
  const Object* old_producer = producer;
  const Object* old_epilogue = b->realize;
  Stmt new_producer = rebuilt(producer), new_epilogue = rebuilt(b->realize);
  Stmt body = RewriteStmt(b->prim->body, [&](const Stmt& s) -> std::optional<Stmt> {
    if (s.get() == old_producer) return new_producer;
    if (s.get() == old_epilogue) return new_epilogue;
    return std::nullopt;
  });
  SetBody(b->func, DropAllocation(body, *tmp));
  Record(kPrim, {TraceValue::Block(block_rv)});
  return absl::OkStatus();
}

}  // namespace tir
}  // namespace mlc
