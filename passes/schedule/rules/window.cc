/*! \file window.cc
 *  \brief The window rule: reductions over a small window of a spatial neighbourhood
 *         (depthwise convolution, pooling) vectorized along the output row.
 *
 *    for c, oh (fused, parallel), ow (vectorized), ry (unrolled), rx (unrolled):  out[c, oh, ow] op= x[...]
 *
 *  The window loops are fully unrolled under the vectorized output-row loop, so LLVM keeps one
 *  vector of accumulators in a register per row segment and loads the input rows as vectors
 *  (strided ones for strided windows); the outer spatial loops are fused and parallel, and an
 *  elementwise epilogue runs row by row inside them. Channel-blocked data (NCHW16c pooling)
 *  vectorizes along the channel block instead, a few output pixels per register tile.
 */
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "ir/tir/stmt_tree.h"
#include "ir/tir/tir_functor.h"
#include "ir/tir/tir_util.h"
#include "passes/schedule/rules/block_view.h"
#include "passes/schedule/rules/rules.h"

namespace mlc {
namespace tir {
namespace {

// Windows with more taps than this keep their loops (unrolling them would bloat the code).
constexpr int64_t kMaxUnrolledTaps = 64;

absl::Status Refuse(const std::string& why) { return absl::FailedPreconditionError(why); }

/*! \brief Output pixels per register tile of a blocked window: up to 8 vectors of
 *  accumulators, dividing the row. */
int64_t BlockedWindowRows(int64_t row, int64_t vectors) {
  for (int64_t r = std::min<int64_t>(row, std::max<int64_t>(1, 8 / vectors)); r > 1; --r) {
    if (row % r == 0) return r;
  }
  return 1;
}

// Planes (batch entries x channel blocks) a window over padded data needs before it computes
// the padding per plane: enough to share among the threads without splitting a plane.
constexpr int64_t kMinParallelPlanes = 16;

/*! \brief What a window's loads slide along: the spatial iteration variables that some load
 *  index combines with a window variable (x[..., ow * s + rx * d] slides along ow; a dot
 *  product's x[i, k] * w[j, k] along none), and the buffer such a load reads. */
struct Slides {
  std::set<const Object*> vars;
  Buffer buffer;
};

Slides FindSlides(const BlockNode* block) {
  struct Finder : StmtExprVisitor {
    const BlockNode* block;
    Slides found;
    void VisitExpr_(const BufferLoadNode* op) override {
      for (const PrimExpr& index : op->indices) {
        std::vector<const Object*> spatial;
        bool taps = false;
        for (const IterVar& iv : block->iter_vars) {
          if (!UsesVar(index, iv.var)) continue;
          if (iv.kind == IterKind::kReduce)
            taps = true;
          else
            spatial.push_back(iv.var.get());
        }
        if (!taps || spatial.empty()) continue;
        found.buffer = op->buffer;
        found.vars.insert(spatial.begin(), spatial.end());
      }
      StmtExprVisitor::VisitExpr_(op);
    }
  } finder;
  finder.block = block;
  finder.VisitExpr(block->body.as<BufferStoreNode>()->value);
  return finder.found;
}

/*! \brief How many of the loops outermost (batch, channel block) index the buffer the window
 *  slides over at one plane only: the loops before the first whose variable slides. 0 when
 *  there is no such buffer or no such loop. */
size_t PlaneLoops(const BlockView& view, const Slides& slides) {
  const BlockNode* b = view.realize->block.get();
  if (!slides.buffer.defined()) return 0;
  for (size_t l = 0; l < view.loops.size(); ++l) {
    for (size_t i = 0; i < b->iter_vars.size(); ++i) {
      if (view.realize->iter_values[i].same_as(view.loops[l]->loop_var) && slides.vars.count(b->iter_vars[i].var.get()))
        return l;
    }
  }
  return 0;
}

/*! \brief The padded copy of the window's data (the border fills and the interior copy that
 *  root-padding made at the function's root) computed per plane, under the parallel loop over
 *  the planes:
 *
 *    for plane (parallel): fill the plane's border, copy its interior; the window over it
 *
 *  The copy then stays in cache (L1 or L2) for the window that reads it, rather than a whole padded input
 *  going through memory in four border fills and a copy, each a parallel loop of its own with
 *  the threads waiting for each other between them (GoogLeNet's 3x3 max pools over the
 *  concatenated branches at 14 x 14 and 7 x 7 ran 35-60% faster, on one thread and on two). */
absl::Status PadPerPlane(Schedule* sch, const BlockRV& block, const std::vector<LoopRV>& planes, const Buffer& slid) {
  absl::StatusOr<std::vector<BlockRV>> producers = sch->GetProducers(block);
  if (!producers.ok()) return producers.status();
  std::vector<BlockRV> pads;
  for (const BlockRV& p : *producers) {
    std::optional<BlockView> v = View(*sch, p);
    if (!v) continue;
    const std::vector<BufferRegion>& writes = v->realize->block->writes;
    if (std::none_of(writes.begin(), writes.end(), [&](const BufferRegion& w) { return w.buffer.same_as(slid); }))
      continue;
    // A nest of its own at the root (the loop-nest rule may have scheduled it already; the
    // move re-creates its loops).
    const BlockRealizeNode* scope = ScopeOf(v->path);
    const ForNode* top = v->loops.empty() ? nullptr : v->loops.front();
    if (scope == nullptr || !scope->iter_values.empty() || top == nullptr || ChildBlocks(Stmt(top)).size() != 1)
      return Refuse("the padded data is made elsewhere than in a nest of its own at the root");
    pads.push_back(p);
  }
  if (pads.empty()) return Refuse("the window reads no padding made in its function");
  absl::StatusOr<LoopRV> plane = planes.size() == 1 ? planes[0] : sch->Fuse(planes);
  if (!plane.ok()) return plane.status();
  if (absl::Status s = sch->Parallel(*plane); !s.ok()) return s;
  for (const BlockRV& p : pads) {
    if (absl::Status s = sch->ComputeAt(p, *plane); !s.ok()) return s;
    // Along the channel block, as the copy at the root was.
    absl::StatusOr<std::vector<LoopRV>> loops = sch->GetLoops(p);
    if (!loops.ok()) return loops.status();
    std::optional<BlockView> v = View(*sch, p);
    if (v && v->loops.size() > planes.size() && v->loops.back()->for_kind == ForKind::kSerial) {
      if (absl::Status s = sch->Vectorize(loops->back()); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

/*! \brief The window rule for channel-blocked data:
 *
 *    for outer (fused, parallel), pixel tiles: for window taps (unrolled): for R pixels (unrolled):
 *      for lanes (vectorized): out[..., pixel, lanes] op= x[..., pixel * s + tap, lanes]
 *
 *  The R accumulator vectors of a tile stay in registers across the unrolled taps; every load
 *  is a whole vector of channels. */
absl::Status ScheduleBlockedWindow(Schedule* sch, const BlockRV& block, size_t spatial, int64_t taps,
                                   const Slides& slides, int64_t r, const Target& target) {
  std::optional<BlockView> view = View(*sch, block);
  const std::vector<const ForNode*>& fors = view->loops;
  const int64_t* row = AsConstInt(fors[spatial - 2]->extent);
  const int64_t* lanes = AsConstInt(fors[spatial - 1]->extent);
  if (row == nullptr || lanes == nullptr)
    return Refuse("blocked window: the pixel row and the lanes need constant extents");
  if (r < 1 || *row % r != 0)
    return Refuse(absl::StrCat("blocked window: ", r, " pixels do not divide the row of ", *row));
  absl::StatusOr<std::vector<LoopRV>> loops = sch->GetLoops(block);
  if (!loops.ok()) return loops.status();
  auto pixels = sch->Split((*loops)[spatial - 2], {std::nullopt, r});
  if (!pixels.ok()) return pixels.status();
  std::vector<LoopRV> outer((*loops).begin(), (*loops).begin() + (spatial - 2));
  outer.push_back((*pixels)[0]);
  std::vector<LoopRV> order = outer;
  for (size_t l = spatial; l < fors.size(); ++l) order.push_back((*loops)[l]);
  order.push_back((*pixels)[1]);
  order.push_back((*loops)[spatial - 1]);
  if (absl::Status s = sch->Reorder(order); !s.ok()) return s;
  // The elementwise epilogue (an average's division) per tile, while it is in L1.
  PlaceEpilogueUnder(sch, block, outer.back(), outer.size(), r * *lanes);
  absl::StatusOr<BlockRV> init = sch->DecomposeReduction(block, (*loops)[spatial]);
  if (!init.ok()) return init.status();
  // The init's tile as the update's: pixels unrolled, lanes vectorized. Left to LLVM, AVX-512
  // stored a max pool's -inf as 16 scatters of 8 pixels (vscatterqps, microcoded): ResNet-18's
  // stem pool took 190-450 us on a Zen 5 against 73-82 for the AVX2 build.
  absl::StatusOr<std::vector<LoopRV>> init_loops = sch->GetLoops(*init);
  if (!init_loops.ok()) return init_loops.status();
  if (init_loops->size() >= 2) {
    if (absl::Status s = sch->Unroll((*init_loops)[init_loops->size() - 2]); !s.ok()) return s;
    if (absl::Status s = sch->Vectorize(init_loops->back()); !s.ok()) return s;
  }
  if (taps <= kMaxUnrolledTaps) {
    for (size_t l = spatial; l < fors.size(); ++l) {
      if (absl::Status s = sch->Unroll((*loops)[l]); !s.ok()) return s;
    }
  }
  if (absl::Status s = sch->Unroll((*pixels)[1]); !s.ok()) return s;
  if (absl::Status s = sch->Vectorize((*loops)[spatial - 1]); !s.ok()) return s;
  // Over padded data with planes enough to share: the padding per plane, the planes parallel.
  const Buffer& slid = slides.buffer;
  const size_t plane_loops = PlaneLoops(*view, slides);
  if (plane_loops > 0 && plane_loops < outer.size() && LoopVolume(fors).has_value()) {
    const int64_t volume = *LoopVolume({fors.begin(), fors.begin() + static_cast<std::ptrdiff_t>(plane_loops)});
    // A plane of the padded data (its dimensions past the plane loops) that the copy leaves in
    // L2 for the window. On Zen 5, planes of 58 and 215 KB (28 x 28 and 56 x 56, 16 channels,
    // on the heap per iteration) ran 10-37% faster per plane than padded whole.
    std::optional<int64_t> plane_bytes = slid->dtype.bytes();
    for (size_t d = plane_loops; d < slid->shape.size(); ++d) {
      const int64_t* e = AsConstInt(slid->shape[d]);
      plane_bytes = e != nullptr && plane_bytes ? std::optional<int64_t>(*plane_bytes * *e) : std::nullopt;
    }
    if (volume >= kMinParallelPlanes && plane_bytes && *plane_bytes <= target.l2_bytes / 2) {
      Schedule attempt = *sch;
      std::vector<LoopRV> planes(outer.begin(), outer.begin() + plane_loops);
      if (PadPerPlane(&attempt, block, planes, slid).ok()) {
        *sch = std::move(attempt);
        return absl::OkStatus();
      }
    }
  }
  // Parallel over the outer loops, fused until there are enough iterations to share.
  std::vector<LoopRV> fuse;
  int64_t iterations = 1;
  for (size_t l = 0; l < outer.size() && iterations < kParallelGrain; ++l) {
    fuse.push_back(outer[l]);
    const int64_t* e = l + 1 < outer.size() ? AsConstInt(fors[l]->extent) : nullptr;
    iterations *= e != nullptr ? *e : *row / r;
  }
  return FuseParallel(sch, fuse).status();
}

/*! \brief What the window rule reads off a block before it schedules it. */
struct WindowShape {
  size_t spatial = 0;  // the spatial loops, outside the window's
  int64_t taps = 1;
  Slides slides;
  bool blocked = false;  // channel-blocked: vectorized along the block, tiled along the pixels
};

/*! \brief The block as a window the rule takes, or why not. */
absl::StatusOr<WindowShape> AnalyzeWindow(const Schedule& sch, const BlockRV& block) {
  std::optional<BlockView> view = View(sch, block);
  if (!view) return Refuse("unknown block");
  const BlockRealizeNode* realize = view->realize;
  const BlockNode* b = realize->block.get();
  if (!IsReductionBlock(b)) return Refuse("not a reduction");
  const auto* store = b->body.as<BufferStoreNode>();
  if (store == nullptr || store->indices.empty()) return Refuse("no store");
  const std::vector<const ForNode*>& fors = view->loops;
  if (fors.size() != b->iter_vars.size()) return Refuse("not one loop per iteration variable");
  // Each iteration variable bound to its own loop; spatial loops outside, window loops inside.
  std::vector<IterKind> loop_kind(fors.size());
  std::map<const Object*, size_t> loop_of_var;
  for (size_t i = 0; i < b->iter_vars.size(); ++i) {
    const auto* v = realize->iter_values[i].as<TirVarNode>();
    size_t l = fors.size();
    for (size_t f = 0; f < fors.size(); ++f) {
      if (v != nullptr && fors[f]->loop_var.get() == v) l = f;
    }
    if (l == fors.size()) return Refuse("a binding is not a plain loop variable");
    loop_kind[l] = b->iter_vars[i].kind;
    loop_of_var[b->iter_vars[i].var.get()] = l;
  }
  WindowShape shape;
  size_t& spatial = shape.spatial;
  while (spatial < fors.size() && loop_kind[spatial] == IterKind::kSpatial) ++spatial;
  if (spatial == 0 || spatial == fors.size()) return Refuse("no spatial or no window loops");
  for (size_t l = spatial; l < fors.size(); ++l) {
    const int64_t* e = AsConstInt(fors[l]->extent);
    if (loop_kind[l] != IterKind::kReduce || e == nullptr)
      return Refuse("window loops must be innermost, of constant extent");
    shape.taps *= *e;
  }
  // The innermost spatial loop must run along the store's last index (a contiguous row).
  auto last = loop_of_var.find(store->indices.back().get());
  if (last == loop_of_var.end() || last->second != spatial - 1)
    return Refuse("the innermost spatial loop is not along the output row");
  const int64_t* row = AsConstInt(fors[spatial - 1]->extent);
  if (row == nullptr || *row < 4) return Refuse("output rows too short to vectorize");
  // A window: some load index slides with both the output column and a window variable
  // (x[..., ow * s + rx * d]); a dot product (x[i, k] * w[j, k]) is no window.
  shape.slides = FindSlides(b);
  if (!shape.slides.vars.count(store->indices.back().get())) {
    // Channel-blocked data (NCHW16c): the innermost loop runs along the channel block, and
    // the window slides along the loop outside it.
    if (spatial < 2) return Refuse("no load slides a window along the output row");
    const ForNode* pixel = fors[spatial - 2];
    std::optional<Var> pixel_var;
    for (size_t i = 0; i < b->iter_vars.size(); ++i) {
      if (realize->iter_values[i].same_as(pixel->loop_var)) pixel_var = b->iter_vars[i].var;
    }
    if (!pixel_var) return Refuse("no load slides a window along the output row");
    if (!shape.slides.vars.count(pixel_var->get()))
      return Refuse("no load slides a window along the output row or the loop outside it");
    shape.blocked = true;
  }
  return shape;
}

}  // namespace

std::optional<BlockedWindowBlock> MatchBlockedWindow(const Schedule& sch, const BlockRV& block) {
  absl::StatusOr<WindowShape> shape = AnalyzeWindow(sch, block);
  if (!shape.ok() || !shape->blocked) return std::nullopt;
  std::optional<BlockView> view = View(sch, block);
  const int64_t* row = AsConstInt(view->loops[shape->spatial - 2]->extent);
  const int64_t* lanes = AsConstInt(view->loops[shape->spatial - 1]->extent);
  if (row == nullptr || lanes == nullptr) return std::nullopt;
  return BlockedWindowBlock{view->realize->block->name, *row, *lanes, shape->taps};
}

namespace {

int64_t AccumulatorVectors(const BlockedWindowBlock& window, const Target& target) {
  return (window.lanes + target.float_lanes() - 1) / target.float_lanes();
}

}  // namespace

std::vector<WindowTiles> WindowTileCandidates(const BlockedWindowBlock& window, const Target& target) {
  const int64_t vectors = AccumulatorVectors(window, target);
  std::vector<WindowTiles> out;
  for (int64_t r = 1; r <= window.row && r * vectors <= std::max<int64_t>(vectors, target.vector_registers / 2); ++r) {
    if (window.row % r == 0) out.push_back({r});
  }
  return out;
}

WindowTiles DefaultWindowTiles(const BlockedWindowBlock& window, const Target& target) {
  return {BlockedWindowRows(window.row, AccumulatorVectors(window, target))};
}

std::string DescribeTiles(const WindowTiles& t) { return absl::StrCat("window pixels=", t.pixels); }

std::vector<double> TileFeatures(const BlockedWindowBlock& window, const WindowTiles& t, const Target& target) {
  const double vectors = static_cast<double>(AccumulatorVectors(window, target));
  return {
      1.0,
      std::log2(static_cast<double>(t.pixels)),
      static_cast<double>(t.pixels) * vectors / target.vector_registers,  // register use
      static_cast<double>(window.row / t.pixels),                         // tiles per row
      std::log2(static_cast<double>(window.taps)),
  };
}

absl::Status ScheduleWindowReduction(Schedule* sch, const BlockRV& block, const Target& target,
                                     const std::optional<WindowTiles>& tiles) {
  absl::StatusOr<WindowShape> shape = AnalyzeWindow(*sch, block);
  if (!shape.ok()) return shape.status();
  const size_t spatial = shape->spatial;
  const int64_t taps = shape->taps;
  if (shape->blocked) {
    std::optional<BlockedWindowBlock> window = MatchBlockedWindow(*sch, block);
    if (!window) return Refuse("blocked window: the pixel row and the lanes need constant extents");
    const WindowTiles t = tiles ? *tiles : DefaultWindowTiles(*window, target);
    return ScheduleBlockedWindow(sch, block, spatial, taps, shape->slides, t.pixels, target);
  }
  std::optional<BlockView> view = View(*sch, block);
  const std::vector<const ForNode*>& fors = view->loops;
  const int64_t* row = AsConstInt(fors[spatial - 1]->extent);
  absl::StatusOr<std::vector<LoopRV>> loops = sch->GetLoops(block);
  if (!loops.ok()) return loops.status();
  // The whole row is the vectorized loop: LLVM steps it by the target's vector width with a
  // remainder after it (a split by the width with a predicate would mask every load instead).
  LoopRV vec = (*loops)[spatial - 1];
  // The elementwise epilogue (bias, activation) row by row under the last outer loop, while
  // the row is in L1, instead of another pass over the output; kept only when it lands as one
  // row per iteration (a region the analysis cannot narrow would repeat the whole epilogue).
  if (spatial >= 2) PlaceEpilogueUnder(sch, block, (*loops)[spatial - 2], spatial - 1, *row);
  if (absl::StatusOr<BlockRV> init = sch->DecomposeReduction(block, (*loops)[spatial]); !init.ok())
    return init.status();
  if (taps <= kMaxUnrolledTaps) {
    for (size_t l = spatial; l < fors.size(); ++l) {
      if (absl::Status s = sch->Unroll((*loops)[l]); !s.ok()) return s;
    }
  }
  if (absl::Status s = sch->Vectorize(vec); !s.ok()) return s;
  // Parallel over the outer spatial loops (fused), when there is enough work.
  int64_t work = taps;
  for (size_t l = 0; l < spatial; ++l) {
    const int64_t* e = AsConstInt(fors[l]->extent);
    work *= e != nullptr ? *e : 1;
  }
  std::vector<LoopRV> outer((*loops).begin(), (*loops).begin() + (spatial - 1));
  if (work >= kMinParallelIterations && !outer.empty()) {
    if (absl::Status s = FuseParallel(sch, outer).status(); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace tir
}  // namespace mlc
