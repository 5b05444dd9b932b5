/*! \file sampling.cc
 *  \brief The sampling primitives a search explores with: perfect tiles, categorical choices,
 *         compute locations. Each records its decision, so a trace replays it exactly.
 */
#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "passes/schedule/schedule.h"

namespace mlc {
namespace tir {
namespace {

/*! \brief Every way to write `extent` as an ordered product of `n` factors, the last at most
 *  `max_innermost`. */
void Factorizations(int64_t extent, int n, int64_t max_innermost, std::vector<int64_t>* prefix,
                    std::vector<std::vector<int64_t>>* out) {
  if (n == 1) {
    if (extent <= max_innermost) {
      prefix->push_back(extent);
      out->push_back(*prefix);
      prefix->pop_back();
    }
    return;
  }
  for (int64_t f = 1; f <= extent; ++f) {
    if (extent % f != 0) continue;
    prefix->push_back(f);
    Factorizations(extent / f, n - 1, max_innermost, prefix, out);
    prefix->pop_back();
    if (out->size() > 100000) return;
  }
}

}  // namespace

absl::StatusOr<std::vector<ExprRV>> Schedule::SamplePerfectTile(const LoopRV& loop_rv, int n,
                                                                int64_t max_innermost_factor,
                                                                std::optional<std::vector<int64_t>> decision) {
  const char* kPrim = "sample_perfect_tile";
  absl::StatusOr<LoopRef> l = Resolve(loop_rv, kPrim);
  if (!l.ok()) return l.status();
  if (n < 1) return ErrorAt(kPrim, Name(*l), "n must be at least 1");
  const int64_t* extent = AsConstInt(l->loop->extent);
  if (extent == nullptr) return ErrorAt(kPrim, Name(*l), "the extent is not a constant");
  if (max_innermost_factor < 1) max_innermost_factor = *extent;
  std::vector<int64_t> chosen;
  if (decision) {
    int64_t product = 1;
    for (int64_t f : *decision) product *= f;
    if (static_cast<int>(decision->size()) != n || product != *extent || decision->back() > max_innermost_factor ||
        std::any_of(decision->begin(), decision->end(), [](int64_t f) { return f < 1; })) {
      return ErrorAt(kPrim, Name(*l),
                     absl::StrCat("decision [", absl::StrJoin(*decision, ", "), "] is not ", n, " factors of ", *extent,
                                  " with the innermost at most ", max_innermost_factor));
    }
    chosen = *decision;
  } else {
    std::vector<std::vector<int64_t>> all;
    std::vector<int64_t> prefix;
    Factorizations(*extent, n, max_innermost_factor, &prefix, &all);
    if (all.empty()) return ErrorAt(kPrim, Name(*l), "no factorization fits");
    chosen = all[std::uniform_int_distribution<size_t>(0, all.size() - 1)(rng_)];
  }
  std::vector<ExprRV> out;
  std::vector<TraceValue> outs, dec;
  for (int64_t f : chosen) {
    out.push_back(NewExprRV(f));
    outs.push_back(TraceValue::Expr(out.back()));
    dec.push_back(TraceValue::Int(f));
  }
  Record(kPrim, {TraceValue::Loop(loop_rv), TraceValue::Int(n), TraceValue::Int(max_innermost_factor)}, outs,
         TraceValue::List(dec));
  return out;
}

absl::StatusOr<ExprRV> Schedule::SampleCategorical(const std::vector<int64_t>& candidates,
                                                   const std::vector<double>& probs, std::optional<int64_t> decision) {
  const char* kPrim = "sample_categorical";
  if (candidates.empty() || candidates.size() != probs.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kPrim, ": ", candidates.size(), " candidates with ", probs.size(), " probabilities"));
  }
  int64_t index;
  if (decision) {
    if (*decision < 0 || *decision >= static_cast<int64_t>(candidates.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat(kPrim, ": decision ", *decision, " is not an index of the ", candidates.size(), " candidates"));
    }
    index = *decision;
  } else {
    std::discrete_distribution<int64_t> dist(probs.begin(), probs.end());
    index = dist(rng_);
  }
  ExprRV out = NewExprRV(candidates[index]);
  std::vector<TraceValue> cs, ps;
  for (int64_t c : candidates) cs.push_back(TraceValue::Int(c));
  for (double p : probs) ps.push_back(TraceValue::Float(p));
  Record(kPrim, {TraceValue::List(cs), TraceValue::List(ps)}, {TraceValue::Expr(out)}, TraceValue::Int(index));
  return out;
}

absl::StatusOr<LoopRV> Schedule::SampleComputeLocation(const BlockRV& block_rv, std::optional<int64_t> decision) {
  const char* kPrim = "sample_compute_location";
  absl::StatusOr<BlockRef> b = Resolve(block_rv, kPrim);
  if (!b.ok()) return b.status();
  // Candidates: the loops above the block's first consumer (compute_at checks the rest).
  std::vector<const ForNode*> candidates;
  const BlockRealizeNode* scope = ScopeOf(b->path);
  for (const BlockRealizeNode* r : ChildBlocks(Stmt(scope->block))) {
    if (r == b->realize) continue;
    bool reads = false;
    for (const BufferRegion& w : b->block->writes) {
      for (const BufferRegion& rd : r->block->reads) reads |= rd.buffer.same_as(w.buffer);
    }
    if (!reads) continue;
    std::optional<StmtPath> cpath = FindBlock(b->prim->body, r->block->name);
    candidates = LoopsAbove(*cpath);
    break;
  }
  int64_t index;
  if (decision) {
    if (*decision < -1 || *decision >= static_cast<int64_t>(candidates.size())) {
      return ErrorAt(
          kPrim, absl::StrCat("block ", b->block->name),
          absl::StrCat("decision ", *decision, " is not -1 (root) or an index of the ", candidates.size(), " loops"));
    }
    index = *decision;
  } else {
    index = std::uniform_int_distribution<int64_t>(-1, static_cast<int64_t>(candidates.size()) - 1)(rng_);
  }
  LoopRV out = index < 0 ? NewLoopRV(b->func, Var()) : NewLoopRV(b->func, candidates[index]->loop_var);
  Record(kPrim, {TraceValue::Block(block_rv)}, {TraceValue::Loop(out)}, TraceValue::Int(index));
  return out;
}

}  // namespace tir
}  // namespace mlc
