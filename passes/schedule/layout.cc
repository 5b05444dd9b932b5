/*! \file layout.cc
 *  \brief transform_layout: a buffer stored under new indices (packing, blocked layouts).
 */
#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/tir/analyzer.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/stmt_tree.h"
#include "ir/tir/tir_functor.h"
#include "ir/tir/tir_util.h"
#include "passes/schedule/schedule.h"

namespace mlc {
namespace tir {
namespace {

/*! \brief Integer evaluation of an index expression at given variable values (for checking
 *  that a map is one-to-one); nullopt for anything but integer arithmetic. */
std::optional<int64_t> EvalInt(const PrimExpr& e, const std::vector<std::pair<const Object*, int64_t>>& env) {
  switch (e->kind()) {
    case NodeKind::kIntImm: return e.as<IntImmNode>()->value;
    case NodeKind::kTirVar:
      for (const auto& [v, x] : env) {
        if (v == e.get()) return x;
      }
      return std::nullopt;
    case NodeKind::kCast:
      return EvalInt(e.as<CastNode>()->value, env);
      MLC_BINARY_CASES {
        const auto* b = e.as<BinaryNode>();
        std::optional<int64_t> x = EvalInt(b->a, env), y = EvalInt(b->b, env);
        if (!x || !y) return std::nullopt;
        switch (e->kind()) {
          case NodeKind::kAdd: return *x + *y;
          case NodeKind::kSub: return *x - *y;
          case NodeKind::kMul: return *x * *y;
          case NodeKind::kFloorDiv:
          case NodeKind::kDiv:
            if (*y == 0) return std::nullopt;
            return (*x / *y) - ((*x % *y != 0) && ((*x < 0) != (*y < 0)) ? 1 : 0);
          case NodeKind::kFloorMod:
          case NodeKind::kMod: {
            if (*y == 0) return std::nullopt;
            int64_t q = (*x / *y) - ((*x % *y != 0) && ((*x < 0) != (*y < 0)) ? 1 : 0);
            return *x - q * *y;
          }
          case NodeKind::kMin: return std::min(*x, *y);
          case NodeKind::kMax: return std::max(*x, *y);
          default: return std::nullopt;
        }
      }
    default: return std::nullopt;
  }
}

/*! \brief The map in the index type of the buffer: written in a trace its variables and constants
 *  are int64, but a buffer indexed by int32 must stay indexed by int32 (no casts in every access). */
PrimExpr Retype(const PrimExpr& e, DataType t, const std::vector<std::pair<const Object*, Var>>& vars) {
  if (const auto* imm = e.as<IntImmNode>()) return IntImm(t, imm->value);
  if (const auto* v = e.as<TirVarNode>()) {
    for (const auto& [from, to] : vars) {
      if (from == v) return to;
    }
    return e;
  }
  if (const auto* c = e.as<CastNode>()) return Retype(c->value, t, vars);
  if (const auto* b = e.as<BinaryNode>()) return MakeBinary(e->kind(), Retype(b->a, t, vars), Retype(b->b, t, vars));
  return e;
}

IndexMap RetypeMap(const IndexMap& map, DataType t) {
  IndexMap out;
  std::vector<std::pair<const Object*, Var>> vars;
  for (const Var& v : map.inputs) {
    out.inputs.push_back(MakeVar(v->name, t));
    vars.push_back({v.get(), out.inputs.back()});
  }
  for (const PrimExpr& o : map.outputs) out.outputs.push_back(Retype(o, t, vars));
  return out;
}

}  // namespace

absl::Status Schedule::TransformLayout(const BlockRV& block_rv, int buffer_index, bool is_write, IndexMap index_map) {
  const char* kPrim = "transform_layout";
  absl::StatusOr<BlockRef> b = Resolve(block_rv, kPrim);
  if (!b.ok()) return b.status();
  const auto& regions = is_write ? b->block->writes : b->block->reads;
  std::string what = absl::StrCat("block ", b->block->name);
  if (buffer_index < 0 || buffer_index >= static_cast<int>(regions.size())) {
    return ErrorAt(kPrim, what,
                   absl::StrCat("it ", is_write ? "writes " : "reads ", regions.size(), " buffers; index ",
                                buffer_index, " is out of range"));
  }
  Buffer buf = regions[buffer_index].buffer;
  what = absl::StrCat("buffer ", buf->name);
  if (IsParam(b->prim, buf)) {
    return ErrorAt(kPrim, what,
                   "it is a parameter of the function; change the layout of a copy (cache_read / cache_write)");
  }
  if (static_cast<int>(index_map.inputs.size()) != buf->ndim()) {
    return ErrorAt(kPrim, what,
                   absl::StrCat("the map takes ", index_map.inputs.size(), " indices; the buffer has ", buf->ndim()));
  }
  const IndexMap recorded = index_map;
  index_map = RetypeMap(index_map, buf->shape.empty() ? DataType::Int32() : buf->shape[0]->dtype);
  // New shape: the bounds of each new index over the old index space.
  // A symbolic dimension (a batch) must pass through the map unchanged: some new index is that
  // old index itself and no other new index reads it. The map is checked with it taken as 1.
  std::vector<PrimExpr> passthrough(index_map.outputs.size());  // new index -> its symbolic extent
  for (int d = 0; d < buf->ndim(); ++d) {
    if (AsConstInt(buf->shape[d]) != nullptr) continue;
    int found = -1;
    for (size_t k = 0; k < index_map.outputs.size(); ++k) {
      if (index_map.outputs[k].same_as(index_map.inputs[d])) {
        found = static_cast<int>(k);
      } else if (UsesVar(index_map.outputs[k], index_map.inputs[d])) {
        found = -2;
        break;
      }
    }
    if (found < 0)
      return ErrorAt(kPrim, what,
                     absl::StrCat("its dimension ", d, " is symbolic and the map does not pass it through"));
    passthrough[found] = buf->shape[d];
  }
  Analyzer a;
  std::vector<int64_t> old_shape;
  int64_t total = 1;
  for (int d = 0; d < buf->ndim(); ++d) {
    const int64_t* e = AsConstInt(buf->shape[d]);
    int64_t extent = e != nullptr ? *e : 1;
    old_shape.push_back(extent);
    total *= extent;
    a.Bind(index_map.inputs[d], 0, extent);
  }
  std::vector<PrimExpr> shape;
  std::vector<int64_t> checked_shape;  // what the one-to-one check enumerates
  int64_t new_total = 1;
  for (size_t k = 0; k < index_map.outputs.size(); ++k) {
    if (passthrough[k].defined()) {
      shape.push_back(passthrough[k]);
      checked_shape.push_back(1);
      continue;
    }
    ConstIntBound bound = a.Bound(a.Simplify(index_map.outputs[k]));
    if (!bound.bounded() || bound.min < 0) {
      return ErrorAt(kPrim, what, "a new index is not bounded below by 0 and above by a constant");
    }
    shape.push_back(IntImm(buf->shape.empty() ? DataType::Int64() : buf->shape[0]->dtype, bound.max + 1));
    checked_shape.push_back(bound.max + 1);
    new_total *= bound.max + 1;
  }
  // One-to-one: every old index lands on its own new index.
  constexpr int64_t kMaxChecked = int64_t{1} << 24;
  std::vector<std::pair<const Object*, int64_t>> env;
  for (const Var& v : index_map.inputs) env.push_back({v.get(), 0});
  // When each new index reads one old index (splits and permutations: every packing of a
  // weight), the map is one-to-one when each old index's own map is, which takes its extent
  // in steps, not the buffer's size (a 32000 x 1024 embedding is 2^25 elements).
  std::vector<std::vector<size_t>> reads(buf->ndim());  // old index -> the new indices reading it
  bool separable = true;
  for (size_t k = 0; k < index_map.outputs.size() && separable; ++k) {
    if (passthrough[k].defined()) continue;
    int reader = -1;
    for (int d = 0; d < buf->ndim(); ++d) {
      if (!UsesVar(index_map.outputs[k], index_map.inputs[d])) continue;
      separable = reader < 0;
      reader = d;
    }
    if (reader >= 0) reads[reader].push_back(k);
  }
  if (separable) {
    for (int d = 0; d < buf->ndim(); ++d) {  // (a symbolic index passed through is taken as 1)
      int64_t space = 1;
      for (size_t k : reads[d]) space *= checked_shape[k];
      if (space > kMaxChecked) {
        separable = false;
        break;
      }
      std::vector<char> hit(static_cast<size_t>(space), 0);
      for (int64_t x = 0; x < old_shape[d]; ++x) {
        env[d].second = x;
        int64_t target = 0;
        for (size_t k : reads[d]) {
          std::optional<int64_t> v = EvalInt(index_map.outputs[k], env);
          if (!v) return ErrorAt(kPrim, what, "the map is not integer arithmetic of the indices");
          target = target * checked_shape[k] + *v;
        }
        if (hit[target]++) return ErrorAt(kPrim, what, "the map sends two elements to the same place (not one-to-one)");
      }
      env[d].second = 0;
    }
  }
  if (!separable && total > kMaxChecked) {
    return ErrorAt(
        kPrim, what,
        absl::StrCat("it has ", total, " elements; a map whose new indices each read one old index is checked ",
                     "index by index, any other one-to-one up to ", kMaxChecked));
  }
  std::vector<char> hit(separable ? 0 : static_cast<size_t>(new_total), 0);
  for (int64_t flat = 0; !separable && flat < total; ++flat) {
    int64_t rest = flat;
    for (int d = buf->ndim() - 1; d >= 0; --d) {
      env[d].second = rest % old_shape[d];
      rest /= old_shape[d];
    }
    int64_t target = 0;
    for (size_t k = 0; k < index_map.outputs.size(); ++k) {
      std::optional<int64_t> v = EvalInt(index_map.outputs[k], env);
      if (!v) return ErrorAt(kPrim, what, "the map is not integer arithmetic of the indices");
      target = target * checked_shape[k] + *v;
    }
    if (hit[target]++) return ErrorAt(kPrim, what, "the map sends two elements to the same place (not one-to-one)");
  }
  Buffer moved = MakeBuffer(buf->name, shape, buf->dtype);
  Analyzer analyzer;
  BufferAccessRewriter rewriter(buf, moved, [&](const std::vector<PrimExpr>& idx) {
    std::vector<std::pair<Var, PrimExpr>> bind;
    for (size_t d = 0; d < idx.size(); ++d) {
      const Var& in = index_map.inputs[d];
      bind.push_back({in, idx[d]->dtype == in->dtype ? idx[d] : Cast(in->dtype, idx[d])});
    }
    std::vector<PrimExpr> out;
    for (const PrimExpr& o : index_map.outputs) out.push_back(analyzer.Simplify(Substitute(o, bind)));
    return out;
  });
  Stmt body = ReinferRegions(rewriter.VisitStmt(b->prim->body));
  SetBody(b->func, body);
  TraceValue buffer = TraceValue::List({TraceValue::Str(is_write ? "write" : "read"), TraceValue::Int(buffer_index)});
  Record(kPrim, {TraceValue::Block(block_rv), buffer, TraceValue::Map(recorded)});
  return absl::OkStatus();
}

}  // namespace tir
}  // namespace mlc
