/*! \file default_rules.cc
 *  \brief The default schedule's rules in the order they apply (DefaultScheduleRules), and the
 *         driver that applies them to one function (ApplyDefaultSchedule). The table is the one
 *         list of the rules: docs/schedule_rules.md is generated from it.
 */
#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "ir/tir/stmt_tree.h"
#include "passes/schedule/rules/block_view.h"
#include "passes/schedule/rules/rules.h"

namespace mlc {
namespace tir {
namespace {

/*! \brief A rule's tile for a block, as decided: the knob it was asked through (knob.h) and the
 *  choice; no knob and no tile when the rule has none for the block. */
template <typename Tiles>
struct TileDecision {
  std::optional<Knob> knob;
  std::optional<Tiles> tiles;
  size_t choice = 0;
  /*! \brief Into `sch`'s trace, once the rule applied the tile. */
  absl::Status Record(Schedule* sch) const { return knob ? RecordDecision(sch, *knob, choice) : absl::OkStatus(); }
};

/*! \brief Asks `decide` for a block's tile: every candidate the rule can apply is a choice, the
 *  rule's own pick among them the default (appended when the candidates miss it). */
template <typename Block, typename Tiles>
absl::StatusOr<TileDecision<Tiles>> DecideTiles(const std::string& func, const Block& block, const char* rule,
                                                std::vector<Tiles> all, const std::optional<Tiles>& pick,
                                                const Target& target, const Decider& decide) {
  TileDecision<Tiles> d;
  if (!pick) return d;
  auto it = std::find(all.begin(), all.end(), *pick);
  if (it == all.end()) it = all.insert(all.end(), *pick);
  d.knob = Knob{func, block.name, rule, {}, static_cast<size_t>(it - all.begin())};
  for (const Tiles& t : all) d.knob->choices.push_back({DescribeTiles(t), TileFeatures(block, t, target)});
  absl::StatusOr<size_t> choice = Decide(*d.knob, decide);
  if (!choice.ok()) return choice.status();
  d.choice = *choice;
  d.tiles = all[*choice];
  return d;
}

/*! \brief Schedules `name` on a copy of the schedule with `apply`, kept when it succeeds. */
template <typename Apply>
absl::Status OnCopy(RuleContext& ctx, const std::string& name, Apply apply) {
  Schedule attempt = *ctx.sch;
  absl::StatusOr<BlockRV> again = attempt.GetBlock(name, ctx.func);
  absl::Status s = again.ok() ? apply(&attempt, *again) : again.status();
  if (s.ok()) *ctx.sch = std::move(attempt);
  return s;
}

// ---- Steps on the whole function --------------------------------------------------------------

void SplitEpiloguePaddings(RuleContext& ctx) {
  ctx.padded = DecomposeEpiloguePadding(ctx.sch, ctx.func);
  for (const std::string& b : ctx.padded.borders) ctx.borders.push_back(b);
}

void InlineIntoConsumers(RuleContext& ctx) {
  InlineElementwise(ctx.sch, ctx.func);
  // A padded result's producer writes into the interior itself (no intermediate copy).
  for (const std::string& name : ctx.padded.interiors) {
    (void)OnCopy(ctx, name, [](Schedule* s, const BlockRV& b) { return s->InPlaceEpilogue(b); });
  }
}

void SplitRootPaddings(RuleContext& ctx) {
  // A padding left at the root (of a function input, before a convolution's tiles) becomes a
  // plain copy into the interior and border fills: as one nest, every element went through a
  // bounds check and a clamped load, which LLVM turns into gathers (MobileNetV2's stem spent a
  // third of its time padding its input).
  for (const std::string& b : DecomposeRootPaddings(ctx.sch, ctx.func, ctx.handled).borders) ctx.borders.push_back(b);
}

// ---- Reduction blocks: the first rule whose pattern matches takes the block -------------------

RuleOutcome TileGemm(RuleContext& ctx, const std::string& name) {
  absl::StatusOr<BlockRV> rv = ctx.sch->GetBlock(name, ctx.func);
  if (!rv.ok()) return RuleOutcome::kNotMatched;
  std::optional<GemmBlock> gemm = MatchGemm(*ctx.sch, *rv);
  if (!gemm) return RuleOutcome::kNotMatched;
  absl::StatusOr<TileDecision<GemmTiles>> decided =
      DecideTiles(ctx.func, *gemm, "GEMM tile", GemmTileCandidates(*gemm, ctx.target),
                  DefaultGemmTiles(*gemm, ctx.target), ctx.target, ctx.decide);
  if (!decided.ok()) {
    ctx.Note(name, std::string(decided.status().message()));
    return RuleOutcome::kFailed;
  }
  const std::optional<GemmTiles>& tiles = decided->tiles;
  if (!tiles && gemm->symbolic_cols_or_k) {
    absl::Status s =
        OnCopy(ctx, name, [&](Schedule* sch, const BlockRV& b) { return ScheduleGemmLoops(sch, b, *gemm); });
    if (s.ok()) return RuleOutcome::kScheduled;
    ctx.Note(name, absl::StrCat("GEMM loops (symbolic columns or reduction): ", s.message()));
    return RuleOutcome::kFailed;
  }
  if (!tiles) {
    ctx.Note(name,
             absl::StrCat("GEMM ", gemm->m, "x", gemm->n, "x", gemm->k, ": no register tile divides the extents"));
    return RuleOutcome::kFailed;
  }
  auto apply = [&](const GemmBlock& g) {
    return [&, g](Schedule* sch, const BlockRV& b) -> absl::Status {
      absl::Status s = ScheduleGemm(sch, b, g, *tiles, ctx.target);
      return s.ok() ? decided->Record(sch) : s;
    };
  };
  absl::Status s = OnCopy(ctx, name, apply(*gemm));
  if (!s.ok() && gemm->fold_batch_into_rows && gemm->rows_per_batch < 0) {
    // Folded symbolic rows the micro-kernel cannot address affinely: a GEMM per batch entry.
    ctx.Note(name, absl::StrCat("GEMM rule, batch folded into the rows: ", s.message(),
                                "; scheduling a GEMM per batch entry"));
    GemmBlock unfolded = *gemm;
    unfolded.fold_batch_into_rows = false;
    unfolded.symbolic_batch = true;
    s = OnCopy(ctx, name, apply(unfolded));
  }
  if (s.ok()) return RuleOutcome::kScheduled;
  ctx.Note(name, absl::StrCat("GEMM rule: ", s.message()));
  return RuleOutcome::kFailed;
}

RuleOutcome TileDirectConvolution(RuleContext& ctx, const std::string& name) {
  absl::StatusOr<BlockRV> rv = ctx.sch->GetBlock(name, ctx.func);
  if (!rv.ok()) return RuleOutcome::kNotMatched;
  std::optional<DirectConvBlock> conv = MatchDirectConv(*ctx.sch, *rv);
  if (!conv) return RuleOutcome::kNotMatched;
  absl::StatusOr<TileDecision<DirectConvTiles>> decided =
      DecideTiles(ctx.func, *conv, "direct convolution tile", DirectConvTileCandidates(*conv, ctx.target),
                  DefaultDirectConvTiles(*conv, ctx.target), ctx.target, ctx.decide);
  if (!decided.ok()) {
    ctx.Note(name, std::string(decided.status().message()));
    return RuleOutcome::kFailed;
  }
  const std::optional<DirectConvTiles>& tiles = decided->tiles;
  if (!tiles) {
    ctx.Note(name, "direct convolution rule: no register tile fits");
    return RuleOutcome::kFailed;
  }
  auto apply = [&](const DirectConvTiles& t) {
    return [&, t](Schedule* sch, const BlockRV& b) -> absl::Status {
      absl::Status s = ScheduleDirectConv(sch, b, *conv, t, ctx.target);
      return s.ok() ? decided->Record(sch) : s;
    };
  };
  absl::Status s = OnCopy(ctx, name, apply(*tiles));
  if (!s.ok() && tiles->kc > 0) {
    // Without chunks of the reduction: the tile as it is, its weights from memory.
    ctx.Note(name, absl::StrCat("direct convolution rule, reduction in chunks of ", tiles->kc, ": ", s.message()));
    DirectConvTiles whole = *tiles;
    whole.kc = 0;
    s = OnCopy(ctx, name, apply(whole));
  }
  if (s.ok()) return RuleOutcome::kScheduled;
  ctx.Note(name, absl::StrCat("direct convolution rule: ", s.message()));
  return RuleOutcome::kFailed;
}

// ---- Nests left at the root: the first rule that applies takes the nest ----------------------

RuleOutcome Outcome(const absl::Status& s) { return s.ok() ? RuleOutcome::kScheduled : RuleOutcome::kNotMatched; }

RuleOutcome WindowRule(RuleContext& ctx, const std::string& name) {
  // Over channel-blocked data the rule chooses the pixels per register tile; along the output
  // row it has no choice to offer.
  std::optional<TileDecision<WindowTiles>> decided;
  if (absl::StatusOr<BlockRV> rv = ctx.sch->GetBlock(name, ctx.func); rv.ok()) {
    if (std::optional<BlockedWindowBlock> window = MatchBlockedWindow(*ctx.sch, *rv)) {
      absl::StatusOr<TileDecision<WindowTiles>> d =
          DecideTiles(ctx.func, *window, "window tile", WindowTileCandidates(*window, ctx.target),
                      std::optional<WindowTiles>(DefaultWindowTiles(*window, ctx.target)), ctx.target, ctx.decide);
      if (!d.ok()) {
        ctx.Note(name, std::string(d.status().message()));
        return RuleOutcome::kFailed;
      }
      decided = *std::move(d);
    }
  }
  return Outcome(OnCopy(ctx, name, [&](Schedule* s, const BlockRV& b) -> absl::Status {
    absl::Status scheduled = ScheduleWindowReduction(s, b, ctx.target, decided ? decided->tiles : std::nullopt);
    return scheduled.ok() && decided ? decided->Record(s) : scheduled;
  }));
}

RuleOutcome RowReductionRule(RuleContext& ctx, const std::string& name) {
  return Outcome(
      OnCopy(ctx, name, [&](Schedule* s, const BlockRV& b) { return ScheduleRowReduction(s, b, ctx.target); }));
}

RuleOutcome LoopNestRule(RuleContext& ctx, const std::string& name) {
  // A border fill runs right after its producer's parallel loop, and its columns put every
  // vector in a line of its own across the whole result: serial, it kept the other threads
  // waiting (MobileNetV2, 2 threads: 2-5% of the padded layers' time).
  const int64_t min_parallel_work =
      absl::c_linear_search(ctx.borders, name) ? kMinParallelBorderIterations : kMinParallelIterations;
  return Outcome(OnCopy(
      ctx, name, [&](Schedule* s, const BlockRV& b) { return ScheduleLoopNest(s, b, ctx.target, min_parallel_work); }));
}

}  // namespace

void RuleContext::Note(const std::string& block, const std::string& text) const {
  if (notes != nullptr) notes->push_back(absl::StrCat("@", func, " block ", block, ": ", text));
}

const std::vector<DefaultScheduleRule>& DefaultScheduleRules() {
  using S = RuleStage;
  static const std::vector<DefaultScheduleRule>* rules = new std::vector<DefaultScheduleRule>{
      {"epilogue-padding", S::kFunction, "loop_nest.cc",
       "a padding that stores a parameter and reads what the function computes (a convolution fused with the "
       "next layer's `nn.pad`, from `split-padding`)",
       "split by `decompose_padding` into its border fills and its interior, which the producer then writes in "
       "place: the consumer (a convolution or max pool) reads its windows where they lie",
       SplitEpiloguePaddings, nullptr},
      {"inline", S::kFunction, "loop_nest.cc",
       "elementwise blocks writing an intermediate buffer, except a padding whose consumers would compute each "
       "of its values more than twice",
       "inlined into their consumers (a bias and activation become the epilogue of the GEMM or convolution "
       "before them); a padded result's interior becomes its producer's epilogue (`in_place_epilogue`)",
       InlineIntoConsumers, nullptr},
      {"gemm", S::kReductionBlock, "gemm.cc",
       "`C[..., i, j] += A[..., i, k] * B[..., k, j]` (or `B[..., j, k]`), batch axes folded into the rows where "
       "B has none",
       "an MR x NR register tile (`gemm_f32`) over B packed into NR-column panels, k blocked for L1, columns in "
       "blocks of NC for L2, the epilogue per block, column blocks (or row tiles) parallel; the tile is a knob",
       nullptr, TileGemm},
      {"direct-convolution", S::kReductionBlock, "conv.cc",
       "other reductions shaped as a convolution in channel-blocked layouts (NCHW16c, from `alter-op-layout`): "
       "regular, depthwise and grouped",
       "MR pixels x NB channel blocks as one register tile (`gemm_tile_nd`) reading the padded input where it "
       "lies and weights packed at compile time, the reduction in chunks that fit L1 or L2, the epilogue under "
       "the pixel tiles, batch, groups, rows and tiles parallel; the tile is a knob",
       nullptr, TileDirectConvolution},
      {"root-padding", S::kFunction, "loop_nest.cc",
       "a padding still at the root (of a function input, before a convolution's tiles)",
       "a copy into the interior and border fills: no bounds check and no clamped load per element", SplitRootPaddings,
       nullptr},
      {"window-reduction", S::kRootNest, "window.cc",
       "a reduction over a small window (depthwise convolution, pooling) left at the root",
       "the window loops unrolled under the vectorized output row, the outer loops parallel; over padded "
       "channel-blocked data made at the root, the padding per plane (channel block) under the parallel loop over "
       "the planes, where a plane fits half of L2; over channel-blocked data the pixels per register tile are a "
       "knob, and the tile's init (a max pool's -inf) is unrolled and vectorized like its update (left to LLVM, "
       "AVX-512 stored it as scatters)",
       nullptr, WindowRule},
      {"row-reduction", S::kRootNest, "row_reduction.cc",
       "a max or min along the innermost, contiguous axis (softmax's row maxima), or a sum along a short row that "
       "is not whole vectors (softmax's exponentials over 91 classes)",
       "rfactored over the vector lanes (the last vector guarded: only with AVX-512's lane masks where the row is "
       "a constant), the lanes reduced in the same parallel iteration",
       nullptr, RowReductionRule},
      {"loop-nest", S::kRootNest, "loop_nest.cc", "any other nest left at the root (elementwise, other reductions)",
       "the innermost contiguous loop vectorized, the outer loops parallel when they store enough "
       "(`kMinParallelIterations`, fewer for border fills), a reduction's init moved out of its loops",
       nullptr, LoopNestRule},
  };
  return *rules;
}

std::string DescribeDefaultScheduleRules() {
  std::string out =
      "| # | rule | applies to | what it makes of them | file |\n"
      "|---|---|---|---|---|\n";
  int i = 0;
  for (const DefaultScheduleRule& r : DefaultScheduleRules()) {
    const char* when = r.stage == RuleStage::kFunction         ? "the function: "
                       : r.stage == RuleStage::kReductionBlock ? "each reduction block (the first rule that matches): "
                                                               : "each nest left (the first rule that applies): ";
    absl::StrAppend(&out, "| ", ++i, " | `", r.name, "` | ", when, r.takes, " | ", r.makes,
                    " | `passes/schedule/rules/", r.file, "` |\n");
  }
  return out;
}

int ApplyDefaultSchedule(Schedule* sch, const std::string& func, const Target& target, std::vector<std::string>* notes,
                         const Decider& decide) {
  RuleContext ctx{sch, func, target, decide, notes};
  int scheduled = 0;
  // The rules run in the table's order; the block rules of one stage run together, per block.
  const std::vector<DefaultScheduleRule>& rules = DefaultScheduleRules();
  for (size_t i = 0; i < rules.size();) {
    const RuleStage stage = rules[i].stage;
    if (stage == RuleStage::kFunction) {
      rules[i++].on_function(ctx);
      continue;
    }
    size_t end = i;
    while (end < rules.size() && rules[end].stage == stage) ++end;
    PrimFunc prim = sch->mod().LookupPrimFunc(func);
    if (!prim.defined()) return scheduled;
    std::vector<std::string> names;
    for (const BlockRealizeNode* r : AllBlocks(prim->body)) {
      if (!r->iter_values.empty()) names.push_back(r->block->name);
    }
    for (const std::string& name : names) {
      if (stage == RuleStage::kRootNest) {
        // Untouched so far, as the schedule stands now.
        if (ctx.handled.count(name)) continue;
        absl::StatusOr<BlockRV> rv = sch->GetBlock(name, func);
        if (!rv.ok()) continue;
        std::optional<BlockView> v = View(*sch, *rv);
        if (!v || !IsUnplacedRootNest(*v)) continue;
      }
      for (size_t j = i; j < end; ++j) {
        const RuleOutcome outcome = rules[j].on_block(ctx, name);
        if (outcome == RuleOutcome::kNotMatched) continue;
        if (outcome == RuleOutcome::kScheduled) {
          ++scheduled;
          ctx.handled.insert(name);
        }
        break;
      }
    }
    i = end;
  }
  return scheduled;
}

}  // namespace tir
}  // namespace mlc
