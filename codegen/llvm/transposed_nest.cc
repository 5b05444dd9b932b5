#include "codegen/llvm/transposed_nest.h"

#include <algorithm>
#include <vector>

#include "ir/tir/analyzer.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/stmt_tree.h"
#include "ir/tir/tir_functor.h"
#include "ir/tir/tir_util.h"

namespace mlc {
namespace codegen {

using tir::PrimExpr;

namespace {

// Beyond this many bytes a tile's transpose needs more registers than any x86 target has (16 x 16
// floats; a uint8 tile of a quantized epilogue may hold four times the elements).
constexpr int64_t kMaxTileBytes = 1024;
// Fewer lanes per column than this saves too little over the gathers to pay for the shuffles.
constexpr int64_t kMinBlock = 4;

/*! \brief How far `index` moves when `var` steps by one, when that is a constant. The
 *  analyzer must bind `var` to a range whose last value is excluded, so that var + 1 stays in
 *  the loop. */
std::optional<int64_t> Step(const tir::Analyzer& analyzer, const PrimExpr& index, const tir::Var& var) {
  PrimExpr next = tir::Substitute(index, {{var, var + 1}});
  const PrimExpr difference = analyzer.Simplify(next - index);  // AsConstInt points into it
  const int64_t* step = tir::AsConstInt(difference);
  if (step == nullptr) return std::nullopt;
  return *step;
}

bool StepIsZeroOrOne(std::optional<int64_t> step) { return step.has_value() && (*step == 0 || *step == 1); }

/*! \brief Whether `value` has an operation of long latency: a division or a transcendental
 *  function (SiLU's sigmoid, a quantize's division by its scale). */
bool HasLongLatencyOperation(const PrimExpr& value) {
  struct Finder : tir::StmtExprVisitor {
    bool found = false;
    void VisitExpr_(const tir::BinaryNode* op) override {
      found |= op->kind() == NodeKind::kDiv && op->dtype.is_float();
      tir::StmtExprVisitor::VisitExpr_(op);
    }
    void VisitExpr_(const tir::TirCallNode* op) override {
      for (const char* name : {"sigmoid", "exp", "tanh", "erf", "log", "sqrt"}) found |= op->name == name;
      tir::StmtExprVisitor::VisitExpr_(op);
    }
  } finder;
  finder.VisitExpr(value);
  return finder.found;
}

}  // namespace

std::optional<TransposedNest> PlanTransposedNest(const tir::ForNode* loop, int vector_bits) {
  if (loop->for_kind != tir::ForKind::kSerial && loop->for_kind != tir::ForKind::kUnrolled) return std::nullopt;
  const auto* inner = loop->body.as<tir::ForNode>();
  if (inner == nullptr || inner->for_kind != tir::ForKind::kVectorized) return std::nullopt;
  const auto* store = inner->body.as<tir::BufferStoreNode>();
  if (store == nullptr || store->indices.size() != 1) return std::nullopt;
  const int64_t* i_min = tir::AsConstInt(loop->min);
  const int64_t* extent = tir::AsConstInt(loop->extent);
  const int64_t* j_min = tir::AsConstInt(inner->min);
  const int64_t* rows = tir::AsConstInt(inner->extent);
  if (i_min == nullptr || extent == nullptr || j_min == nullptr || rows == nullptr) return std::nullopt;
  if (*rows < 2 || *extent < kMinBlock) return std::nullopt;
  DataType dtype = store->buffer->dtype;
  if (dtype.is_bool() || dtype.bits() < 8 || store->value->dtype != dtype) return std::nullopt;

  const tir::Var& i = loop->loop_var;
  const tir::Var& j = inner->loop_var;
  tir::Analyzer original;
  original.Bind(i, *i_min, *extent);
  original.Bind(j, *j_min, *rows - 1);
  if (Step(original, store->indices[0], j) != std::optional<int64_t>(1)) return std::nullopt;
  std::vector<const tir::BufferLoadNode*> loads = tir::LoadsIn(store->value);
  bool any_strided = false;
  for (const tir::BufferLoadNode* load : loads) {
    if (load->buffer.same_as(store->buffer) || load->indices.size() > 1) return std::nullopt;
    // A 0-d buffer (a scalar constant: a quantize's scale) is the same for every i and j.
    if (!load->indices.empty() && !StepIsZeroOrOne(Step(original, load->indices[0], j))) any_strided = true;
  }
  if (!any_strided) return std::nullopt;  // the vectorized loop reads contiguously as it is

  TransposedNest plan;
  plan.rows = *rows;
  plan.row_min = *j_min;
  plan.block_var = tir::MakeVar(i->name + "_block", i->dtype);
  plan.lane_var = tir::MakeVar(i->name + "_lane", i->dtype);
  plan.column_var = tir::MakeVar(i->name + "_column", i->dtype);
  plan.chunk_var = tir::MakeVar(j->name + "_chunk", j->dtype);
  plan.row_var = j;
  plan.out = store->buffer;
  // Blocks of a vector's lanes, then of halves of it for what is left, where each row's value
  // is a chain of long latency: at half a vector per row (56 pixels in blocks of 8), twice the
  // chains kept AVX-512 waiting (EfficientNet-B0 int8's SiLU and quantize into NCHW16c, 616 ->
  // 399 us for 144 x 56 x 56). Otherwise the widest block that divides A, one width: a
  // dequantize's few operations are cheaper than the wider tile's transpose (the same layer's
  // 73 us at blocks of 8 took 98 at 16 + 8).
  int64_t widest = vector_bits / dtype.bits();
  if (!HasLongLatencyOperation(store->value)) {
    while (widest > 1 && *extent % widest != 0) widest /= 2;
  }
  int64_t first = 0;
  for (int64_t block = widest; block >= kMinBlock && first < *extent; block /= 2) {
    const int64_t blocks = (*extent - first) / block;
    if (blocks == 0) continue;
    // The most rows whose tile fits, dividing B.
    int64_t chunk = std::min(*rows, kMaxTileBytes / (block * dtype.bytes()));
    while (chunk > 1 && *rows % chunk != 0) --chunk;
    if (chunk < 2) break;
    TransposedNest::Segment segment;
    segment.block = block;
    segment.blocks = blocks;
    segment.chunk = chunk;
    auto i_at = [&](const tir::Var& within_block) {
      return tir::IntImm(i->dtype, *i_min + first) + plan.block_var * block + within_block;
    };
    tir::Analyzer blocked;
    blocked.Bind(plan.block_var, 0, blocks);
    blocked.Bind(plan.lane_var, 0, block);
    blocked.Bind(plan.column_var, 0, block);
    blocked.Bind(j, *j_min, *rows);
    segment.value = blocked.Simplify(tir::Substitute(store->value, {{i, i_at(plan.lane_var)}}));
    segment.column_start = blocked.Simplify(
        tir::Substitute(store->indices[0], {{i, i_at(plan.column_var)}, {j, tir::IntImm(j->dtype, *j_min)}}));
    // Every load must now be contiguous or invariant along the block.
    tir::Analyzer stepping;
    stepping.Bind(plan.block_var, 0, blocks);
    stepping.Bind(plan.lane_var, 0, block - 1);
    stepping.Bind(j, *j_min, *rows);
    for (const tir::BufferLoadNode* load : tir::LoadsIn(segment.value)) {
      if (!load->indices.empty() && !StepIsZeroOrOne(Step(stepping, load->indices[0], plan.lane_var)))
        return std::nullopt;
    }
    plan.segments.push_back(std::move(segment));
    first += blocks * block;
  }
  // A few i left to gather after the blocks made the nest slower than gathering all of it (14
  // pixels as 8 + 4 + 2, 7 as 4 + 3: EfficientNet-B0's late layers).
  if (first != *extent) return std::nullopt;
  return plan;
}

}  // namespace codegen
}  // namespace mlc
