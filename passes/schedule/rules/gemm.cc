/*! \file gemm.cc
 *  \brief The GEMM rule: a register-tile micro-kernel over packed panels of B.
 */
#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
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

/*! \brief The iteration variables of a load or store's indices, when each index is one. */
std::optional<std::vector<const Object*>> PlainIndices(const std::vector<PrimExpr>& indices) {
  std::vector<const Object*> out;
  for (const PrimExpr& e : indices) {
    const auto* v = e.as<TirVarNode>();
    if (v == nullptr) return std::nullopt;
    out.push_back(v);
  }
  return out;
}

bool Has(const std::vector<const Object*>& vars, const Object* v) {
  return std::find(vars.begin(), vars.end(), v) != vars.end();
}

int ReadIndex(const BlockNode* block, const Buffer& buffer) {
  for (size_t i = 0; i < block->reads.size(); ++i) {
    if (block->reads[i].buffer.same_as(buffer)) return static_cast<int>(i);
  }
  return -1;
}

/*! \brief Whether some binding of the block uses the variable of the loop at `depth` above it. */
bool UsesLoopAt(const Schedule& sch, const BlockRV& block, size_t depth) {
  std::optional<BlockView> v = View(sch, block);
  if (!v || depth >= v->loops.size()) return false;
  for (const PrimExpr& value : v->realize->iter_values) {
    if (UsesVar(value, v->loops[depth]->loop_var)) return true;
  }
  return false;
}

}  // namespace

std::optional<GemmBlock> MatchGemm(const Schedule& sch, const BlockRV& block_rv) {
  absl::StatusOr<std::string> name = sch.BlockName(block_rv), func = sch.FuncName(block_rv);
  if (!name.ok() || !func.ok()) return std::nullopt;
  PrimFunc prim = sch.mod().LookupPrimFunc(*func);
  std::optional<StmtPath> path = FindBlock(prim->body, *name);
  if (!prim.defined() || !path) return std::nullopt;
  const auto* realize = path->back().as<BlockRealizeNode>();
  const BlockNode* block = realize->block.get();
  if (!IsReductionBlock(block)) return std::nullopt;
  // C[s...] = C[s...] + X[...] * Y[...], float32, every index an iteration variable.
  const auto* store = block->body.as<BufferStoreNode>();
  if (store == nullptr || store->buffer->dtype != DataType::Float32()) return std::nullopt;
  const auto* add = store->value.as<AddNode>();
  const auto* acc = add ? add->a.as<BufferLoadNode>() : nullptr;
  const auto* mul = add ? add->b.as<MulNode>() : nullptr;
  const auto* x = mul ? mul->a.as<BufferLoadNode>() : nullptr;
  const auto* y = mul ? mul->b.as<BufferLoadNode>() : nullptr;
  if (acc == nullptr || x == nullptr || y == nullptr || !acc->buffer.same_as(store->buffer)) return std::nullopt;
  if (x->buffer->dtype != DataType::Float32() || y->buffer->dtype != DataType::Float32()) return std::nullopt;
  auto c_idx = PlainIndices(store->indices), acc_idx = PlainIndices(acc->indices);
  auto x_idx = PlainIndices(x->indices), y_idx = PlainIndices(y->indices);
  if (!c_idx || !acc_idx || !x_idx || !y_idx || *c_idx != *acc_idx || c_idx->size() < 2) return std::nullopt;
  // One reduction variable k; the loops are a plain nest binding each variable to one loop.
  const Object* k = nullptr;
  for (const IterVar& iv : block->iter_vars) {
    if (iv.kind != IterKind::kReduce) continue;
    if (k != nullptr) return std::nullopt;
    k = iv.var.get();
  }
  std::vector<const ForNode*> loops = LoopsAbove(*path);
  if (loops.size() != block->iter_vars.size()) return std::nullopt;
  std::map<const Object*, int> loop_of;        // iteration variable -> loop position
  std::map<const Object*, int64_t> extent_of;  // -1: symbolic (allowed for batch dimensions only)
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    const auto* lv = realize->iter_values[i].as<TirVarNode>();
    if (lv == nullptr) return std::nullopt;
    for (size_t l = 0; l < loops.size(); ++l) {
      if (loops[l]->loop_var.get() == lv) loop_of[block->iter_vars[i].var.get()] = static_cast<int>(l);
    }
    const int64_t* ext = AsConstInt(block->iter_vars[i].dom.extent);
    const int64_t* lo = AsConstInt(block->iter_vars[i].dom.min);
    if (lo == nullptr || *lo != 0) return std::nullopt;
    extent_of[block->iter_vars[i].var.get()] = ext != nullptr ? *ext : -1;
  }
  if (loop_of.size() != block->iter_vars.size()) return std::nullopt;
  // C's last two indices are i and j; A holds i and k, B holds j and k.
  const Object* i = (*c_idx)[c_idx->size() - 2];
  const Object* j = c_idx->back();
  if (Has(*x_idx, j)) {
    std::swap(x, y);
    std::swap(x_idx, y_idx);
  }
  if (!Has(*x_idx, i) || Has(*x_idx, j) || x_idx->back() != k || !Has(*y_idx, j) || Has(*y_idx, i) ||
      y_idx->size() < 2) {
    return std::nullopt;
  }
  GemmBlock g;
  g.name = *name;
  g.b_transposed = y_idx->back() == k;
  if (!g.b_transposed && (y_idx->back() != j || (*y_idx)[y_idx->size() - 2] != k)) return std::nullopt;
  if (g.b_transposed && (*y_idx)[y_idx->size() - 2] != j) return std::nullopt;
  g.m = extent_of[i];
  g.n = extent_of[j];
  g.k = extent_of[k];
  g.symbolic_cols_or_k = g.n < 0 || g.k < 0;
  g.symbolic_rows = g.m < 0;
  g.i_loop = loop_of[i];
  g.j_loop = loop_of[j];
  g.k_loop = loop_of[k];
  for (size_t d = 0; d + 2 < c_idx->size(); ++d) {
    g.batch_loops.push_back(loop_of[(*c_idx)[d]]);
    int64_t e = extent_of[(*c_idx)[d]];
    if (e < 0)
      g.symbolic_batch = true;
    else
      g.batch_extent *= e;
  }
  g.fold_batch_into_rows = !g.batch_loops.empty();
  for (size_t d = 0; d + 2 < c_idx->size(); ++d) g.fold_batch_into_rows &= !Has(*y_idx, (*c_idx)[d]);
  if (g.fold_batch_into_rows && (g.symbolic_batch || g.symbolic_rows)) {
    // Folded symbolic rows (x[seq, batch, k] @ w[k, n]): one row loop of unknown length; a tile
    // may straddle batch entries, which tensorize accepts only where A and C stay affine.
    g.symbolic_rows = true;
    g.rows_per_batch = -1;
    g.m = -1;
  } else if (g.fold_batch_into_rows) {
    g.rows_per_batch = g.m;
    for (size_t d = 0; d + 2 < c_idx->size(); ++d) g.m *= extent_of[(*c_idx)[d]];
  }
  // The loops must run batch..., i, j, k in that order (as the operator library writes them).
  std::vector<int> order = g.batch_loops;
  order.insert(order.end(), {g.i_loop, g.j_loop, g.k_loop});
  for (size_t p = 0; p < order.size(); ++p) {
    if (order[p] != static_cast<int>(p)) return std::nullopt;
  }
  g.a_read = ReadIndex(block, x->buffer);
  g.b_read = ReadIndex(block, y->buffer);
  if (g.a_read < 0 || g.b_read < 0 || g.a_read == g.b_read) return std::nullopt;
  return g;
}

namespace {

// The most rows of a register tile over a symbolic row count (its tail runs as smaller tiles).
// Taller tiles measured no faster on the 250M decoder's projections (10 and 12 rows of two
// AVX-512 vectors level with 8; 14, which leaves one register free, 30% slower).
constexpr int64_t kMaxSymbolicTileRows = 8;

// The fewest floats a packing of B (per k block) copies for it to run parallel: a parallel
// launch costs microseconds across cores, and EfficientNet-B0's squeeze-excitation products,
// packing 5-8K floats, ran 1-2 us slower per call with the packing shared; speech_conv1d's
// 39-43K-float blocks ran faster.
constexpr int64_t kMinParallelPackFloats = 16384;

// A count of parallel column blocks that 1, 2 and 4 threads share evenly.
constexpr int64_t kEvenBlocks = 4;

/*! \brief The k block: 0 (none) when a panel of B (k x NR floats) fits in half of L1, or when
 *  the tile's whole k loop (that panel, A's MR rows and the MR x NR sums) fits in 7/8 of it;
 *  else the largest divisor of k from `smallest` up whose panel fits in half of L1 (64 by
 *  default; a few-row tile over B made panel by panel goes down to 16, its sums being a few
 *  vectors to reload), or 0 when none does. With a block, every tile adds to C once per block:
 *  the encoder's 128 x 256 @ 256 x 2048 layer (C's rows 8 KB apart, which crowd a few cache
 *  sets) ran 0.90 ms in blocks of 128 and 0.72 ms without, on a Zen 5's 48 KB L1. */
int64_t ReductionBlock(const GemmBlock& gemm, int64_t mr, int64_t nr, const Target& target, int64_t smallest = 64) {
  if ((gemm.k * (nr + mr) + mr * nr) * 4 <= target.l1d_bytes / 8 * 7) return 0;
  int64_t kc = target.l1d_bytes / 2 / (nr * 4);
  if (gemm.k <= kc) return 0;
  for (int64_t c = kc; c >= smallest; --c) {
    if (gemm.k % c == 0) return c;
  }
  return 0;
}

/*! \brief Rows known only when the kernel runs, or that no tall enough tile divides (a ViT's
 *  197 tokens): up to kMaxSymbolicTileRows rows of accumulators, as many as the vector
 *  registers hold next to a row of B and a broadcast of A (8 x 2 vectors with 32 registers,
 *  6 x 2 with 16), the last tile of rows guarded (T.gemm_tile_partial runs it as register tiles
 *  of 4, 2 and 1 rows), the column blocks parallel. */
std::optional<GemmTiles> GuardedRowTiles(const GemmBlock& gemm, const Target& target) {
  for (int64_t vectors : {2, 1}) {
    int64_t nr = vectors * target.float_lanes();
    if (gemm.n % nr != 0) continue;
    int64_t mr = gemm.m > 0 ? std::min(kMaxSymbolicTileRows, gemm.m) : kMaxSymbolicTileRows;
    while (mr > 1 && mr * vectors + vectors + 1 > target.vector_registers) --mr;
    GemmTiles t;
    t.mr = mr;
    t.nr = nr;
    t.kc = ReductionBlock(gemm, mr, nr, target);
    t.nc = nr;
    t.parallel_rows = false;
    return t;
  }
  return std::nullopt;
}

/*! \brief A tile of all m (< 4) rows by the widest run of up to 4 vectors of columns, in
 *  half vectors, that divides n (a classifier's 1000 outputs: 40, two vectors and a half); the
 *  column blocks parallel. Each vector of the run is its own accumulator chain: one chain
 *  would wait out the FMA latency at every k. */
std::optional<GemmTiles> FewRowTiles(const GemmBlock& gemm, const Target& target) {
  const int64_t lanes = target.float_lanes();
  for (int64_t nr = 4 * lanes; nr >= lanes / 2; nr -= lanes / 2) {
    int64_t vectors = (nr + lanes - 1) / lanes;
    if (nr < 4 || gemm.n % nr != 0 || gemm.m * vectors + vectors + 1 > target.vector_registers) continue;
    GemmTiles t;
    t.mr = gemm.m;
    t.nr = nr;
    t.kc = 0;
    t.nc = nr;
    t.parallel_rows = false;
    return t;
  }
  return std::nullopt;
}

/*! \brief The cache blocking of an MR x NR tile over the whole (unsymbolic) GEMM. */
void BlockForCaches(const GemmBlock& gemm, const Target& target, GemmTiles* t) {
  t->kc = ReductionBlock(gemm, t->mr, t->nr, target);
  // When A does not stay in L2 across the panels, blocks of B (k block x nc, at most half of
  // L2) let each row tile of A meet several panels while it is in L1.
  // The blocks are the parallel loop: where their count is a multiple of 4 they split evenly
  // over 1, 2 or 4 threads, so the widest block with such a count is taken, else the widest.
  // (ViT-B/16's 3072 -> 768 projection took 3 blocks of 256 columns; two threads shared them
  // 2 : 1 and ran it only 1.45x faster than one.)
  int64_t k_block = t->kc > 0 ? t->kc : gemm.k;
  t->nc = t->nr;
  if (gemm.m * gemm.k * 4 > target.l2_bytes / 2) {
    int64_t widest = t->nr, balanced = 0;
    for (int64_t c = t->nr; c <= gemm.n; c += t->nr) {
      if (gemm.n % c != 0 || k_block * c * 4 > target.l2_bytes / 2) continue;
      widest = c;
      if ((gemm.n / c) % kEvenBlocks == 0) balanced = c;
    }
    t->nc = balanced > 0 ? balanced : widest;
  }
  // Parallel chunks: the column blocks (and batches), or the row tiles when there is one block.
  int64_t batches = gemm.fold_batch_into_rows ? 1 : gemm.batch_extent;
  t->parallel_rows = batches * (gemm.n / t->nc) < 2 && gemm.m / t->mr >= 4;
}

/*! \brief The tallest register tile whose rows divide m (two vectors of columns first), with its
 *  cache blocking, or nullopt when none does. */
std::optional<GemmTiles> DividingTiles(const GemmBlock& gemm, const Target& target) {
  for (int64_t vectors : {2, 1}) {
    int64_t nr = vectors * target.float_lanes();
    if (gemm.n % nr != 0) continue;
    // Accumulators MR x vectors, plus the vectors of B's row and one broadcast of A.
    for (int64_t mr = 8; mr >= 2; --mr) {
      if (mr * vectors + vectors + 1 > target.vector_registers || gemm.m % mr != 0) continue;
      // Folded rows: a tile must lie within one batch entry, or span whole ones.
      if (gemm.fold_batch_into_rows && gemm.rows_per_batch > 1 && gemm.rows_per_batch % mr != 0) continue;
      GemmTiles t;
      t.mr = mr;
      t.nr = nr;
      BlockForCaches(gemm, target, &t);
      return t;
    }
  }
  return std::nullopt;
}

/*! \brief The cycles per multiply-add of a tile choice over `rows` rows (tile_cost.h): each step
 *  of an MR x vectors tile broadcasts MR elements of A and loads the vectors of B's row; a tile
 *  of few accumulators (the guarded last rows) is emitted with copies of them. */
double GemmRowCost(const GemmTiles& t, int64_t rows, const Target& target) {
  const int64_t vectors = t.nr / target.float_lanes();
  return GuardedRowCost(
      rows, t.mr, [&](int64_t h) { return TileCyclesPerFmaWithCopies(h * vectors, h + vectors, h + vectors, target); });
}

}  // namespace

std::optional<GemmTiles> DefaultGemmTiles(const GemmBlock& gemm, const Target& target) {
  if (gemm.symbolic_cols_or_k) return std::nullopt;
  if (gemm.symbolic_rows) return GuardedRowTiles(gemm, target);
  // Fewer than 4 rows: a vector-matrix product. A tile of the few rows by several vectors of
  // columns reads each element of B once, contiguously, with no horizontal sums and the sums in
  // registers: B a weight is packed into k-major panels at compile time (pack-constants), B an
  // activation panel by panel into L1 as the tile needs it. (Left as written, x[k] * B[k, j]
  // read and wrote the whole row of C at every k: a recurrent cell's 1 x 256 @ 256 x 1024 took
  // 18 us.) Batched products keep their loops where a row of C stays in L1 (attention's
  // [heads, 1, d] @ [heads, d, seq] per token); where it does not, the loops would stream C
  // through L2 at every k (a style-transfer net's last convolution, 32 -> 3 channels 9 x 9 at
  // 256 x 256 as a GEMM over its windows: m 3, k 2592, n 65536, at 4% of the peak, every window
  // stored first), so those take the tile too, with k in blocks whose panel fits L1 (B is made
  // panel by panel there: the windows).
  if (gemm.m < 4) {
    // A B several times L2 (a weight) streams from memory, and the stream, not the FMA latency,
    // bounds the product: the panels of the many-rows kernel do as well, and a weight that both
    // kinds of kernel read (a decoder's main and its one-row @prefill) is then packed once.
    if (gemm.k * gemm.n * 4 > 4 * target.l2_bytes && (gemm.batch_loops.empty() || gemm.fold_batch_into_rows)) {
      if (std::optional<GemmTiles> t = GuardedRowTiles(gemm, target)) {
        t->mr = gemm.m;
        return t;
      }
    }
    if (gemm.fold_batch_into_rows) return std::nullopt;
    if (gemm.batch_loops.empty()) return FewRowTiles(gemm, target);
    if (gemm.m * gemm.n * 4 <= target.l1d_bytes / 2) return std::nullopt;
    std::optional<GemmTiles> t = FewRowTiles(gemm, target);
    if (t) t->kc = ReductionBlock(gemm, t->mr, t->nr, target, /*smallest=*/16);
    return t;
  }
  std::optional<GemmTiles> dividing = DividingTiles(gemm, target);
  if (gemm.symbolic_batch) return dividing;
  // A tile whose rows do not divide m, with a guarded last tile, where the cost model says it is
  // faster: the dividing tile may hold too few accumulators to hide the FMA latency (2 x 2
  // vectors for 2 x 101 rows; 4 x 2 for 128 rows on AVX2's 16 registers, where 6 x 2 fits).
  // The guarded tile folds the batch into its rows only where there is one batch entry (a tile
  // may not straddle two); otherwise it tiles each. One row per entry ([seq, 1, d] before
  // attention's in-projection) folds: a tile then covers whole entries.
  const bool per_batch = gemm.fold_batch_into_rows && gemm.batch_extent > 1 && gemm.rows_per_batch > 1;
  GemmBlock per_entry = gemm;
  if (per_batch) per_entry.m = gemm.rows_per_batch;
  std::optional<GemmTiles> guarded = GuardedRowTiles(per_entry, target);
  if (!guarded) return dividing;
  if (!per_batch) BlockForCaches(gemm, target, &*guarded);
  guarded->per_batch_rows = per_batch;
  if (!dividing) return guarded;
  const double cost_guarded = GemmRowCost(*guarded, per_entry.m, target),
               cost_dividing = GemmRowCost(*dividing, gemm.m, target);
  return cost_guarded < cost_dividing * 0.98 ? guarded : dividing;
}

std::vector<GemmTiles> GemmTileCandidates(const GemmBlock& gemm, const Target& target) {
  std::vector<GemmTiles> out;
  if (gemm.symbolic_cols_or_k) return out;
  if (gemm.symbolic_rows) {
    if (std::optional<GemmTiles> t = GuardedRowTiles(gemm, target)) out.push_back(*t);
    return out;
  }
  if (gemm.m < 4) return out;
  int64_t batches = gemm.fold_batch_into_rows ? 1 : gemm.batch_extent;
  for (int64_t vectors = 1; vectors <= 4; ++vectors) {
    int64_t nr = vectors * target.float_lanes();
    if (gemm.n % nr != 0) continue;
    for (int64_t mr = 2; mr <= 16; ++mr) {
      if (mr * vectors + vectors + 1 > target.vector_registers || gemm.m % mr != 0) continue;
      if (gemm.fold_batch_into_rows && gemm.rows_per_batch > 1 && gemm.rows_per_batch % mr != 0) continue;
      // k blocks: none, or divisors of k from 32 up to what keeps a panel within L1.
      std::vector<int64_t> kcs = {0};
      for (int64_t c = 32; c < gemm.k && c * nr * 4 <= target.l1d_bytes; ++c) {
        if (gemm.k % c == 0) kcs.push_back(c);
      }
      // Column blocks: 1, 2, 4, ... panels, dividing n, within L2.
      std::vector<int64_t> ncs;
      for (int64_t c = nr; c <= gemm.n; c *= 2) {
        if (gemm.n % c == 0) ncs.push_back(c);
      }
      for (int64_t kc : kcs) {
        for (int64_t nc : ncs) {
          if ((kc > 0 ? kc : gemm.k) * nc * 4 > target.l2_bytes) continue;
          for (bool rows : {false, true}) {
            if (rows && gemm.m / mr < 2) continue;
            if (!rows && batches * (gemm.n / nc) < 1) continue;
            GemmTiles t;
            t.mr = mr;
            t.nr = nr;
            t.kc = kc;
            t.nc = nc;
            t.parallel_rows = rows;
            out.push_back(t);
          }
        }
      }
    }
  }
  return out;
}

absl::Status ScheduleGemmLoops(Schedule* sch, const BlockRV& block, const GemmBlock& gemm) {
  if (gemm.fold_batch_into_rows) return absl::FailedPreconditionError("for unfolded GEMMs only");
  absl::StatusOr<std::vector<LoopRV>> loops = sch->GetLoops(block);
  if (!loops.ok()) return loops.status();
  LoopRV i = (*loops)[gemm.i_loop], j = (*loops)[gemm.j_loop], k = (*loops)[gemm.k_loop];
  if (gemm.b_transposed) {
    // B[..., j, k]: k is B's contiguous index, so the dot products along k stay innermost.
    absl::StatusOr<BlockRV> init = sch->DecomposeReduction(block, k);
    if (!init.ok()) return init.status();
  } else {
    if (absl::Status s = sch->Reorder({i, k, j}); !s.ok()) return s;
    absl::StatusOr<BlockRV> init = sch->DecomposeReduction(block, k);
    if (!init.ok()) return init.status();
    if (gemm.n > 0) sch->Vectorize(j).IgnoreError();  // constant columns; a symbolic j LLVM vectorizes itself
  }
  // Parallel over the batches and the rows together: a batch of one (attention's [1, heads, ...])
  // alone would leave every thread but one idle.
  std::vector<LoopRV> outer;
  for (int b : gemm.batch_loops) outer.push_back((*loops)[b]);
  outer.push_back(i);
  return FuseParallel(sch, outer).status();
}

bool PrefetchesNextWeights(const GemmBlock& gemm, const GemmTiles& tiles, const Target& target) {
  return !tiles.parallel_rows && gemm.m > 0 && gemm.m / tiles.mr >= 2 && gemm.k * gemm.n * 4 > target.l2_bytes;
}

absl::Status ScheduleGemm(Schedule* sch, const BlockRV& block, const GemmBlock& gemm, const GemmTiles& tiles,
                          const Target& target) {
  absl::StatusOr<std::vector<LoopRV>> loops = sch->GetLoops(block);
  if (!loops.ok()) return loops.status();
  std::vector<LoopRV> batch;
  for (int b : gemm.batch_loops) batch.push_back((*loops)[b]);
  LoopRV rows = (*loops)[gemm.i_loop];
  // B without batch dimensions tiled per batch entry: the column blocks outermost, the batch
  // loops inside them, so a panel of B is packed once for every entry.
  const bool blocks_outside_batch = gemm.fold_batch_into_rows && tiles.per_batch_rows && !batch.empty();
  if (gemm.fold_batch_into_rows && !tiles.per_batch_rows) {
    std::vector<LoopRV> fused = batch;
    fused.push_back(rows);
    absl::StatusOr<LoopRV> f = sch->Fuse(fused);
    if (!f.ok()) return f.status();
    rows = *f;
    batch.clear();
  }
  auto i = sch->Split(rows, {std::nullopt, tiles.mr});
  if (!i.ok()) return i.status();
  // j -> j0 (blocks of nc columns) [, jp (panels of the block)], j1 (nr columns).
  int64_t nc = tiles.nc > tiles.nr ? tiles.nc : tiles.nr;
  std::vector<Factor> j_factors = {std::nullopt, tiles.nr};
  if (nc > tiles.nr) j_factors = {std::nullopt, nc / tiles.nr, tiles.nr};
  auto j = sch->Split((*loops)[gemm.j_loop], j_factors);
  if (!j.ok()) return j.status();
  std::optional<LoopRV> jp;
  if (nc > tiles.nr) jp = (*j)[1];
  LoopRV j1 = j->back();
  LoopRV k1 = (*loops)[gemm.k_loop];
  std::optional<LoopRV> k0;
  if (tiles.kc > 0 && tiles.kc < gemm.k) {
    auto k = sch->Split(k1, {std::nullopt, tiles.kc});
    if (!k.ok()) return k.status();
    k0 = (*k)[0];
    k1 = (*k)[1];
  }
  // batch..., j0, [k0], i0, [jp], i1, j1, k1: a block of B (kc x NC) stays in L2 and a row
  // tile of A (MR x kc) in L1 while it meets every panel of the block.
  std::vector<LoopRV> order = batch;
  order.insert(blocks_outside_batch ? order.begin() : order.end(), (*j)[0]);
  if (k0) order.push_back(*k0);
  order.push_back((*i)[0]);
  if (jp) order.push_back(*jp);
  order.insert(order.end(), {(*i)[1], j1, k1});
  if (absl::Status s = sch->Reorder(order); !s.ok()) return s;
  // Pack B into NR-column panels, k-major, each panel by the iteration of j0 that uses it.
  absl::StatusOr<BlockRV> packed = sch->CacheRead(block, gemm.b_read, "global");
  if (!packed.ok()) return packed.status();
  IndexMap map;
  absl::StatusOr<std::string> func = sch->FuncName(block);
  if (!func.ok()) return func.status();
  PrimFunc prim = sch->mod().LookupPrimFunc(*func);
  std::optional<StmtPath> path = FindBlock(prim->body, gemm.name);
  const BlockNode* b = path->back().as<BlockRealizeNode>()->block.get();
  const Buffer& bbuf = b->reads[gemm.b_read].buffer;
  for (int d = 0; d < bbuf->ndim(); ++d) map.inputs.push_back(MakeVar(absl::StrCat("d", d), DataType::Int64()));
  size_t nd = map.inputs.size();
  PrimExpr kk = map.inputs[gemm.b_transposed ? nd - 1 : nd - 2], jj = map.inputs[gemm.b_transposed ? nd - 2 : nd - 1];
  PrimExpr nr = IntImm(DataType::Int64(), tiles.nr);
  for (size_t d = 0; d + 2 < nd; ++d) map.outputs.push_back(map.inputs[d]);
  map.outputs.insert(map.outputs.end(), {FloorDiv(jj, nr), kk, FloorMod(jj, nr)});
  if (absl::Status s = sch->TransformLayout(block, gemm.b_read, /*is_write=*/false, map); !s.ok()) return s;
  // B made in this function by an elementwise block (a convolution's windows): compute it
  // within the packing, panel by panel, rather than store all of it and read it back; with k in
  // blocks, block by block, so what the packing writes is still in L1 when the tile reads it.
  bool made_here = false;
  if (absl::StatusOr<std::vector<BlockRV>> producers = sch->GetProducers(*packed);
      producers.ok() && producers->size() == 1) {
    Schedule trial = *sch;
    if (trial.ComputeInline(producers->front()).ok()) {
      *sch = trial;
      made_here = true;
    }
  }
  if (!made_here && PrefetchesNextWeights(gemm, tiles, target)) {
    if (absl::Status s = sch->Annotate(block, kPrefetchNextWeightsAnnotation, true); !s.ok()) return s;
  }
  const bool packed_per_k_block = made_here && k0;
  if (absl::Status s = sch->ComputeAt(*packed, packed_per_k_block ? *k0 : (*j)[0]); !s.ok()) return s;
  // The copy's loops under j0: [k, j] (or [j, k] for B transposed); write contiguously along j,
  // panel by panel.
  auto copy_loops = sch->GetLoops(*packed);
  if (!copy_loops.ok()) return copy_loops.status();
  size_t outer = blocks_outside_batch ? 1 : batch.size() + 1;  // loops above the copy: (batch loops and) j0
  if (copy_loops->size() >= outer + 2) {
    LoopRV first = (*copy_loops)[copy_loops->size() - 2], last = copy_loops->back();
    if (gemm.b_transposed) {
      if (absl::Status s = sch->Reorder({last, first}); !s.ok()) return s;
      std::swap(first, last);
    }
    if (nc > tiles.nr) {
      auto panels = sch->Split(last, {std::nullopt, tiles.nr});
      if (!panels.ok()) return panels.status();
      if (absl::Status s = sch->Reorder({(*panels)[0], first}); !s.ok()) return s;
      last = (*panels)[1];
    }
    if (absl::Status s = sch->Vectorize(last); !s.ok()) return s;
    // With the row tiles parallel, every thread waits for each block of B to be packed: the
    // packing is parallel too, over its loops above the vectorized one (speech_conv1d's
    // 250 -> 250 x 7 convolution as a GEMM packed each k block of its windows in 23 us on one
    // thread while the other waited, a quarter of the kernel on two threads). Not a small one
    // (kMinParallelPackFloats).
    if (tiles.parallel_rows) {
      const size_t above = packed_per_k_block ? batch.size() + 2 : outer;
      auto pack_loops = sch->GetLoops(*packed);
      if (!pack_loops.ok()) return pack_loops.status();
      std::optional<BlockView> pack_view = View(*sch, *packed);
      std::optional<int64_t> floats = pack_view ? LoopVolume(pack_view->loops, above) : std::nullopt;
      if (floats && *floats >= kMinParallelPackFloats && pack_loops->size() > above + 1) {
        std::vector<LoopRV> shared(pack_loops->begin() + above, pack_loops->end() - 1);
        if (absl::Status s = FuseParallel(sch, shared).status(); !s.ok()) return s;
      }
    }
  }
  // The elementwise epilogue (bias, activation) while its sums are in cache: without a k block
  // under the row tiles, each tile's sums being whole there and in L1 (after the column block,
  // a 128-row block of the encoder's 2048-column expansion came back from L2, its rows 8 KB
  // apart); with one, per column block. Kept only where it really narrows to the loop's part
  // (an index the region analysis cannot invert would make every part recompute all of it).
  absl::StatusOr<std::vector<BlockRV>> consumers = sch->GetConsumers(block);
  if (consumers.ok() && consumers->size() == 1) {
    const BlockRV epilogue = consumers->front();
    const size_t block_depth = blocks_outside_batch ? 0 : batch.size();
    auto place = [&](const LoopRV& at, size_t deepest) {
      Schedule trial = *sch;
      if (!trial.ReverseComputeAt(epilogue, at).ok()) return false;
      for (size_t d = block_depth; d <= deepest; ++d) {
        if (!UsesLoopAt(trial, epilogue, d)) return false;
      }
      *sch = std::move(trial);
      auto e_loops = sch->GetLoops(epilogue);
      if (e_loops.ok() && !e_loops->empty()) sch->Vectorize(e_loops->back()).IgnoreError();
      return true;
    };
    if (k0 || !place((*i)[0], block_depth + 1)) place((*j)[0], block_depth);
  }
  // The init before the k loops; then the tile becomes the micro-kernel.
  if (absl::StatusOr<BlockRV> init = sch->DecomposeReduction(block, k0 ? *k0 : (*i)[1]); !init.ok())
    return init.status();
  if (absl::Status s = sch->Tensorize((*i)[1], "gemm_f32"); !s.ok()) return s;
  // Parallel over the column blocks (and batches), or, with too few of them, the row tiles.
  if (tiles.parallel_rows) return sch->Parallel((*i)[0]);
  // (With the batch loops inside the column blocks, next to the packing, the blocks alone.)
  std::vector<LoopRV> outer_loops = blocks_outside_batch ? std::vector<LoopRV>{} : batch;
  outer_loops.push_back((*j)[0]);
  return FuseParallel(sch, outer_loops).status();
}

std::string DescribeTiles(const GemmTiles& t) {
  return absl::StrCat("mr=", t.mr, " nr=", t.nr, " kc=", t.kc, " nc=", t.nc > 0 ? t.nc : t.nr,
                      " rows=", t.parallel_rows ? 1 : 0);
}

std::vector<double> TileFeatures(const GemmBlock& gemm, const GemmTiles& t, const Target& target) {
  const double vectors = static_cast<double>(t.nr) / target.float_lanes();
  const double kc = t.kc > 0 ? t.kc : gemm.k;
  const double nc = t.nc > 0 ? t.nc : t.nr;
  return {
      1.0,
      std::log2(static_cast<double>(t.mr)),
      std::log2(vectors),
      std::log2(kc),
      std::log2(nc),
      t.parallel_rows ? 1.0 : 0.0,
      (t.mr * vectors + vectors + 1) / target.vector_registers,  // register use
      1.0 / t.mr + 1.0 / vectors,                                // loads per FMA
      kc * t.nr * 4 / target.l1d_bytes,                          // B panel in L1
      kc * nc * 4 / target.l2_bytes,                             // B block in L2
      static_cast<double>(gemm.k) / kc,                          // C reloads
  };
}

}  // namespace tir
}  // namespace mlc
