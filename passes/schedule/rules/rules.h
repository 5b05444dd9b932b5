/*! \file rules.h
 *  \brief Default schedules: rules that turn each loop program into a fast one without tuning,
 *         by the kind of its blocks, as TVM's MetaSchedule rules and IREE's CPU strategies do.
 *         The rules and their order: DefaultScheduleRules() (default_rules.cc), from which
 *         docs/schedule_rules.md is generated. Each rule applies to a copy of the schedule and
 *         keeps it only if every step succeeds, so a function the rules do not fit stays as it
 *         was. Everything applied is in the schedule's trace.
 */
#ifndef MLC_PASSES_SCHEDULE_RULES_RULES_H_
#define MLC_PASSES_SCHEDULE_RULES_RULES_H_

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "ir/target/target.h"
#include "passes/schedule/rules/knob.h"
#include "passes/schedule/schedule.h"

namespace mlc {
namespace tir {

/*! \brief A GEMM-shaped reduction block: which loops are which, and which reads are A and B. */
struct GemmBlock {
  std::string name;
  int64_t m = 0, n = 0, k = 0;
  std::vector<int> batch_loops;  // positions in GetLoops(block), outermost first
  int i_loop = -1, j_loop = -1, k_loop = -1;
  int a_read = -1, b_read = -1;  // positions in the block's reads
  bool b_transposed = false;     // B indexed [..., j, k]
  /*! \brief B has no batch dimensions (x[b, s, k] @ w[k, n]): the batch loops and i fuse into
   *  one row loop of m = batch x rows. */
  bool fold_batch_into_rows = false;
  int64_t rows_per_batch = 0;       // when folded: the extent of i (a tile may not straddle batches)
  int64_t batch_extent = 1;         // iterations of the batch loops (1 for a symbolic batch: tiles
                                    // are chosen for one image, the latency case)
  bool symbolic_batch = false;      // some batch loop's extent is a shape variable (never folded)
  bool symbolic_rows = false;       // m is a shape variable (m = -1): one-row tiles, no tail
  bool symbolic_cols_or_k = false;  // n or k is (-1): no register tile; ScheduleGemmLoops instead
};

/*! \brief The register tile and cache blocking of a GEMM schedule (what tuning varies). */
struct GemmTiles {
  bool operator==(const GemmTiles& o) const {
    return mr == o.mr && nr == o.nr && kc == o.kc && nc == o.nc && parallel_rows == o.parallel_rows &&
           per_batch_rows == o.per_batch_rows;
  }
  int64_t mr = 4, nr = 16, kc = 0;  // kc = 0: no k blocking
  /*! \brief Columns per block of packed B (a multiple of nr): each row tile of A, once in L1,
   *  passes over all nc / nr panels of the block, so A is read N / nc times, not N / nr. */
  int64_t nc = 0;  // 0: nr
  /*! \brief Parallel over the rows of A rather than the column blocks (too few blocks). */
  bool parallel_rows = false;
  /*! \brief B shared by every batch entry, but the rows tiled within each entry instead of
   *  folded across them (a guarded last tile per entry: 2 x 197 tokens); the batch loops run
   *  inside the column blocks, so each panel of B is packed once. */
  bool per_batch_rows = false;
};

/*! \brief The block as a GEMM, or nullopt when it is not one (or its loops are not a plain nest). */
std::optional<GemmBlock> MatchGemm(const Schedule& sch, const BlockRV& block);
/*! \brief The tiles the default rule picks for a GEMM on the target, or nullopt when no register
 *  tile divides the extents (the block then keeps its loops). */
std::optional<GemmTiles> DefaultGemmTiles(const GemmBlock& gemm, const Target& target);
/*! \brief Every tile choice the GEMM rule can apply to the block on the target: the search
 *  space of tuning (register tiles that fit the registers and divide the extents, k blocks
 *  within L1, column blocks within L2, parallel over column blocks or row tiles). */
std::vector<GemmTiles> GemmTileCandidates(const GemmBlock& gemm, const Target& target);
/*! \brief "mr=8 nr=32 kc=192 nc=32 rows=0": the GEMM knob's choice (knob.h). */
std::string DescribeTiles(const GemmTiles& tiles);
/*! \brief A GEMM tile choice's features for tuning's cost model: register-tile shape and use,
 *  loads per FMA, L1 and L2 footprints, C reloads, the parallel split. */
std::vector<double> TileFeatures(const GemmBlock& gemm, const GemmTiles& tiles, const Target& target);
/*! \brief Whether the row tiles of a GEMM that share a chunk of B (a k block of a panel) each
 *  prefetch a slice of their panel's next chunk into L2 while they run (kGemmTilePrefetchNextB,
 *  as a convolution's WeightPrefetch::kNextChunk): where B is more than L2, so each chunk's
 *  first read comes from beyond it, rows known and at least two row tiles. Without it the first
 *  row tile of a chunk reads it at compute pace, faster than memory gives it: ViT-B/16's 197 x
 *  768 x 3072 layer (25 row tiles over chunks of 24 KB) ran at 69% of the peak, 73% with the
 *  prefetch (Intel Xeon, one thread); with column blocks (the AVX2 build's, Zen 3's 512 KB L2)
 *  the first row tile reads the block's panels, and ViT ran 5% and BERT 11% faster with each
 *  tile prefetching its panel's next block. An encoder's 2 MB products (as large as that
 *  Xeon's L2; from L3 between runs) gained nothing. Not for one row tile: a decode step's
 *  1 x 8192 x 8192 product streams B in order and ran 4% slower with it. */
bool PrefetchesNextWeights(const GemmBlock& gemm, const GemmTiles& tiles, const Target& target);
/*! \brief Applies the GEMM schedule with the given tiles (see the file comment); B a weight
 *  (not made in the function) is prefetched where PrefetchesNextWeights says. */
absl::Status ScheduleGemm(Schedule* sch, const BlockRV& block, const GemmBlock& gemm, const GemmTiles& tiles,
                          const Target& target);
/*! \brief A GEMM whose columns or reduction are symbolic (attention's seq x seq scores): the
 *  loops reordered to batch..., i, k, j so the innermost runs along contiguous rows of B and C
 *  (vectorized when j is constant), the init hoisted out of k, the outermost loop parallel. */
absl::Status ScheduleGemmLoops(Schedule* sch, const BlockRV& block, const GemmBlock& gemm);

/*! \brief A direct convolution in channel-blocked layouts (conv.cc): a reduction block
 *  C[..., lanes] += A[...] * B[..., lanes] where the lanes (C's last index) and at most one
 *  loop over channel blocks move C and B, pixel loops move C and A, and every reduction loop
 *  moves A and B at affine offsets. Positions are in GetLoops(block). */
struct DirectConvBlock {
  std::string name;
  int lanes_loop = -1, row_loop = -1, block_loop = -1;
  std::vector<int> row_candidates;  // every pixel loop (n, oh, ow); the last is the tile's rows
  std::vector<int> channel_loops;   // depthwise: the channel blocks (outside the tile)
  std::vector<int> reduce_loops;
  bool vector_a = false;                                   // depthwise: the data varies along the lanes too
  int64_t lanes = 0, rows = 0, blocks = 1, reduction = 1;  // extents
  int64_t outer_reduction = 1;  // the outermost reduction loop's extent (input-channel blocks)
  int64_t pixel_rows = 1;       // the other pixel loops' iterations (n x oh)
  int image_row_loop = -1;      // the pixel loop just outside the rows (oh), -1 when there is none
  int64_t image_rows = 0;       // its extent
  int64_t window = 1;           // the reduction loops' iterations but the outermost and innermost (kh x kw)
  int64_t data_bytes = 0;       // the data (A) buffer's size
  /*! \brief Where the data is read plainly (a pointwise convolution at stride 1): its buffer's
   *  name and its dimensions indexed by exactly the row loop's and the outer reduction loop's
   *  variables (the last is the inner reduction's); empty and -1 otherwise. */
  std::string data_name;
  int data_row_dim = -1, data_channel_dim = -1;
  int64_t data_channel_stride_bytes = 0;  // from one input-channel block of it to the next; 0: unknown
};

/*! \brief How a convolution's tile has its weights fetched before it reads them, where few
 *  pixel tiles share each weight (PrefetchesWeights in conv.cc), so most of its weight reads
 *  would be first reads, from beyond L2. */
enum class WeightPrefetch {
  kNone,
  kAhead,      // each step prefetches B a memory latency ahead along its stream (kGemmTilePrefetchB)
  kNextChunk,  // in chunks: the tiles of one chunk each prefetch a slice of the next (kGemmTilePrefetchNextB)
};

/*! \brief The register tile of a direct convolution: MR pixels x NB channel blocks. */
struct DirectConvTiles {
  bool operator==(const DirectConvTiles& o) const {
    return mr == o.mr && nb == o.nb && kc == o.kc && groups_inside == o.groups_inside && group_span == o.group_span &&
           row_block == o.row_block && row_parts == o.row_parts && prefetch_weights == o.prefetch_weights;
  }
  int64_t mr = 1, nb = 1;
  /*! \brief Steps of the outermost reduction loop (input-channel blocks) per chunk, 0: none.
   *  With chunks, the chunk loop runs outside the pixel tiles, so the weights of one chunk
   *  stay in L2 while every pixel tile reads them, and the tiles add to C (an init pass first). */
  int64_t kc = 0;
  /*! \brief The loop over groups of NB channel blocks inside the pixel tiles rather than
   *  outside them: each tile's data is read once for every group while it is in L1, and the
   *  weights stay in L2 (ConvGroupsInside). */
  bool groups_inside = false;
  /*! \brief With groups_inside: the image rows (oh) in blocks of this many, each block's data
   *  packed once, the groups inside the block and outside its pixel tiles, so each group writes
   *  its output planes along their rows; 0: the groups inside each pixel tile. */
  int64_t row_block = 0;
  /*! \brief With chunks (kc > 0): the groups of NB channel blocks in spans of this many, the
   *  spans outside the chunks (parallel), the groups of a span inside the pixel tiles; 0: every
   *  group outside. A pixel tile's data is then read from L1 by every group of the span, and
   *  the span's weights for one chunk stay in L2, instead of the data streaming from memory
   *  once per group. */
  int64_t group_span = 0;
  /*! \brief With chunks (kc > 0): the image rows (oh) in this many parts outside the chunks,
   *  each part a parallel iteration (ChunkedRowParts); 0 or 1: the rows whole. */
  int64_t row_parts = 0;
  WeightPrefetch prefetch_weights = WeightPrefetch::kNone;
};

std::optional<DirectConvBlock> MatchDirectConv(const Schedule& sch, const BlockRV& block);
/*! \brief The tile with the fewest estimated cycles per multiply-add over an output row (its
 *  guarded last tile included) that fits the registers. */
std::optional<DirectConvTiles> DefaultDirectConvTiles(const DirectConvBlock& conv, const Target& target);
/*! \brief DirectConvTiles::kc for a tile of NB blocks: where its weights over the whole
 *  reduction exceed half of L2, the largest chunk of the outermost reduction loop whose weights
 *  fit half of L1 (every pixel tile reads the chunk in turn); 0 where they fit in L2. */
int64_t ReductionChunk(const DirectConvBlock& conv, int64_t nb, const Target& target);
/*! \brief DirectConvTiles::groups_inside for a tile of NB blocks: where all the weights fit in
 *  half of L2 and the data does not, and there is more than one group. With the groups outside,
 *  every group re-read the whole data from beyond L2 along one strided stream per input-channel
 *  block (ResNet-50's 256 -> 64 and 256 -> 128 1x1 convolutions at 56 x 56 on AVX2: 32 streams,
 *  4 and 8 passes over 3.2 MB, at 15-18% of the peak). */
bool ConvGroupsInside(const DirectConvBlock& conv, int64_t nb, const Target& target);
/*! \brief DirectConvTiles::row_block for a pointwise tile with the groups inside (see conv.cc):
 *  the most image rows whose data fits in L1 while the blocks leave enough parallel
 *  iterations; 0 where the data cannot be packed or there are too few image rows. */
int64_t GroupsRowBlock(const DirectConvBlock& conv, const Target& target);
/*! \brief With chunks: the parts the image rows (oh) are split into outside the chunks, where
 *  the images and groups of channel blocks alone are too few for a few threads to share, or
 *  where one iteration's sums exceed L2 (each chunk would reread them from memory); each part
 *  rereads the weights. 1: no split. */
int64_t ChunkedRowParts(const DirectConvBlock& conv, const DirectConvTiles& t, const Target& target);

/*! \brief DirectConvTiles::group_span for chunked tiles `t`: where the data is larger than half
 *  of L2, the most groups (at most half of them, dividing them) whose weights for one chunk fit
 *  in half of L2; 0 where the data stays in L2 anyway or no span of two fits. */
int64_t GroupSpan(const DirectConvBlock& conv, const DirectConvTiles& t, const Target& target);
/*! \brief Every tile that fits the target's registers (tuning's space): NB divides the channel
 *  blocks; MR divides the output width, or, for regular convolutions, leaves a guarded tail. */
std::vector<DirectConvTiles> DirectConvTileCandidates(const DirectConvBlock& conv, const Target& target);
/*! \brief Applies the direct-convolution schedule (see conv.cc). */
absl::Status ScheduleDirectConv(Schedule* sch, const BlockRV& block, const DirectConvBlock& conv,
                                const DirectConvTiles& tiles, const Target& target);
/*! \brief "conv mr=7 nb=4 [kc=8] [groups=inside [row_block=2]] [span=4]": the direct
 *  convolution knob's choice. */
std::string DescribeTiles(const DirectConvTiles& tiles);
/*! \brief A direct-convolution tile choice's features for tuning's cost model: register-tile
 *  shape and use, loads per FMA, tiles per row, which cache blockings it takes, the default
 *  rule's own estimate of its cycles per multiply-add, and whether its working set fits L1. */
std::vector<double> TileFeatures(const DirectConvBlock& conv, const DirectConvTiles& tiles, const Target& target);

/*! \brief A window reduction over channel-blocked data (window.cc: NCHW16c pooling), where the
 *  rule has a choice: how many output pixels a register tile takes. */
struct BlockedWindowBlock {
  std::string name;
  int64_t row = 0;    // output pixels along the row
  int64_t lanes = 0;  // the channel block (vectorized)
  int64_t taps = 0;   // the window's taps
};
/*! \brief The register tile of a blocked window: output pixels per tile, each a row of vectors of
 *  accumulators across the unrolled taps. */
struct WindowTiles {
  bool operator==(const WindowTiles& o) const { return pixels == o.pixels; }
  int64_t pixels = 1;
};
/*! \brief The block as a blocked window, or nullopt when the window rule would not take it or
 *  takes it along the output row (no choice there). */
std::optional<BlockedWindowBlock> MatchBlockedWindow(const Schedule& sch, const BlockRV& block);
/*! \brief Every pixel count that divides the row with at most half of the vector registers as
 *  accumulators: the search space of tuning. */
std::vector<WindowTiles> WindowTileCandidates(const BlockedWindowBlock& window, const Target& target);
/*! \brief The rule's own pick: the most pixels that divide the row within 8 accumulator vectors. */
WindowTiles DefaultWindowTiles(const BlockedWindowBlock& window, const Target& target);
/*! \brief "window pixels=7": the window knob's choice. */
std::string DescribeTiles(const WindowTiles& tiles);
/*! \brief A window tile choice's features for tuning's cost model: pixels, accumulator registers,
 *  tiles per row, taps. */
std::vector<double> TileFeatures(const BlockedWindowBlock& window, const WindowTiles& tiles, const Target& target);

/*! \brief The window rule (window.cc): a reduction over a small window (depthwise convolution,
 *  pooling) with the window loops unrolled under the vectorized output row; over channel-blocked
 *  data, `tiles` pixels per register tile (DefaultWindowTiles without it). */
absl::Status ScheduleWindowReduction(Schedule* sch, const BlockRV& block, const Target& target,
                                     const std::optional<WindowTiles>& tiles = std::nullopt);

/*! \brief The row-reduction rule (row_reduction.cc): a max or min along the innermost,
 *  contiguous axis reduced a vector at a time (rfactor), the partial results in the same
 *  parallel iteration. */
absl::Status ScheduleRowReduction(Schedule* sch, const BlockRV& block, const Target& target);

/*! \brief The blocks decompose_padding made of a function's paddings. */
struct DecomposedPaddings {
  std::vector<std::string> interiors;  // each becomes its producer's epilogue
  std::vector<std::string> borders;    // the fills of the slabs around them
};
/*! \brief Splits every padding of a result computed in `func` (a fused convolution's nn.pad)
 *  into its border fill and its interior (decompose_padding), so the interior becomes the
 *  producer's epilogue: the producer writes its result with the border in place. */
DecomposedPaddings DecomposeEpiloguePadding(Schedule* sch, const std::string& func);
/*! \brief Splits every padding still at the root of `func` with serial loops (a padded copy of
 *  a function input before a convolution's tiles), except the blocks in `skip`, into a copy to
 *  its interior and its border fills: no bounds check and no clamped load per element. */
DecomposedPaddings DecomposeRootPaddings(Schedule* sch, const std::string& func, const std::set<std::string>& skip);
/*! \brief Inlines every elementwise block of `func` that writes an intermediate buffer. */
void InlineElementwise(Schedule* sch, const std::string& func);
/*! \brief Vectorizes the loop nest of a block left at the root of its function, and
 *  parallelizes it when it has at least `min_parallel_work` iterations. */
absl::Status ScheduleLoopNest(Schedule* sch, const BlockRV& block, const Target& target, int64_t min_parallel_work);

/*! \brief Whether someone already scheduled the function (a loop not serial): the rules, the
 *  tuner and the tuning records leave it alone. */
bool IsScheduled(const PrimFunc& func);

/*! \brief The function as the rules (and tuning) see it: indices composed by fusion (a
 *  reshape after a matmul) simplified with the iteration domains known, so the rules see
 *  `T[v0 + v1, v2]` rather than its long form. */
PrimFunc SimplifiedForRules(const PrimFunc& func);

/*! \brief What the rules share while they schedule one function. */
struct RuleContext {
  Schedule* sch;
  const std::string& func;
  const Target& target;
  const Decider& decide;
  std::vector<std::string>* notes;   // why a rule that matched a block did not apply; may be null
  DecomposedPaddings padded;         // the epilogue paddings' interiors and borders
  std::vector<std::string> borders;  // every border fill (parallel from fewer iterations)
  std::set<std::string> handled;     // blocks a rule scheduled
  void Note(const std::string& block, const std::string& text) const;
};

/*! \brief When a rule runs: once on the function, or on each block of a kind. */
enum class RuleStage {
  kFunction,        // a step on the whole function
  kReductionBlock,  // each reduction block: the first rule whose pattern matches takes it
  kRootNest,        // each nest still at the root, untouched: the first rule that applies takes it
};

enum class RuleOutcome { kNotMatched, kFailed, kScheduled };

/*! \brief One rule of the default schedule. */
struct DefaultScheduleRule {
  const char* name;
  RuleStage stage;
  const char* file;                                                     // under passes/schedule/rules/
  const char* takes;                                                    // which blocks (Markdown)
  const char* makes;                                                    // what it makes of them (Markdown)
  void (*on_function)(RuleContext& ctx);                                // kFunction
  RuleOutcome (*on_block)(RuleContext& ctx, const std::string& block);  // the other stages
};

/*! \brief The rules in the order they run (default_rules.cc): the one list of them. */
const std::vector<DefaultScheduleRule>& DefaultScheduleRules();
/*! \brief The rules as a Markdown table (docs/schedule_rules.md is generated from it). */
std::string DescribeDefaultScheduleRules();

/*! \brief Every rule, on every block of `func`. Returns how many blocks a rule scheduled; when
 *  `notes` is given, it receives why a rule that matched a block could not be applied. Where a
 *  rule has alternatives (the GEMM's, the direct convolution's and a blocked window's tiles) it asks `decide`
 *  (knob.h; empty: the rule's own pick), and the answer goes into the trace. */
int ApplyDefaultSchedule(Schedule* sch, const std::string& func, const Target& target,
                         std::vector<std::string>* notes = nullptr, const Decider& decide = Decider());

}  // namespace tir
}  // namespace mlc

#endif  // MLC_PASSES_SCHEDULE_RULES_RULES_H_
