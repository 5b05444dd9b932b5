/*! \file schedule.h
 *  \brief Schedules: checked transformations of the PrimFuncs of a module, TensorIR style.
 *
 *    Schedule sch(mod);
 *    BlockRV y = *sch.GetBlock("Y", "mm_relu");
 *    std::vector<LoopRV> loops = *sch.GetLoops(y);            // i, j, k
 *    std::vector<LoopRV> j = *sch.Split(loops[1], {std::nullopt, 4});
 *    sch.Reorder({j[0], loops[2], j[1]});
 *    sch.ReverseComputeAt(*sch.GetBlock("C", "mm_relu"), j[0]);
 *    sch.DecomposeReduction(y, loops[2]);
 *    IRModule scheduled = sch.mod();   // sch.trace() replays it
 *
 *  Handles (BlockRV, LoopRV, ExprRV) stay valid across transformations: a block is found by
 *  its name, a loop by its loop variable, which primitives keep for loops they do not replace.
 *  Every primitive checks its preconditions and refuses with an error naming the primitive,
 *  the block or loop, and why; a refused primitive leaves the schedule unchanged. Every
 *  applied primitive is recorded in the trace (trace.h), which prints in TVM's Python spelling
 *  and replays deterministically; the sampling primitives record their decisions.
 */
#ifndef MLC_PASSES_SCHEDULE_SCHEDULE_H_
#define MLC_PASSES_SCHEDULE_SCHEDULE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/graph/module.h"
#include "ir/tir/stmt_tree.h"
#include "passes/schedule/trace.h"

namespace mlc {
namespace tir {

/*! \brief An integer argument: a literal, or a sampled value (ExprRV). */
using IntOrRV = std::variant<int64_t, ExprRV>;
/*! \brief A split factor: a literal, a sampled value, or None (inferred). */
using Factor = std::optional<IntOrRV>;

/*! \brief Where compute_at may put a block: a loop, the scope root, or inlined. */
struct ComputeLocation {
  enum Kind { kLoop, kRoot, kInline } kind = kRoot;
  LoopRV loop;
};

class Schedule {
 public:
  /*! \brief A schedule over every PrimFunc of `mod`; `seed` drives the sampling primitives. */
  explicit Schedule(IRModule mod, int64_t seed = 1);

  const IRModule& mod() const { return mod_; }
  const Trace& trace() const { return trace_; }

  // ---- Lookup.
  /*! \brief The block named `name` in PrimFunc `func_name` (may be omitted when the module has
   *         one PrimFunc). */
  absl::StatusOr<BlockRV> GetBlock(const std::string& name, const std::string& func_name = "");
  /*! \brief The loops above the block, outermost first, up to the enclosing block. */
  absl::StatusOr<std::vector<LoopRV>> GetLoops(const BlockRV& block);
  /*! \brief The blocks directly inside (not nested in other blocks), in program order. */
  absl::StatusOr<std::vector<BlockRV>> GetChildBlocks(const BlockRV& block);
  absl::StatusOr<std::vector<BlockRV>> GetChildBlocks(const LoopRV& loop);
  /*! \brief Sibling blocks that write what `block` reads / read what it writes. */
  absl::StatusOr<std::vector<BlockRV>> GetProducers(const BlockRV& block);
  absl::StatusOr<std::vector<BlockRV>> GetConsumers(const BlockRV& block);

  // ---- Loops.
  /*! \brief Splits a loop into nested loops of the given extents, outermost first. One factor
   *         may be None (inferred); factors multiplying past the extent add a T.where guard. */
  absl::StatusOr<std::vector<LoopRV>> Split(const LoopRV& loop, const std::vector<Factor>& factors);
  /*! \brief Fuses perfectly nested loops into one. */
  absl::StatusOr<LoopRV> Fuse(const std::vector<LoopRV>& loops);
  /*! \brief Reorders loops of one nest (the others stay in place). */
  absl::Status Reorder(const std::vector<LoopRV>& loops);
  absl::Status Parallel(const LoopRV& loop);
  absl::Status Vectorize(const LoopRV& loop);
  absl::Status Unroll(const LoopRV& loop);
  /*! \brief Attaches an annotation (a hint for later stages) to a loop or a block. */
  absl::Status Annotate(const LoopRV& loop, const std::string& key, const AttrValue& value);
  absl::Status Annotate(const BlockRV& block, const std::string& key, const AttrValue& value);

  // ---- Blocks and buffers.
  /*! \brief Moves a producer block under `loop` of its consumers, computing only the region
   *         they need there. */
  absl::Status ComputeAt(const BlockRV& block, const LoopRV& loop);
  /*! \brief Moves a consumer block under `loop` of its producers. */
  absl::Status ReverseComputeAt(const BlockRV& block, const LoopRV& loop);
  /*! \brief Inlines an elementwise producer into its consumers and removes it. */
  absl::Status ComputeInline(const BlockRV& block);
  /*! \brief Inlines an elementwise consumer into its producer and removes it. */
  absl::Status ReverseComputeInline(const BlockRV& block);
  /*! \brief A copy of the block's `read_index`-th read buffer, read by the block instead. */
  absl::StatusOr<BlockRV> CacheRead(const BlockRV& block, int read_index, const std::string& scope);
  /*! \brief The block writes a new buffer, copied to the original after it. */
  absl::StatusOr<BlockRV> CacheWrite(const BlockRV& block, int write_index, const std::string& scope);
  /*! \brief Splits a reduction's init into its own block before `loop`. */
  absl::StatusOr<BlockRV> DecomposeReduction(const BlockRV& block, const LoopRV& loop);
  /*! \brief Splits a padding block, out[v] = Select(v in a box, f(v), c), into blocks that fill
   *         the border with c (named <block>_border<i>) and the block itself over the box only,
   *         storing at an offset (padding.cc). */
  absl::Status DecomposePadding(const BlockRV& block);
  /*! \brief The reduction whose result the epilogue `block` reads writes into the epilogue's
   *         output instead, where the epilogue stores (possibly at a constant offset), and the
   *         epilogue updates it in place (in_place.cc). */
  absl::Status InPlaceEpilogue(const BlockRV& block);
  /*! \brief Factors the reduction over `loop` into a new buffer with the loop as dimension
   *         `factor_axis`, then reduces that buffer; returns the rfactor block. */
  absl::StatusOr<BlockRV> RFactor(const LoopRV& loop, int factor_axis);
  /*! \brief Changes the layout of a buffer (`is_write`: the block's write_index-th written
   *         buffer, else read) everywhere in the function. */
  absl::Status TransformLayout(const BlockRV& block, int buffer_index, bool is_write, IndexMap index_map);
  /*! \brief Makes the loops at and below `loop` a block of their own (`<name>_o`). */
  absl::StatusOr<BlockRV> Blockize(const LoopRV& loop);
  /*! \brief Replaces the computation under a loop or block by a registered tensor intrinsic. */
  absl::Status Tensorize(const LoopRV& loop, const std::string& intrin);
  absl::Status Tensorize(const BlockRV& block, const std::string& intrin);

  // ---- Sampling (each decision is recorded in the trace).
  /*! \brief `n` factors multiplying exactly to the loop's extent, the innermost at most
   *         `max_innermost_factor`; `decision` replays a given choice. */
  absl::StatusOr<std::vector<ExprRV>> SamplePerfectTile(const LoopRV& loop, int n, int64_t max_innermost_factor,
                                                        std::optional<std::vector<int64_t>> decision = std::nullopt);
  absl::StatusOr<ExprRV> SampleCategorical(const std::vector<int64_t>& candidates, const std::vector<double>& probs,
                                           std::optional<int64_t> decision = std::nullopt);
  /*! \brief A loop above the block's consumers where compute_at may put it (decision: the
   *         index among the candidates; -1 the root, -2 inline). */
  absl::StatusOr<LoopRV> SampleComputeLocation(const BlockRV& block, std::optional<int64_t> decision = std::nullopt);

  /*! \brief The value of a sampled integer. */
  absl::StatusOr<int64_t> Get(const ExprRV& rv) const;
  /*! \brief Name of the block a handle refers to, and of its PrimFunc. */
  absl::StatusOr<std::string> BlockName(const BlockRV& block) const;
  absl::StatusOr<std::string> FuncName(const BlockRV& block) const;

 private:
  // What a handle refers to now, with the path to it (primitive implementations use these).
  struct BlockRef {
    std::string func;
    PrimFunc prim;
    StmtPath path;  // ends at the BlockRealize
    const BlockRealizeNode* realize;
    const BlockNode* block;
  };
  struct LoopRef {
    std::string func;
    PrimFunc prim;
    StmtPath path;  // ends at the For
    const ForNode* loop;
  };
  absl::StatusOr<BlockRef> Resolve(const BlockRV& rv, const char* primitive) const;
  /*! \brief Split of a loop whose extent is symbolic (Split dispatches here). */
  absl::StatusOr<std::vector<LoopRV>> SplitSymbolic(const LoopRV& loop_rv, const LoopRef& l,
                                                    const std::vector<Factor>& factors);
  /*! \brief Records a split in the trace and returns the new loops' handles. */
  std::vector<LoopRV> RecordSplit(const LoopRV& loop_rv, const std::string& func, const std::vector<Factor>& factors,
                                  const std::vector<Var>& vars);
  absl::StatusOr<LoopRef> Resolve(const LoopRV& rv, const char* primitive) const;
  absl::StatusOr<int64_t> ResolveInt(const IntOrRV& v, const char* primitive) const;
  /*! \brief Replaces the body of PrimFunc `func` (its signature kept unless `params` given). */
  void SetBody(const std::string& func, const Stmt& body, const std::vector<Buffer>* params = nullptr);
  BlockRV NewBlockRV(const std::string& func, const std::string& name);
  LoopRV NewLoopRV(const std::string& func, const Var& var);
  ExprRV NewExprRV(int64_t value);
  void Record(const std::string& kind, std::vector<TraceValue> inputs, std::vector<TraceValue> outputs = {},
              TraceValue decision = TraceValue());
  /*! \brief "loop j" / "block Y" for messages. */
  std::string Name(const LoopRef& loop) const;
  absl::Status ErrorAt(const char* primitive, const std::string& what, const std::string& why) const;
  absl::Status SetLoopKind(const LoopRV& loop, ForKind kind, const char* primitive);
  absl::Status TensorizeBlock(const BlockRef& block, const std::string& intrin);

  struct Symbol {
    enum Kind { kBlock, kLoop, kExpr } kind;
    std::string func;
    std::string block;  // kBlock
    Var loop;           // kLoop
    int64_t value = 0;  // kExpr
  };

  /*! \brief compute_at (reverse = false) and reverse_compute_at, which differ only in direction. */
  absl::Status MoveUnderLoop(const BlockRV& block, const LoopRV& loop, bool reverse);
  /*! \brief The "root" location sample_compute_location returns for decision -1: compute_at
   *  and reverse_compute_at to it leave the block where it is. */
  bool IsRootLocation(const LoopRV& rv) const;

  IRModule mod_;
  Trace trace_;
  std::vector<Symbol> symbols_;
  std::mt19937_64 rng_;
};

/*! \brief Replays `trace` on `sch` (its handles are bound anew); fails on the first
 *         instruction that does not apply, naming it. */
absl::Status ApplyTrace(const Trace& trace, Schedule* sch);

}  // namespace tir
}  // namespace mlc

#endif  // MLC_PASSES_SCHEDULE_SCHEDULE_H_
