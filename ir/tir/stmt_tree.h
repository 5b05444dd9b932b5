/*! \file stmt_tree.h
 *  \brief What the schedule primitives share: finding blocks and loops with the statements
 *         above them, rebuilding a function body with one statement replaced or removed,
 *         the blocks of a scope and their dependences, and block regions.
 *
 *  The IR is immutable, so a primitive finds the path from the function body to what it
 *  changes, builds the new subtree, and rebuilds the path above it (path copying).
 */
#ifndef MLC_IR_TIR_STMT_TREE_H_
#define MLC_IR_TIR_STMT_TREE_H_

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/tir/analyzer.h"
#include "ir/tir/prim_func.h"
#include "ir/tir/stmt.h"
#include "ir/tir/tir_functor.h"

namespace mlc {
namespace tir {

/*! \brief Statements from the function body down to a node, both included. */
using StmtPath = std::vector<Stmt>;

/*! \brief The path to the BlockRealize of the block named `name`, or nullopt. */
std::optional<StmtPath> FindBlock(const Stmt& body, const std::string& name);
/*! \brief The path to the loop of `var`, or nullopt. */
std::optional<StmtPath> FindLoop(const Stmt& body, const Var& var);

/*! \brief The loops on `path` below its innermost enclosing block (the block itself excluded
 *         when the path ends at it), outermost first. */
std::vector<const ForNode*> LoopsAbove(const StmtPath& path);
/*! \brief The innermost BlockRealize strictly above the end of `path` (the scope). */
const BlockRealizeNode* ScopeOf(const StmtPath& path);

/*! \brief Rewrites a statement tree top-down: `f` may return a replacement for a statement
 *         (a null Stmt deletes it); where it returns nullopt the children are visited. A loop
 *         or sequence left empty disappears; unchanged subtrees keep their identity. */
Stmt RewriteStmt(const Stmt& s, const std::function<std::optional<Stmt>(const Stmt&)>& f);
/*! \brief `root` with the node `target` replaced (null: removed). */
Stmt ReplaceNode(const Stmt& root, const Object* target, const Stmt& replacement);

/*! \brief The block realizes directly inside `s` (not nested in other blocks), in order. */
std::vector<const BlockRealizeNode*> ChildBlocks(const Stmt& s);
/*! \brief Every block realize in `s`, nested ones included, in order. */
std::vector<const BlockRealizeNode*> AllBlocks(const Stmt& s);

/*! \brief Whether `e` mentions any of `vars`. */
bool UsesAnyVar(const PrimExpr& e, const std::set<const Object*>& vars);
bool UsesVar(const PrimExpr& e, const Var& var);

/*! \brief An analyzer with every loop of `loops` bound to its range. */
Analyzer AnalyzerFor(const std::vector<const ForNode*>& loops);

/*! \brief A name for a new block: `base`, or base_1, base_2... if taken in `body`. */
std::string UniqueBlockName(const Stmt& body, const std::string& base);

/*! \brief `body` with `buffer` removed from the alloc_buffers of whichever block allocates it
 *  (a primitive that made an intermediate unnecessary). */
Stmt DropAllocation(const Stmt& body, const Buffer& buffer);
/*! \brief Every buffer load in `e`, outermost first. */
std::vector<const BufferLoadNode*> LoadsIn(const PrimExpr& e);
/*! \brief Whether `buffer` is a parameter of `func` (an input or output, not an intermediate). */
bool IsParam(const PrimFunc& func, const Buffer& buffer);
/*! \brief Whether `a` and `b` hold the same dtype in the same shape (one can stand for the other). */
bool SameShape(const Buffer& a, const Buffer& b);
/*! \brief Whether the block only reads buffers it does not write (no reduction, no init). */
bool IsSpatialBlock(const BlockNode* block);
/*! \brief Whether the block has an init and reduction iteration variables. */
bool IsReductionBlock(const BlockNode* block);

/*! \brief Every load and store of `from` redirected to `to`, at the indices `reindex` maps
 *  them to (the same indices without it), and `from` replaced by `to` wherever else a buffer
 *  appears: cache_read/cache_write (same indices), transform_layout (an index map),
 *  in_place_epilogue (a constant offset). */
class BufferAccessRewriter : public StmtExprMutator {
 public:
  using Reindex = std::function<std::vector<PrimExpr>(const std::vector<PrimExpr>&)>;
  BufferAccessRewriter(Buffer from, Buffer to, Reindex reindex = nullptr)
      : from_(std::move(from)), to_(std::move(to)), reindex_(std::move(reindex)) {}
  Buffer VisitBuffer(const Buffer& b) override { return b.same_as(from_) ? to_ : b; }

 protected:
  PrimExpr VisitExpr_(const BufferLoadNode* op, const PrimExpr& self) override;
  Stmt VisitStmt_(const BufferStoreNode* op, const Stmt& self) override;

 private:
  std::vector<PrimExpr> Indices(const std::vector<PrimExpr>& idx) const { return reindex_ ? reindex_(idx) : idx; }
  Buffer from_, to_;
  Reindex reindex_;
};

/*! \brief The block with its read/write regions inferred again from its body. */
Block WithInferredRegions(const Block& block);
/*! \brief The block with `mutator` applied to its init and body, regions inferred again. */
Block WithBodyRewritten(const BlockNode* block, StmtExprMutator* mutator);
/*! \brief Every block in `s` with regions inferred again (after buffers or indices changed). */
Stmt ReinferRegions(const Stmt& s);

/*! \brief The region of `buffer` a block realize touches (reads or writes per `write`), in
 *         terms of the loop variables above it (block variables replaced by their values),
 *         with the loops of `relaxed` sweeping their ranges. Undefined min on failure. */
std::vector<IntRange> AccessRange(const BlockRealizeNode* realize, const Buffer& buffer, bool write,
                                  const std::unordered_map<const Object*, Range>& relaxed, const Analyzer& analyzer);

/*! \brief The ranges of the loops in `loops` (for relaxing). */
std::unordered_map<const Object*, Range> LoopRanges(const std::vector<const ForNode*>& loops);

/*! \brief Loops nested strictly inside `s` (any depth), outermost first. */
std::vector<const ForNode*> LoopsInside(const Stmt& s);

}  // namespace tir
}  // namespace mlc

#endif  // MLC_IR_TIR_STMT_TREE_H_
