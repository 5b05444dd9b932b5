/*! \file conv.cc
 *  \brief The direct-convolution rule: a register tile of output pixels x blocks of output
 *         channels, over every reduction loop, reading the data in place.
 *
 *  A convolution in channel-blocked layouts (alter-op-layout; topi's "conv2d_NCHWc")
 *
 *    out[n, oc_chunk, oh, ow, oc_block] += data[n, ic_outer, oh * s + kh, ow * s + kw, ic_inner]
 *                                          * weight[oc_chunk, ic_outer, kh, kw, ic_inner, oc_block]
 *
 *  is a GEMM whose rows are output pixels along `ow`, whose columns are output channels (each
 *  block one vector, contiguous in the result and in the weight) and whose reduction runs over
 *  several loops at affine offsets. A depthwise convolution is the same tile with the data
 *  loaded as vectors along the channel block (each channel its own filter) and one block. The rule splits `ow` into
 * tiles of MR pixels and the channel blocks into groups of NB, and hands the tile (MR pixels x NB blocks x every
 *  reduction loop) to tensorize as T.gemm_tile_nd: MR x NB accumulator vectors stay in
 *  registers across the whole reduction; each step broadcasts MR data elements and loads NB
 *  weight vectors, and writes the sums (the tile holds the whole reduction, so there is no
 *  init pass). Nothing is packed per call: the weights were packed at compile time, the
 *  data is read where it lies (the padded input; a depthwise tile pads its own window), and
 *  the elementwise epilogue (bias, activation, residual) runs per tile while it is in L1.
 *  The outer loops (batch, channel groups, output rows, pixel tiles) are fused and parallel.
 *
 *  Tiles: the MR x NB with the fewest estimated cycles per multiply-add over an output row
 *  (CyclesPerFma: FMA and load ports, issue width, FMA latency), with the accumulators, the NB
 *  weight vectors and the broadcast within the vector registers. MR need not divide the output
 *  width: the last tile of a row is then guarded and computes the rows left (on AVX2's 16
 *  registers a 7-wide row took a 7 x 1 tile, 7 accumulators, below the 8 the FMA latency needs).
 */
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "ir/tir/analyzer.h"
#include "ir/tir/intrinsics.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/stmt_tree.h"
#include "ir/tir/tir_util.h"
#include "passes/schedule/rules/block_view.h"
#include "passes/schedule/rules/rules.h"
#include "passes/schedule/rules/tile_cost.h"

namespace mlc {
namespace tir {
namespace {

// A tile's padded window larger than this (a wide input, a tall filter) is left to a copy of
// the whole input: L1 is 32-48 KiB.
constexpr int64_t kMaxTileWindowBytes = 24 * 1024;

// Iterations a parallel loop needs for threads to get nearly equal shares: a few per thread
// on up to eight threads (a 14 x 14 map in 7-pixel tiles has 28).
constexpr int64_t kMinParallelTiles = 24;

// A tile reads its weights from beyond L2 the first time the kernel runs them (a network's
// weights do not stay cached from one inference to the next), then from L1 or L2 for the other
// pixel tiles that share them. Where fewer tiles than this share them, that first read is a
// large share of the tile's loads and the hardware prefetcher leaves much of it exposed, so
// the tile prefetches its weights (kGemmTilePrefetchB). ResNet-18's 3x3 convolutions on Zen 5,
// one thread: at 7 x 7 (7 tiles) 12-15% faster with the prefetches, at 14 x 14 (14 tiles) 0-4%,
// at 28 x 28 (56) within noise, at 56 x 56 (224) 3-6% slower.
constexpr int64_t kMaxTilesSharingWeightsToPrefetch = 16;

// A tile whose outputs each take this many multiply-adds or fewer (a depthwise 3 x 3 or 5 x 5
// window, a 1x1 convolution of few channels) runs its epilogue unrolled on the sums in
// registers (PlaceEpilogueUnder). As a loop, the epilogue stores each sum, loads it back and
// stores the result: two memory operations more per output vector against the tile's one load
// per multiply-add, 22% more for 9 taps and under 6% beyond this. LLVM unrolls a short epilogue
// by itself (8 x 3 vectors), not a depthwise tile's 28: MobileNetV2's depthwise layers on Zen
// 5, one thread, 112 x 112 x 32 84 -> 73 us, 28 x 28 x 192 51 -> 45 us; its changed kernels
// 3-10% faster on one and two threads, EfficientNet-B0's 2-5%.
constexpr int64_t kMaxReductionForEpilogueInRegisters = 32;

/*! \brief The target's vector registers one channel block of the tile takes (an 8-lane block on
 *  AVX-512 takes one, half empty). */
int64_t VectorsPerBlock(const DirectConvBlock& conv, const Target& target) {
  return (conv.lanes + target.float_lanes() - 1) / target.float_lanes();
}

bool IndexUses(const std::vector<PrimExpr>& indices, const Var& v) {
  for (const PrimExpr& e : indices) {
    if (UsesVar(e, v)) return true;
  }
  return false;
}

/*! \brief A depthwise convolution's data producer in this function (a padding) computed per
 *  tile, just before the tile reads it: the padded window goes from L1 into the micro-kernel
 *  instead of the whole padded input going out to memory and back (lowering then allocates it
 *  per iteration, at the size of a window). The windows of neighbouring tiles overlap, so the
 *  copy is repeated where they do; only worth it while a window is small.
 *
 *  Not for regular convolutions: their tiles are long (every input channel), the padded input
 *  is read many times over (once per channel group) and stays in cache, and a per-tile copy,
 *  each element through a bounds check, sits on every tile's critical path. Copying the whole
 *  padded input once in a parallel loop instead made ResNet-18's 56x56 and 28x28 layers 3-4%
 *  faster and the model 3.9% (one thread) and 1.8% (two threads). */
bool ComputeDataPerTile(Schedule* sch, const BlockRV& block, const LoopRV& tile_loop, size_t tile_depth,
                        const DirectConvBlock& conv) {
  absl::StatusOr<std::vector<BlockRV>> producers = sch->GetProducers(block);
  if (!producers.ok() || producers->size() != 1) return false;
  const BlockRV pad = producers->front();
  std::optional<BlockView> before = View(*sch, pad);
  if (!before || IsReductionBlock(before->realize->block.get())) return false;
  Schedule trial = *sch;
  if (!trial.ComputeAt(pad, tile_loop).ok()) return false;
  std::optional<BlockView> view = View(trial, pad);
  absl::StatusOr<std::vector<LoopRV>> loops = trial.GetLoops(pad);
  if (!view || !loops.ok() || view->loops.size() <= tile_depth) return false;
  std::optional<int64_t> window = LoopVolume(view->loops, tile_depth);
  if (!window || *window * 4 > kMaxTileWindowBytes) return false;
  // Vectorized along the channel lanes, the contiguous innermost loop.
  const int64_t* lanes = AsConstInt(view->loops.back()->extent);
  if (lanes == nullptr || *lanes != conv.lanes || !trial.Vectorize(loops->back()).ok()) return false;
  *sch = trial;
  return true;
}

/*! \brief The layout of a pixel tile's panel: (..., c, ..., w, ..., lanes) -> (..., w / MR, c,
 *  w % MR, lanes), with c and w the dimensions `channel_dim` and `row_dim` of `ndim`, lanes the
 *  last. One tile of MR pixels over consecutive c is then one contiguous region. */
IndexMap PixelTileMajor(int ndim, int row_dim, int channel_dim, int64_t mr) {
  IndexMap map;
  for (int d = 0; d < ndim; ++d) map.inputs.push_back(MakeVar(absl::StrCat("d", d), DataType::Int64()));
  for (int d = 0; d + 1 < ndim; ++d) {
    if (d != row_dim && d != channel_dim) map.outputs.push_back(map.inputs[d]);
  }
  const PrimExpr w = map.inputs[row_dim], tile = IntImm(DataType::Int64(), mr);
  map.outputs.insert(map.outputs.end(),
                     {FloorDiv(w, tile), map.inputs[channel_dim], FloorMod(w, tile), map.inputs.back()});
  return map;
}

/*! \brief A pointwise convolution's data for one pixel tile, copied just before the groups of
 *  blocks that read it in turn (the groups inside the pixel tiles, or a span of them) into a
 *  panel [input-channel blocks, MR pixels, lanes] that lowering allocates per tile. In place,
 *  the tile reads one short row per input-channel block, the rows a channel block's stride
 *  apart; where that stride is a multiple of 2 KiB (56 x 56 or 28 x 28 pixels of 8 floats),
 *  all the rows fall into a few of L1's sets and evict each other before the next group reads
 *  them: 256 -> 128 channels at 56 x 56 ran at 47% of a Zen 3's peak, at 54 x 54 at 60%. The
 *  copy is one load and store per element for the groups x NB x lanes multiply-adds that
 *  read it. Returns whether it packed. */
bool PackDataPerTile(Schedule* sch, const BlockRV& block, const DirectConvBlock& conv, int64_t mr,
                     const LoopRV& tile_loop) {
  if (conv.data_name.empty() || conv.data_row_dim < 0 || conv.data_channel_dim < 0) return false;
  // The data's position among the block's reads (a decomposed reduction reads C first).
  std::optional<BlockView> view = View(*sch, block);
  if (!view) return false;
  const std::vector<BufferRegion>& reads = view->realize->block->reads;
  auto data =
      std::find_if(reads.begin(), reads.end(), [&](const BufferRegion& r) { return r.buffer->name == conv.data_name; });
  if (data == reads.end()) return false;
  const int data_read = static_cast<int>(data - reads.begin()), ndim = data->buffer->ndim();
  Schedule trial = *sch;
  absl::StatusOr<BlockRV> packed = trial.CacheRead(block, data_read, "global");
  if (!packed.ok()) return false;
  const IndexMap map = PixelTileMajor(ndim, conv.data_row_dim, conv.data_channel_dim, mr);
  if (!trial.TransformLayout(block, data_read, /*is_write=*/false, map).ok()) return false;
  if (!trial.ComputeAt(*packed, tile_loop).ok()) return false;
  // Copied along the lanes, a vector at a time.
  absl::StatusOr<std::vector<LoopRV>> loops = trial.GetLoops(*packed);
  if (!loops.ok() || !trial.Vectorize(loops->back()).ok()) return false;
  *sch = trial;
  return true;
}

/*! \brief Whether a pixel tile's rows of data for `blocks` input-channel blocks, read where they
 *  lie, crowd L1's sets, so that the groups reading them in turn find them evicted. An x86 L1
 *  has 64 sets of 64-byte lines (4 KiB per way, what a cache indexed by the address within a
 *  4 KiB page allows), so its ways are l1d_bytes / 4 KiB. Rows a channel block's stride S apart
 *  start in 64 / gcd(S / 64, 64) distinct sets and each covers the MR pixels' lines from there;
 *  they crowd when they need half of those sets' lines or more (the rest is for the weights,
 *  which stream through every set while the groups read the rows in turn). 256 -> 128 channels
 *  at 56 x 56 in 8-float blocks on a Zen 3: rows 2 sets apart, packed 47% -> 61% of the peak.
 *  1024 -> 256 at 14 x 14 in 16-float blocks on a Zen 5: rows in every set, and in place
 *  (prefetching the next tile's rows) 8-13% faster on two threads than packed, 3% on one: each
 *  thread copied every row of its chunk for its own groups. */
bool DataRowsCrowdL1Sets(const DirectConvBlock& conv, int64_t mr, int64_t blocks, const Target& target) {
  constexpr int64_t kLine = 64, kSets = 64, kWayBytes = kLine * kSets;
  if (conv.data_channel_stride_bytes <= 0 || blocks <= 0) return true;
  const int64_t ways = std::max<int64_t>(1, target.l1d_bytes / kWayBytes);
  const int64_t row_lines = (mr * conv.lanes * 4 + kLine - 1) / kLine;
  const int64_t starts = kSets / std::gcd(conv.data_channel_stride_bytes / kLine, kSets);
  const int64_t sets = std::min(kSets, starts * row_lines);
  return blocks * conv.window * row_lines >= sets * ways / 2;
}

/*! \brief Where the epilogue placed under the tile cannot take the tile's sums in place (it
 *  writes another shape: a layout transform back to NCHW, a slice of a concatenation), the
 *  sums are an intermediate that lowering allocates per tile: its region of one tile, in the
 *  block's layout (..., c, ..., w, ..., lanes), spans every plane of the tile's channel blocks,
 *  so the buffer stayed nearly whole and each tile wrote a fresh part of it (ResNeXt-50's
 *  NCHW-writing 1x1 convolutions: 800 KB per tile; a 128 -> 512 one at 28 x 28 ran 1.9x as
 *  long as the same convolution writing its blocked output, and 2x longer again on two threads).
 *  Laid out as the packed data is, (..., w / MR, c, w % MR, lanes), a tile's sums are one
 *  contiguous [NB, MR, lanes] region. Returns whether it changed the layout. */
bool LayOutSumsPerTile(Schedule* sch, const BlockRV& block, const DirectConvBlock& conv, int64_t mr) {
  if (conv.block_loop < 0 || conv.rows % mr != 0) return false;
  std::optional<BlockView> view = View(*sch, block);
  absl::StatusOr<std::vector<BlockRV>> consumers = sch->GetConsumers(block);
  if (!view || !consumers.ok() || consumers->size() != 1) return false;
  const BlockNode* b = view->realize->block.get();
  const auto* store = b->body.as<BufferStoreNode>();
  if (store == nullptr || b->writes.size() != 1) return false;
  const Buffer& sums = store->buffer;
  if (IsParam(view->prim, sums)) return false;
  // An epilogue writing an output of the sums' shape computes there in place (lowering's
  // EpilogueInPlace): the intermediate goes away, and a new layout would only stop that.
  std::optional<BlockView> epilogue = View(*sch, consumers->front());
  if (!epilogue) return false;
  for (const BufferRegion& w : epilogue->realize->block->writes) {
    if (IsParam(view->prim, w.buffer) && SameShape(w.buffer, sums)) return false;
  }
  int row_dim = -1, block_dim = -1;
  const int ndim = static_cast<int>(store->indices.size());
  for (int d = 0; d < ndim; ++d) {
    const TirVarNode* v = VarAtConstantOffset(store->indices[d]);
    if (v == b->iter_vars[conv.row_loop].var.get()) row_dim = d;
    if (v == b->iter_vars[conv.block_loop].var.get()) block_dim = d;
  }
  if (row_dim < 0 || block_dim < 0 || row_dim == ndim - 1 || block_dim == ndim - 1) return false;
  return sch->TransformLayout(block, 0, /*is_write=*/true, PixelTileMajor(ndim, row_dim, block_dim, mr)).ok();
}

}  // namespace

std::optional<DirectConvBlock> MatchDirectConv(const Schedule& sch, const BlockRV& block_rv) {
  std::optional<BlockView> view = View(sch, block_rv);
  if (!view) return std::nullopt;
  const BlockRealizeNode* realize = view->realize;
  const BlockNode* block = realize->block.get();
  if (!IsReductionBlock(block) || view->loops.size() != block->iter_vars.size()) return std::nullopt;
  // C[...] = C[...] + A[...] * B[...], float32, C indexed by plain iteration variables.
  const auto* store = block->body.as<BufferStoreNode>();
  if (store == nullptr || store->buffer->dtype != DataType::Float32()) return std::nullopt;
  const auto* add = store->value.as<AddNode>();
  const auto* acc = add ? add->a.as<BufferLoadNode>() : nullptr;
  const auto* mul = add ? add->b.as<MulNode>() : nullptr;
  const auto* a = mul ? mul->a.as<BufferLoadNode>() : nullptr;
  const auto* b = mul ? mul->b.as<BufferLoadNode>() : nullptr;
  if (acc == nullptr || a == nullptr || b == nullptr || !acc->buffer.same_as(store->buffer)) return std::nullopt;
  if (a->buffer->dtype != DataType::Float32() || b->buffer->dtype != DataType::Float32()) return std::nullopt;
  // C at its iteration variables, possibly offset by constants (the interior of a padded
  // result: in_place_epilogue).
  for (const PrimExpr& i : store->indices) {
    if (VarAtConstantOffset(i) == nullptr) return std::nullopt;
  }
  const IterVar* lanes_iv = nullptr;
  for (const IterVar& iv : block->iter_vars) {
    if (iv.var.get() == store->indices.back().get()) lanes_iv = &iv;
  }
  if (lanes_iv == nullptr) return std::nullopt;
  const Var lanes_var = lanes_iv->var;
  // A is the data: broadcast per pixel, or (depthwise) a vector along the lanes, as B is. B is
  // the weight: it does not vary along the pixels.
  DirectConvBlock conv;
  conv.name = block->name;
  conv.vector_a = IndexUses(a->indices, lanes_var) && IndexUses(b->indices, lanes_var);
  if (!IndexUses(b->indices, lanes_var)) return std::nullopt;
  if (conv.vector_a) {
    // The weight is the operand no pixel loop moves.
    for (const IterVar& iv : block->iter_vars) {
      if (iv.kind == IterKind::kSpatial && !iv.var.same_as(lanes_var) && IndexUses(store->indices, iv.var) &&
          IndexUses(b->indices, iv.var) && !IndexUses(a->indices, iv.var)) {
        std::swap(a, b);
        break;
      }
    }
  } else if (IndexUses(a->indices, lanes_var)) {
    std::swap(a, b);
  }
  // Each iteration variable is bound to its own loop, in order.
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    if (!realize->iter_values[i].same_as(view->loops[i]->loop_var)) return std::nullopt;
  }
  std::vector<int> column_loops;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    const IterVar& iv = block->iter_vars[i];
    const int64_t* lo = AsConstInt(iv.dom.min);
    if (lo == nullptr || *lo != 0) return std::nullopt;
    bool in_c = IndexUses(store->indices, iv.var), in_a = IndexUses(a->indices, iv.var),
         in_b = IndexUses(b->indices, iv.var);
    int l = static_cast<int>(i);
    if (iv.kind == IterKind::kReduce) {
      if (!in_a || !in_b || AsConstInt(iv.dom.extent) == nullptr) return std::nullopt;
      conv.reduce_loops.push_back(l);
    } else if (in_c && in_a && !in_b) {
      conv.row_candidates.push_back(l);
    } else if (in_c && in_b && (!in_a || (conv.vector_a && iv.var.same_as(lanes_var)))) {
      column_loops.push_back(l);
    } else if (in_c && in_a && in_b && !iv.var.same_as(lanes_var)) {
      // Depthwise: each channel block its own filter; grouped: the output block picks the
      // data's group. Outside the tile either way.
      conv.channel_loops.push_back(l);
    } else {
      return std::nullopt;  // a variable C does not use, or one the data and weight share
    }
  }
  if (conv.reduce_loops.empty() || conv.row_candidates.empty()) return std::nullopt;
  // Columns: the lanes (C's last index) and at most one loop over channel blocks.
  for (int l : column_loops) {
    if (block->iter_vars[l].var.same_as(lanes_var)) {
      conv.lanes_loop = l;
    } else if (conv.block_loop < 0 && !conv.vector_a) {
      conv.block_loop = l;
    } else {
      return std::nullopt;
    }
  }
  if (conv.lanes_loop < 0) return std::nullopt;
  // Rows: the innermost pixel loop (ow); the other pixel loops (n, oh) stay outside.
  conv.row_loop = conv.row_candidates.back();
  auto extent = [&](int l) -> int64_t {
    const int64_t* e = AsConstInt(block->iter_vars[l].dom.extent);
    return e != nullptr ? *e : -1;
  };
  conv.lanes = extent(conv.lanes_loop);
  conv.rows = extent(conv.row_loop);
  conv.blocks = conv.block_loop >= 0 ? extent(conv.block_loop) : 1;
  if (conv.lanes < 4 || conv.rows < 1 || conv.blocks < 1) return std::nullopt;
  conv.reduction = 1;
  for (int l : conv.reduce_loops) conv.reduction *= extent(l);
  conv.outer_reduction = extent(conv.reduce_loops.front());
  for (int l : conv.row_candidates) {
    if (l != conv.row_loop) conv.pixel_rows *= std::max<int64_t>(extent(l), 1);
  }
  if (conv.row_candidates.size() >= 2) conv.image_row_loop = conv.row_candidates[conv.row_candidates.size() - 2];
  conv.image_rows = conv.image_row_loop >= 0 ? extent(conv.image_row_loop) : 0;
  for (size_t r = 1; r + 1 < conv.reduce_loops.size(); ++r) conv.window *= extent(conv.reduce_loops[r]);
  // The data's dimensions along the tile's rows and the input-channel blocks, when each is
  // indexed by its loop's variable alone and the lanes by the inner reduction's; reduction
  // loops of extent 1 (a 1 x 1 window's kh, kw) read as 0.
  std::vector<std::pair<Var, PrimExpr>> unit_window;
  std::vector<Var> channels;  // the other reduction variables: channel blocks, then lanes
  for (int l : conv.reduce_loops) {
    const IterVar& iv = block->iter_vars[l];
    if (extent(l) == 1)
      unit_window.push_back({iv.var, IntImm(iv.var->dtype, 0)});
    else
      channels.push_back(iv.var);
  }
  auto plain = [&](const PrimExpr& index, const Var& v) {
    return Analyzer().Simplify(Substitute(index, unit_window)).same_as(v);
  };
  const Var& row_var = block->iter_vars[conv.row_loop].var;
  if (channels.size() == 2 && channels[0].same_as(block->iter_vars[conv.reduce_loops.front()].var) &&
      plain(a->indices.back(), channels[1])) {
    for (size_t d = 0; d + 1 < a->indices.size(); ++d) {
      if (plain(a->indices[d], row_var)) conv.data_row_dim = static_cast<int>(d);
      if (plain(a->indices[d], channels[0])) conv.data_channel_dim = static_cast<int>(d);
    }
    conv.data_name = a->buffer->name;
  }
  conv.data_bytes = a->buffer->dtype.bytes();
  for (size_t d = 0; d < a->buffer->shape.size(); ++d) {
    const int64_t* e = AsConstInt(a->buffer->shape[d]);
    conv.data_bytes = e != nullptr && conv.data_bytes > 0 ? conv.data_bytes * *e : 0;  // 0: unknown
    // The bytes from one input-channel block to the next: the dimensions inside it.
    if (static_cast<int>(d) == conv.data_channel_dim) conv.data_channel_stride_bytes = a->buffer->dtype.bytes();
    if (static_cast<int>(d) > conv.data_channel_dim && conv.data_channel_dim >= 0)
      conv.data_channel_stride_bytes = e != nullptr ? conv.data_channel_stride_bytes * *e : 0;
  }
  return conv;
}

namespace {

/*! \brief Loads per innermost step of an MR x NB tile: MR broadcasts of the data (MR x vectors
 *  vector loads for a depthwise tile) and NB x vectors weight vectors. */
int64_t LoadsPerStep(const DirectConvBlock& conv, int64_t mr, int64_t nb, int64_t vectors) {
  return (conv.vector_a ? mr * vectors : mr) + nb * vectors;
}

/*! \brief An MR x NB tile's cycles per multiply-add (tile_cost.h). */
double CyclesPerFma(const DirectConvBlock& conv, int64_t mr, int64_t nb, int64_t vectors, const Target& target) {
  return TileCyclesPerFma(mr * nb * vectors, LoadsPerStep(conv, mr, nb, vectors), target);
}

/*! \brief The cycles a tile choice takes over one row of output pixels, per output vector. */
double RowCost(const DirectConvBlock& conv, const DirectConvTiles& t, int64_t vectors, const Target& target) {
  return GuardedRowCost(conv.rows, t.mr, [&](int64_t h) { return CyclesPerFma(conv, h, t.nb, vectors, target); });
}

/*! \brief Whether each step reads one data element per input channel and pixel, with no
 *  window whose rows neighbouring tiles share (a 1 x 1 convolution, whatever the data's channel
 *  block: ResNeXt's NCHW4c data into NCHW8c results too). */
bool IsPointwise(const DirectConvBlock& conv) { return conv.window == 1; }

/*! \brief A tile's working set: its group's weights over the reduction it runs (a chunk of it,
 *  with chunks) and MR pixels of data per reduction step. */
int64_t WorkingSetBytes(const DirectConvBlock& conv, const DirectConvTiles& t) {
  const int64_t reduction = t.kc > 0 ? conv.reduction / conv.outer_reduction * t.kc : conv.reduction;
  const int64_t blocks = t.groups_inside && t.row_block == 0 && !IsPointwise(conv) ? conv.blocks : t.nb;
  return reduction * (blocks * conv.lanes + t.mr) * 4;
}

/*! \brief Whether a tile's working set, its group's weights over the whole reduction and (at
 *  most) MR pixels of data per reduction step, fits in L1. One that does not refetches the
 *  weights from L2 at every pixel tile: ResNet-50's 256 -> 128 1x1 convolution on a Zen 3 took
 *  3 pixels x 4 blocks (36 KB, more than L1) and ran 2.2x slower than the 14 x 1 tile (22 KB)
 *  the tuner found. A window's tile with the groups inside each pixel tile runs every group in
 *  turn on the tile's pixels, so its working set holds all the groups' weights: a tile one
 *  block wide that fitted by its own group's weights read them all from L2 at every pixel
 *  tile like any wider one, at a load per multiply-add (EfficientNet-V2-S's 48 -> 192 3 x 3
 *  convolution at 56 x 56 took 12 x 1 at 3.56 ms alone, against 3.01 for the 8 x 3 it takes
 *  now; its changed kernels 11-14% faster in the model, Zen 5). Not for pointwise tiles, which have chunked tiles
 *  besides: counted so, DenseNet-121's and ResNet-50's 1 x 1 convolutions at 56 x 56 left
 *  14 x 2 with the groups inside for 2 x 8 in chunks, and ran 4-8% slower. */
bool FitsL1(const DirectConvBlock& conv, const DirectConvTiles& t, const Target& target) {
  return WorkingSetBytes(conv, t) <= target.l1d_bytes;
}

/*! \brief How many times the whole data is read from beyond L2: once when it fits in half of
 *  L2 or every group of NB blocks reads it inside the pixel tiles, once per span of groups when
 *  they go in spans, else once per group. */
int64_t DataPasses(const DirectConvBlock& conv, const DirectConvTiles& t, const Target& target) {
  const int64_t groups = conv.blocks / t.nb;
  if (conv.vector_a || conv.data_bytes <= target.l2_bytes / 2 || t.groups_inside || groups < 2) return 1;
  if (t.kc > 0 && t.group_span > 0) return groups / t.group_span;
  return groups;
}

/*! \brief Cycles per multiply-add a pointwise convolution spends streaming its data from beyond
 *  L2: 4 bytes per pixel and input channel, read DataPasses times, over all its multiply-adds
 *  (blocks x vectors per element). ResNeXt-50's 512 -> 256 1 x 1 convolution at 28 x 28 (1.6 MB
 *  of data, 512 KB of weights: neither stays in a Zen 3's L2) took a 7 x 1 tile that read the
 *  data once per channel block, 32 times, and ran at 31% of the peak. Windows are left out:
 *  their tiles read each row for several taps, from cache. */
double StreamCyclesPerFma(const DirectConvBlock& conv, const DirectConvTiles& t, int64_t vectors,
                          const Target& target) {
  if (conv.vector_a || !IsPointwise(conv) || conv.data_bytes <= 0) return 0;
  const double bytes =
      4.0 * static_cast<double>(DataPasses(conv, t, target)) / static_cast<double>(conv.blocks * vectors);
  return bytes / target.stream_bytes_per_cycle();
}

/*! \brief The cycles per multiply-add a tile whose working set spills L1 spends reading its
 *  weights back from L2: a block's weights for one reduction step (lanes x 4 bytes, in
 *  `vectors` vector registers) per MR multiply-adds of each of those vectors. With AVX-512's
 *  64-byte vectors a 4-pixel tile needs 16 bytes per multiply-add, as long as the multiply-add
 *  itself: on a Cascade Lake the 4 x 4 tile ResNet-18's 56 x 56 and 28 x 28 layers took ran
 *  1.1-1.2x slower than the 14 x 2 one the tuner found. A block of 8 lanes on a 16-lane target
 *  (24, 40 or 72 channels) reads half a vector's bytes per multiply-add. */
double L2WeightCyclesPerFma(const DirectConvBlock& conv, const DirectConvTiles& t, int64_t vectors,
                            const Target& target) {
  const double bytes = 4.0 * static_cast<double>(conv.lanes) / static_cast<double>(vectors * t.mr);
  return bytes / target.l2_bytes_per_cycle();
}

/*! \brief Whether a tile in a group span waits for its weights from L2, given its cycles per
 *  multiply-add reading them (L2WeightCyclesPerFma) and computing (RowCost). Every group of the span
 *  runs inside each pixel tile, so the span's weights for one chunk (far more than L1) come from
 *  L2 at every pixel tile, which costs nothing while those reads take a modest share of L2's
 *  bandwidth (AVX2's 3 x 4 tiles in spans: two thirds of it, ResNet-50's 1x1 convolutions on a
 *  Zen 3 at 74-78% of the peak) and stalls the tile where they take most of it: DeepLabV3-
 *  ResNet50's 512 -> 2048 1x1 convolution at 28 x 28 took 4 x 4 in spans of 16 groups on a
 *  Zen 5, a weight vector per 4 multiply-adds at the whole of L2's bandwidth: 6.3 ms alone on
 *  one thread, against 5.6-5.9 ms for 6 x 4 (two thirds) and 5.1 ms for 14 x 2 in spans. */
bool SpanWaitsOnL2(const DirectConvTiles& t, double l2_weight_cycles, double row_cycles) {
  return t.group_span > 0 && l2_weight_cycles > 0.75 * row_cycles;
}

/*! \brief The cost a tile is chosen by: RowCost; for a working set beyond L1 (or a span that
 *  waits on L2), half as much again or the weights' reads from L2 on top, whichever is more;
 *  plus the cycles the data's streams from beyond L2 take. */
double TileCost(const DirectConvBlock& conv, const DirectConvTiles& t, int64_t vectors, const Target& target) {
  const double cost = RowCost(conv, t, vectors, target);
  const double l2_weights = L2WeightCyclesPerFma(conv, t, vectors, target);
  const double spilled = std::max(1.5 * cost, cost + l2_weights);
  const bool in_l1 = FitsL1(conv, t, target) && !SpanWaitsOnL2(t, l2_weights, cost);
  return (conv.vector_a || in_l1 ? cost : spilled) + StreamCyclesPerFma(conv, t, vectors, target);
}

}  // namespace

std::optional<DirectConvTiles> DefaultDirectConvTiles(const DirectConvBlock& conv, const Target& target) {
  std::vector<DirectConvTiles> all = DirectConvTileCandidates(conv, target);
  if (all.empty()) return std::nullopt;
  const int64_t vectors = VectorsPerBlock(conv, target);
  // The fewest cycles per multiply-add over the row, tail included; ties go (pointwise, where
  // chunks are offered beside whole reductions) to the whole reduction (chunks reload their
  // sums, and only a whole one runs its epilogue per tile: a 128 -> 512 1x1 convolution at
  // 28 x 28 ran as fast as 14 x 2 whole as 4 x 4 in two chunks; a window's chunks come with its
  // group width, and Inception-v3's 448 -> 384 3 x 3 layer at 8 x 8 ran 6% slower as 8 x 2
  // whole than as 8 x 3 in chunks), then to the tile that divides the row, then to the fewest
  // loads per multiply-add, then to more accumulators.
  auto loads = [&](const DirectConvTiles& t) {
    return static_cast<double>(LoadsPerStep(conv, t.mr, t.nb, vectors)) / static_cast<double>(t.mr * t.nb * vectors);
  };
  return *std::min_element(all.begin(), all.end(), [&](const DirectConvTiles& x, const DirectConvTiles& y) {
    double cx = TileCost(conv, x, vectors, target), cy = TileCost(conv, y, vectors, target);
    if (std::abs(cx - cy) > 1e-9) return cx < cy;
    if (IsPointwise(conv) && (x.kc > 0) != (y.kc > 0)) return x.kc == 0;
    bool dx = conv.rows % x.mr == 0, dy = conv.rows % y.mr == 0;
    if (dx != dy) return dx;
    if (loads(x) != loads(y)) return loads(x) < loads(y);
    return x.mr * x.nb > y.mr * y.nb;
  });
}

int64_t ReductionChunk(const DirectConvBlock& conv, int64_t nb, const Target& target) {
  // The weights one group of NB output blocks reads: every reduction step, NB x lanes floats.
  // Within half of L2 they stay there across the pixel tiles; beyond (FCN-ResNet50's head,
  // 2048 -> 512 channels 3x3: 4.7 MB per group of 4 blocks) every pixel tile streamed them from
  // memory, and the layer ran at 24% of the peak. Chunked, a chunk's weights are read by every
  // pixel tile in turn, so they go in chunks that stay in L1 (half of it, beside the data's
  // rows): in chunks of half of L2 each tile still streamed them from L2, and on a Zen 3 the
  // same head ran at 50-55% of the peak against 71-79% in L1 chunks, 1024 -> 256 at 28 x 28 at
  // 54-60% against 74-87%, ResNet-18's 3 x 3 layers of 256 and 512 channels 7-15% faster.
  // Where one reduction step alone exceeds that (a wide AVX-512 group: 4 blocks of 16 lanes
  // over 16 channels x 3 x 3 is 36 KB), the chunks fit half of L2 instead: still far better
  // than streaming all the weights from memory for every tile.
  if (conv.vector_a || conv.reduce_loops.empty() || conv.outer_reduction < 2) return 0;
  const int64_t per_step = conv.reduction / conv.outer_reduction * nb * conv.lanes * 4;
  if (per_step * conv.outer_reduction <= target.l2_bytes / 2) return 0;
  for (const int64_t budget : {target.l1d_bytes / 2, target.l2_bytes / 2}) {
    for (int64_t c = conv.outer_reduction / 2; c >= 1; --c) {
      if (conv.outer_reduction % c == 0 && c * per_step <= budget) return c;
    }
  }
  return 0;
}

int64_t GroupSpan(const DirectConvBlock& conv, const DirectConvTiles& t, const Target& target) {
  const int64_t groups = conv.blocks / t.nb;
  if (t.kc <= 0 || conv.vector_a || conv.block_loop < 0 || groups < 4 || conv.data_bytes <= target.l2_bytes / 2)
    return 0;
  // One group's weights for one chunk: kc reduction steps of NB x lanes floats.
  const int64_t chunk_weights = conv.reduction / conv.outer_reduction * t.kc * t.nb * conv.lanes * 4;
  // At least two spans, so the parallel loop keeps something to share.
  for (int64_t span = groups / 2; span >= 2; --span) {
    if (groups % span == 0 && span * chunk_weights <= target.l2_bytes / 2) return span;
  }
  return 0;
}

int64_t ChunkedRowParts(const DirectConvBlock& conv, const DirectConvTiles& t, const Target& target) {
  if (t.kc <= 0 || conv.image_row_loop < 0 || conv.image_rows < 2) return 1;
  // One parallel iteration without parts: an image x a group of NB blocks (or a span of them).
  const int64_t images = conv.pixel_rows / conv.image_rows;
  const int64_t groups = conv.blocks / t.nb / (t.group_span > 0 ? t.group_span : 1);
  const double channels = static_cast<double>(conv.blocks / groups * conv.lanes);
  const double pixels = static_cast<double>(conv.image_rows * conv.rows);
  const double chunks = static_cast<double>(conv.outer_reduction / t.kc);
  const double weight_bytes = 4.0 * static_cast<double>(conv.reduction) * channels;
  const double out_bytes = 4.0 * pixels * channels;
  const double compute = pixels * static_cast<double>(conv.reduction) * channels / (2.0 * target.float_lanes());
  const double half_l2 = static_cast<double>(target.l2_bytes) / 2;
  // Cycles of one iteration in `parts` parts. Each part reads all the iteration's weights once
  // (from L2 where they fit half of it, else from memory). The sums each chunk adds to: where
  // all of them exceed L2, every chunk reads and writes them from memory (FCN-ResNet50's 512 ->
  // 2048 1x1 convolutions at 28 x 28: 3.2 MB of sums per span, 8 chunks, at 30% of the peak)
  // unless one part's fit half of L2 (in 7 parts: 0.80-0.86x the time on one and two threads).
  // Sums that fit L2 but not half of it are left whole: 2048 -> 512 at 28 x 28 (0.8 MB) in two
  // parts gained nothing on one thread and lost 20% on two, each part rereading 2 MB of weights
  // (what spills L2 there comes back from L3).
  auto cycles = [&](int64_t parts) {
    const double weights = parts * weight_bytes /
                           (weight_bytes <= half_l2 ? target.l2_bytes_per_cycle() : target.stream_bytes_per_cycle());
    const bool streams = out_bytes > static_cast<double>(target.l2_bytes) && out_bytes / parts > half_l2;
    // (Every chunk but the first reads them back; the result is written once either way.)
    const double sums = streams ? 2 * out_bytes * (chunks - 1) / target.stream_bytes_per_cycle() : 0;
    return compute + weights + sums;
  };
  // Against it, the share of the slowest of T threads, for one and two (the executable does not
  // know how many it gets; weighing four as well split loops already even for two, which then
  // ran 5-15% slower on two threads). Inception-v3's 768 -> 128 convolution at 17 x 17 in one
  // group of 8 blocks ran on one thread of two (17 parts: 0.62-0.65x the time on two threads).
  auto cost = [&](int64_t parts) {
    const int64_t iterations = images * groups * parts;
    double share = 0;
    for (const int64_t threads : {1, 2}) {
      share += static_cast<double>((iterations + threads - 1) / threads * threads) / static_cast<double>(iterations);
    }
    return share * cycles(parts);
  };
  int64_t best = 1;
  for (int64_t parts = 2; parts <= conv.image_rows; ++parts) {
    if (conv.image_rows % parts == 0 && cost(parts) < cost(best) * (1 - 1e-9)) best = parts;
  }
  return best;
}

bool ConvGroupsInside(const DirectConvBlock& conv, int64_t nb, const Target& target) {
  if (conv.vector_a || conv.block_loop < 0 || conv.blocks / nb < 2 || conv.data_bytes <= 0) return false;
  const int64_t weight_bytes = conv.reduction * conv.blocks * conv.lanes * 4;
  return weight_bytes <= target.l2_bytes / 2 && conv.data_bytes > target.l2_bytes / 2;
}

int64_t GroupsRowBlock(const DirectConvBlock& conv, const Target& target) {
  if (conv.data_name.empty() || conv.image_rows < 2 || conv.data_bytes <= 0 || conv.pixel_rows < 1) return 0;
  const int64_t images = conv.pixel_rows / conv.image_rows, row_bytes = conv.data_bytes / conv.pixel_rows;
  for (int64_t rows = conv.image_rows; rows >= 1; --rows) {
    if (conv.image_rows % rows != 0 || images * (conv.image_rows / rows) < kMinParallelTiles) continue;
    if (rows * row_bytes <= target.l1d_bytes) return rows;
  }
  return 0;
}

namespace {

/*! \brief Whether a tile prefetches its weights (DirectConvTiles::prefetch_weights): where few
 *  pixel tiles share each weight, so that reading them from beyond L2 the first time is a large
 *  share of the tiles' loads. */
bool PrefetchesWeights(const DirectConvBlock& conv, const DirectConvTiles& t) {
  if (conv.vector_a) return false;  // depthwise: a few taps of weights per channel block
  // Row parts are parallel iterations: each reads the weights on its own.
  const int64_t sharing = conv.pixel_rows * ((conv.rows + t.mr - 1) / t.mr) / std::max<int64_t>(1, t.row_parts);
  return sharing < kMaxTilesSharingWeightsToPrefetch;
}

}  // namespace

std::vector<DirectConvTiles> DirectConvTileCandidates(const DirectConvBlock& conv, const Target& target) {
  std::vector<DirectConvTiles> out;
  const int64_t vectors = VectorsPerBlock(conv, target);
  // One register for the broadcast element: it feeds NB FMAs, so LLVM keeps it in a register
  // rather than folding it into each FMA (a tile that counted on the fold spilled and ran at
  // half speed, depending on where the stack landed).
  // A vector A (depthwise) takes `vectors` registers per load instead.
  const int64_t spare = conv.vector_a ? vectors : 1;
  for (int64_t nb = 1; nb <= std::min<int64_t>(conv.blocks, 8); ++nb) {
    if (conv.blocks % nb != 0) continue;
    for (int64_t mr = 1; mr <= std::min<int64_t>(conv.rows, 32); ++mr) {
      // A tile height that does not divide the row leaves a guarded last tile; depthwise tiles
      // pad their own windows, which a guarded tile would overrun, so they must divide.
      if (conv.rows % mr != 0 && conv.vector_a) continue;
      // Registers: the accumulators, then either the NB weight vectors and one broadcast, or
      // (a broadcast A, fewer rows than blocks: codegen's order then) the MR broadcasts and one
      // weight vector at a time.
      int64_t beside = nb * vectors + spare;
      if (!conv.vector_a && mr < nb) beside = mr + vectors;
      if (mr * nb * vectors + beside > target.vector_registers) continue;
      // At least a few accumulators to cover the FMA latency (unless the output is that small).
      if (mr * nb * vectors < 4 && !(mr == conv.rows && nb == conv.blocks)) continue;
      DirectConvTiles t{mr, nb, ReductionChunk(conv, nb, target), ConvGroupsInside(conv, nb, target)};
      if (t.groups_inside && IsPointwise(conv)) t.row_block = GroupsRowBlock(conv, target);
      out.push_back(t);
      // The groups inside each pixel tile instead stay a choice for tuning (the row blocks come
      // first: DefaultDirectConvTiles keeps the first of equal costs).
      if (t.row_block > 0) {
        DirectConvTiles per_tile = t;
        per_tile.row_block = 0;
        out.push_back(per_tile);
      }
    }
  }
  // A pointwise (1 x 1) convolution none of whose tiles has a working set within L1 also gets
  // each tile with the reduction in chunks whose working set fits: its pixel tiles share no
  // data, and each streamed its group's weights from L2 (1024 -> 256 channels at 14 x 14 on a
  // Zen 3: 2.3 -> 1.3 ms in chunks of 16 input-channel blocks). Not for windows: ResNet-18's
  // 3 x 3 convolutions, whose neighbouring tiles share rows, ran 10-50% slower in such chunks.
  // When the data is larger than half of L2 too, it would stream from memory once per group of
  // NB blocks: the groups go in spans whose weights for one chunk fit in half of L2, each span's
  // groups inside the pixel tiles (FCN-ResNet50's 2048 -> 512 1x1 convolution at 28 x 28 on a
  // Zen 3: 6.4 MB of data read by 32 groups, at 11% of the peak).
  // Chunks also where the data would stream from beyond L2 once per group of blocks (neither
  // the data nor all the weights fit in half of L2), for their group spans.
  // Otherwise only the tiles whose working set spills L1 get the chunked form as well: the
  // tiles within L1 can all be one block wide (7 or 14 pixels x 1 block: a weight vector per
  // 7-14 multiply-adds, fewer accumulators than the FMA latency covers), which ResNet-50's
  // 512 -> 128 1x1 convolution at 28 x 28 took at 72% of the peak against 85-89% as 2 x 8 in
  // chunks, its 512 -> 2048 at 7 x 7 at 660 against 598 us as 7 x 2 in chunks (Zen 5, one
  // thread; RegNet-Y-400MF's changed kernels 12% faster on two threads).
  auto fits = [&](const DirectConvTiles& t) { return FitsL1(conv, t, target); };
  auto restreams = [&](const DirectConvTiles& t) { return DataPasses(conv, t, target) >= 4; };
  if (IsPointwise(conv) && !conv.vector_a && conv.block_loop >= 0) {
    const bool chunk_every_tile =
        std::none_of(out.begin(), out.end(), fits) || std::all_of(out.begin(), out.end(), restreams);
    const size_t whole = out.size();
    for (size_t i = 0; i < whole; ++i) {
      if (out[i].kc != 0 || (!chunk_every_tile && fits(out[i]))) continue;
      for (int64_t c = conv.outer_reduction / 2; c >= 1; --c) {
        DirectConvTiles chunked{out[i].mr, out[i].nb, c, false};
        if (conv.outer_reduction % c == 0 && fits(chunked)) {
          chunked.group_span = GroupSpan(conv, chunked, target);
          if (std::find(out.begin(), out.end(), chunked) == out.end()) out.push_back(chunked);
          break;
        }
      }
    }
  }
  // A window whose weights few pixel tiles share (PrefetchesWeights) and whose tile's working
  // set spills L1 (whole, or in chunks of half of L2) reads each weight from beyond L2 in the
  // first pixel tile and from L2 in the others. Its tiles also come with the reduction in chunks
  // whose working set takes at most three quarters of L1 (the rest for the next chunk's lines
  // arriving, and the sums), each tile of a chunk prefetching a slice of the next chunk into L2
  // (WeightPrefetch::kNextChunk), so the weights stream in evenly over all the tiles instead of
  // at the first one's pace. ResNet-
  // 18's 512 -> 512 3 x 3 convolution at 7 x 7 (9.4 MB of weights) took 7 x 2 whole at 59-62%
  // of the peak on an Intel Xeon (one thread), at 78% with every task's weights made the same
  // (so they stayed in L2), and at 72-78% in chunks of one input-channel block (18 KB) with the
  // next chunk prefetched; in chunks without that prefetch at 67%, in chunks of two blocks
  // (45 KB of the 48 KB L1) at 53-62%.
  if (!IsPointwise(conv) && !conv.vector_a && conv.block_loop >= 0) {
    const size_t whole = out.size();
    for (size_t i = 0; i < whole; ++i) {
      const DirectConvTiles& t = out[i];
      if (t.groups_inside || !PrefetchesWeights(conv, t) || fits(t)) continue;
      // Smaller than chunks it may have already (ReductionChunk's, within half of L2).
      for (int64_t c = t.kc > 0 ? t.kc - 1 : conv.outer_reduction / 2; c >= 1; --c) {
        DirectConvTiles chunked{t.mr, t.nb, c, false};
        if (conv.outer_reduction % c == 0 && WorkingSetBytes(conv, chunked) * 4 <= target.l1d_bytes * 3) {
          if (std::find(out.begin(), out.end(), chunked) == out.end()) out.push_back(chunked);
          break;
        }
      }
    }
  }
  // Chunked tiles get the image rows in parts where ChunkedRowParts finds it pays (a parallel
  // loop too short to share, sums beyond L2); the same tiles with the rows whole stay a choice
  // for tuning (after: DefaultDirectConvTiles keeps the first of equal costs).
  std::vector<DirectConvTiles> with_parts;
  for (const DirectConvTiles& t : out) {
    if (const int64_t parts = ChunkedRowParts(conv, t, target); parts > 1) {
      DirectConvTiles split = t;
      split.row_parts = parts;
      with_parts.push_back(split);
    }
    with_parts.push_back(t);
  }
  // Chunks outside the pixel tiles (not groups in spans inside them) take the next chunk's
  // weights in slices; other tiles prefetch theirs ahead as they go.
  for (DirectConvTiles& t : with_parts) {
    if (!PrefetchesWeights(conv, t)) continue;
    t.prefetch_weights = t.kc > 0 && t.group_span == 0 ? WeightPrefetch::kNextChunk : WeightPrefetch::kAhead;
  }
  return with_parts;
}

namespace {

/*! \brief Appends the loops of one register tile to `order`, outermost first: the tile's
 *  pixels, its channel blocks, the lanes, then the reduction loops (`first_reduce`, where
 *  given, in place of the outermost one: a chunk of it). */
void AppendTileLoops(std::vector<LoopRV>* order, const DirectConvBlock& conv, const std::vector<LoopRV>& loops,
                     const LoopRV& tile_rows, const std::optional<LoopRV>& block_inner,
                     const std::optional<LoopRV>& first_reduce = std::nullopt) {
  order->push_back(tile_rows);
  if (block_inner) order->push_back(*block_inner);
  order->push_back(loops[conv.lanes_loop]);
  for (size_t r = 0; r < conv.reduce_loops.size(); ++r) {
    order->push_back(r == 0 && first_reduce ? *first_reduce : loops[conv.reduce_loops[r]]);
  }
}

/*! \brief Asks the tile to prefetch the next pixel tile's data while it runs
 *  (kGemmTilePrefetchNextA): for tiles that read their data where it lies, one after another
 *  along the pixel rows. A pixel tile reads one short row per input-channel block, a channel
 *  block's stride apart: many short streams, which the hardware prefetcher does not follow. From
 *  L2 that costs little, but where the layer before ran on the other core its rows come from
 *  there one latency at a time. On two threads of a Zen 5 whose cores read each other's writes
 *  at 38 GB/s (round trips of 430-470 ns), MobileNetV2 ran 10% faster, MnasNet 6.5%, GoogLeNet
 *  3% and ResNet-50 0.5%; on one thread within noise. */
absl::Status PrefetchNextTilesData(Schedule* sch, const BlockRV& block) {
  return sch->Annotate(block, kPrefetchNextDataAnnotation, true);
}

/*! \brief The elementwise epilogue of a chunked reduction moved under its parallel loop `par`,
 *  after the chunks: each parallel iteration's sums are whole there, and still in L2 (a group of
 *  output channels over some image rows), where a pass of its own over the whole output read
 *  them back from memory, with the residual. Kept only where the epilogue narrows to the
 *  iteration's sums (PlaceEpilogueUnder). */
void PlaceEpilogueAfterChunks(Schedule* sch, const BlockRV& block, const LoopRV& par) {
  absl::StatusOr<std::vector<BlockRV>> consumers = sch->GetConsumers(block);
  if (!consumers.ok() || consumers->size() != 1) return;
  std::optional<BlockView> epilogue = View(*sch, consumers->front());
  std::optional<BlockView> conv = View(*sch, block);
  if (!epilogue || !conv || conv->loops.empty()) return;
  std::optional<int64_t> total = LoopVolume(epilogue->loops);
  const int64_t* extent = AsConstInt(conv->loops.front()->extent);
  if (!total || extent == nullptr || *extent <= 0 || *total % *extent != 0) return;
  PlaceEpilogueUnder(sch, block, par, 1, *total / *extent);
}

/*! \brief ScheduleDirectConv with the outermost reduction loop in chunks of tiles.kc: batch
 *  and channel-block groups (parallel), then the chunks, then the pixel tiles, each tile adding
 *  its chunk's sums to C, which an init pass zeroes first. The epilogue runs per parallel
 *  iteration after the chunks (it needs the whole reduction). */
absl::Status ScheduleChunkedReduction(Schedule* sch, const BlockRV& block, const DirectConvBlock& conv,
                                      const DirectConvTiles& tiles, const std::vector<LoopRV>& loops,
                                      const std::vector<LoopRV>& outer, const std::vector<LoopRV>& rows,
                                      const std::optional<LoopRV>& block_inner,
                                      const std::optional<LoopRV>& block_outer, const Target& target) {
  // `loops`: the block's loops before the pixel and block splits (the lanes and reduction
  // loops among them are still whole).
  if (!block_outer) return absl::FailedPreconditionError("chunked reduction needs a loop over channel blocks");
  auto chunks = sch->Split(loops[conv.reduce_loops.front()], {std::nullopt, tiles.kc});
  if (!chunks.ok()) return chunks.status();
  // With a group span, the group loop splits into spans (outside) and the span's groups.
  LoopRV groups = *block_outer;
  std::optional<LoopRV> span;
  if (tiles.group_span > 0) {
    auto spans = sch->Split(*block_outer, {std::nullopt, tiles.group_span});
    if (!spans.ok()) return spans.status();
    groups = (*spans)[0];
    span = (*spans)[1];
  }
  // The loops down to the channel-block groups (or spans) stay outside the chunks (and parallel).
  std::vector<LoopRV> parallel, order;
  size_t split = 0;
  while (split < outer.size()) {
    if (outer[split].id == block_outer->id) {
      parallel.push_back(groups);
      break;
    }
    parallel.push_back(outer[split]);
    ++split;
  }
  std::vector<LoopRV> inside(outer.begin() + static_cast<std::ptrdiff_t>(split) + 1, outer.end());
  // The image rows in parts (ChunkedRowParts): the parts outside the chunks too, and parallel.
  if (const int64_t parts = tiles.row_parts; parts > 1) {
    const LoopRV image_rows = loops[conv.image_row_loop];
    auto it = std::find_if(inside.begin(), inside.end(), [&](const LoopRV& l) { return l.id == image_rows.id; });
    if (it == inside.end()) return absl::InternalError("chunked reduction: the image rows are not inside the groups");
    auto split_rows = sch->Split(image_rows, {parts, std::nullopt});
    if (!split_rows.ok()) return split_rows.status();
    parallel.push_back((*split_rows)[0]);
    *it = (*split_rows)[1];
  }
  order = parallel;
  order.push_back((*chunks)[0]);
  order.insert(order.end(), inside.begin(), inside.end());
  if (span) order.push_back(*span);
  AppendTileLoops(&order, conv, loops, rows[1], block_inner, (*chunks)[1]);
  if (absl::Status s = sch->Reorder(order); !s.ok()) return s;
  if (absl::StatusOr<BlockRV> init = sch->DecomposeReduction(block, (*chunks)[0]); !init.ok()) return init.status();
  absl::StatusOr<LoopRV> par = FuseParallel(sch, parallel);
  if (!par.ok()) return par.status();
  PlaceEpilogueAfterChunks(sch, block, *par);
  // The span's groups read each pixel tile's chunk of data in turn: packed once for them where
  // its rows, read in place, would crowd L1's sets (after the loops are made parallel: each
  // iteration copies the chunks it reads into storage of its own, which the race check on the
  // whole buffer cannot see).
  if (!span || !DataRowsCrowdL1Sets(conv, tiles.mr, tiles.kc, target) ||
      !PackDataPerTile(sch, block, conv, tiles.mr, rows[0])) {
    if (absl::Status s = PrefetchNextTilesData(sch, block); !s.ok()) return s;
  }
  return sch->Tensorize(rows[1], "gemm_f32");
}

/*! \brief ScheduleDirectConv with the groups inside blocks of image rows (tiles.row_block):
 *  batch and row blocks (parallel), the block's data packed, then the groups of NB channel
 *  blocks, the block's rows and its pixel tiles; the epilogue per tile. Each group reads the
 *  packed block from L1 and writes its output planes (and reads a residual) along their rows:
 *  with the groups inside each pixel tile instead, a tile wrote a few pixels into every output
 *  plane, 32 planes 2 KiB multiples apart at ResNet-50's 64 -> 256 expansion at 56 x 56, and
 *  with the residual read and the result written the same way the streams crowded L1's sets. */
absl::Status ScheduleGroupsInRowBlocks(Schedule* sch, const BlockRV& block, const DirectConvBlock& conv,
                                       const DirectConvTiles& tiles, const std::vector<LoopRV>& loops,
                                       const std::vector<LoopRV>& rows, const LoopRV& block_outer,
                                       const LoopRV& block_inner) {
  auto image_rows = sch->Split(loops[conv.image_row_loop], {std::nullopt, tiles.row_block});
  if (!image_rows.ok()) return image_rows.status();
  // Outer: the pixel loops in their order, the image rows split around the groups.
  std::vector<LoopRV> outer, parallel;
  for (size_t l = 0; l < loops.size(); ++l) {
    const int li = static_cast<int>(l);
    if (li == conv.lanes_loop || li == conv.block_loop ||
        std::count(conv.reduce_loops.begin(), conv.reduce_loops.end(), li))
      continue;
    if (li == conv.image_row_loop) {
      outer.push_back((*image_rows)[0]);
      parallel = outer;
      outer.insert(outer.end(), {block_outer, (*image_rows)[1]});
    } else if (li == conv.row_loop) {
      outer.push_back(rows[0]);
    } else {
      outer.push_back(loops[l]);
    }
  }
  std::vector<LoopRV> order = outer;
  AppendTileLoops(&order, conv, loops, rows[1], block_inner);
  if (absl::Status s = sch->Reorder(order); !s.ok()) return s;
  if (PlaceEpilogueUnder(sch, block, outer.back(), outer.size(), tiles.mr * tiles.nb * conv.lanes,
                         conv.reduction <= kMaxReductionForEpilogueInRegisters))
    LayOutSumsPerTile(sch, block, conv, tiles.mr);
  PackDataPerTile(sch, block, conv, tiles.mr, parallel.back());
  if (absl::Status s = sch->Tensorize(rows[1], "gemm_f32"); !s.ok()) return s;
  return FuseParallel(sch, parallel).status();
}

}  // namespace

absl::Status ScheduleDirectConv(Schedule* sch, const BlockRV& block, const DirectConvBlock& conv,
                                const DirectConvTiles& tiles, const Target& target) {
  if (tiles.prefetch_weights != WeightPrefetch::kNone) {
    const char* annotation = tiles.prefetch_weights == WeightPrefetch::kNextChunk ? kPrefetchNextWeightsAnnotation
                                                                                  : kPrefetchWeightsAnnotation;
    if (absl::Status s = sch->Annotate(block, annotation, true); !s.ok()) return s;
  }
  absl::StatusOr<std::vector<LoopRV>> loops = sch->GetLoops(block);
  if (!loops.ok()) return loops.status();
  auto rows = sch->Split((*loops)[conv.row_loop], {std::nullopt, tiles.mr});
  if (!rows.ok()) return rows.status();
  std::optional<LoopRV> block_outer, block_inner;
  if (conv.block_loop >= 0) {
    auto blocks = sch->Split((*loops)[conv.block_loop], {std::nullopt, tiles.nb});
    if (!blocks.ok()) return blocks.status();
    block_outer = (*blocks)[0];
    block_inner = (*blocks)[1];
  }
  if (tiles.groups_inside && tiles.row_block > 0 && block_outer && conv.image_row_loop >= 0) {
    return ScheduleGroupsInRowBlocks(sch, block, conv, tiles, *loops, *rows, *block_outer, *block_inner);
  }
  // Outer: the spatial loops in their order (channel groups where the block loop was, or
  // innermost with the groups inside; pixel tiles where the row loop was); inner: the tile.
  std::vector<LoopRV> outer;
  for (size_t l = 0; l < loops->size(); ++l) {
    const int li = static_cast<int>(l);
    if (li == conv.lanes_loop || std::count(conv.reduce_loops.begin(), conv.reduce_loops.end(), li)) continue;
    if (li == conv.block_loop && tiles.groups_inside) continue;
    outer.push_back(li == conv.row_loop ? (*rows)[0] : li == conv.block_loop ? *block_outer : (*loops)[l]);
  }
  if (tiles.groups_inside && block_outer) outer.push_back(*block_outer);
  if (tiles.kc > 0)
    return ScheduleChunkedReduction(sch, block, conv, tiles, *loops, outer, *rows, block_inner, block_outer, target);
  std::vector<LoopRV> order = outer;
  AppendTileLoops(&order, conv, *loops, (*rows)[1], block_inner);
  if (absl::Status s = sch->Reorder(order); !s.ok()) return s;
  // The elementwise epilogue per tile, while it is in L1 (only where it narrows to the tile).
  if (PlaceEpilogueUnder(sch, block, outer.back(), outer.size(), tiles.mr * tiles.nb * conv.lanes,
                         conv.reduction <= kMaxReductionForEpilogueInRegisters))
    LayOutSumsPerTile(sch, block, conv, tiles.mr);
  bool data_in_place = !conv.vector_a || !ComputeDataPerTile(sch, block, outer.back(), outer.size(), conv);
  // With the groups inside, each pixel tile's data is packed once for all of them; the loop
  // over groups then stays serial inside the parallel pixel tiles, so only where there are
  // enough of those to share (a 7 x 7 map has 7 tiles: two threads would take 4 and 3).
  std::vector<LoopRV> parallel = outer;
  const int64_t pixel_tiles = conv.pixel_rows * ((conv.rows + tiles.mr - 1) / tiles.mr);
  if (tiles.groups_inside && block_outer && conv.blocks / tiles.nb >= 2 && pixel_tiles >= kMinParallelTiles) {
    if (PackDataPerTile(sch, block, conv, tiles.mr, (*rows)[0])) {
      parallel.pop_back();
      data_in_place = false;
    }
  }
  if (data_in_place) {
    if (absl::Status s = PrefetchNextTilesData(sch, block); !s.ok()) return s;
  }
  // The tile holds every reduction loop, so it writes whole sums: no init pass over C.
  if (absl::Status s = sch->Tensorize((*rows)[1], "gemm_f32"); !s.ok()) return s;
  return FuseParallel(sch, parallel).status();
}

std::string DescribeTiles(const DirectConvTiles& t) {
  std::string groups =
      t.groups_inside ? absl::StrCat(" groups=inside", t.row_block > 0 ? absl::StrCat(" row_block=", t.row_block) : "")
                      : "";
  return absl::StrCat("conv mr=", t.mr, " nb=", t.nb, t.kc > 0 ? absl::StrCat(" kc=", t.kc) : "", groups,
                      t.group_span > 0 ? absl::StrCat(" span=", t.group_span) : "",
                      t.row_parts > 1 ? absl::StrCat(" row_parts=", t.row_parts) : "",
                      t.prefetch_weights == WeightPrefetch::kAhead       ? " prefetch"
                      : t.prefetch_weights == WeightPrefetch::kNextChunk ? " prefetch=next"
                                                                         : "");
}

std::vector<double> TileFeatures(const DirectConvBlock& conv, const DirectConvTiles& t, const Target& target) {
  const int64_t block_vectors = VectorsPerBlock(conv, target);
  const double vectors = static_cast<double>(block_vectors);
  const double loads = static_cast<double>(LoadsPerStep(conv, t.mr, t.nb, block_vectors));
  return {
      1.0,
      std::log2(static_cast<double>(t.mr)),
      std::log2(static_cast<double>(t.nb)),
      ((t.mr + 1) * t.nb * vectors + 1) / target.vector_registers,   // register use
      loads / (t.mr * t.nb * vectors),                               // loads per FMA
      static_cast<double>(conv.rows / t.mr * (conv.blocks / t.nb)),  // tiles per output row
      t.kc > 0 ? 1.0 : 0.0,
      t.groups_inside ? 1.0 : 0.0,
      t.row_block > 0 ? 1.0 : 0.0,
      t.group_span > 0 ? 1.0 : 0.0,
      TileCost(conv, t, block_vectors, target),  // the default rule's estimate
      conv.vector_a || FitsL1(conv, t, target) ? 1.0 : 0.0,
  };
}

}  // namespace tir
}  // namespace mlc
