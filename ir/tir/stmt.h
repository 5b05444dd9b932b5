/*! \file stmt.h
 *  \brief Loop-level statements: buffer stores, loops, sequences, conditionals, blocks.
 */
#ifndef MLC_IR_TIR_STMT_H_
#define MLC_IR_TIR_STMT_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/core/attrs.h"
#include "ir/tir/buffer.h"
#include "ir/tir/prim_expr.h"

namespace mlc {
namespace tir {

class StmtNode : public Object {
 public:
  explicit StmtNode(NodeKind kind) : Object(kind) {}
  static bool IsInstance(const Object* obj) { return CategoryOf(obj->kind()) == NodeCategory::kStmt; }
};
using Stmt = Ref<StmtNode>;

class BufferStoreNode : public StmtNode {
 public:
  MLC_DECLARE_NODE(BufferStore)
  BufferStoreNode(Buffer buffer, PrimExpr value, std::vector<PrimExpr> indices)
      : StmtNode(kKind), buffer(std::move(buffer)), value(std::move(value)), indices(std::move(indices)) {}
  const Buffer buffer;
  const PrimExpr value;
  const std::vector<PrimExpr> indices;
};

enum class ForKind : uint8_t { kSerial = 0, kParallel = 1, kVectorized = 2, kUnrolled = 3 };
const char* ForKindName(ForKind kind);  // "serial", "parallel", "vectorized", "unroll"

class ForNode : public StmtNode {
 public:
  MLC_DECLARE_NODE(For)
  ForNode(Var loop_var, PrimExpr min, PrimExpr extent, ForKind for_kind, Stmt body, Attrs annotations = {})
      : StmtNode(kKind),
        loop_var(std::move(loop_var)),
        min(std::move(min)),
        extent(std::move(extent)),
        for_kind(for_kind),
        body(std::move(body)),
        annotations(std::move(annotations)) {}
  const Var loop_var;
  const PrimExpr min;
  const PrimExpr extent;
  const ForKind for_kind;
  const Stmt body;
  /*! \brief Hints for later stages, set by the schedule's annotate ("pragma_unroll_explicit"...). */
  const Attrs annotations;
};

class SeqStmtNode : public StmtNode {
 public:
  MLC_DECLARE_NODE(SeqStmt)
  explicit SeqStmtNode(std::vector<Stmt> seq) : StmtNode(kKind), seq(std::move(seq)) {}
  const std::vector<Stmt> seq;
};
/*! \brief A sequence, flattened; a single statement stays itself. */
Stmt MakeSeq(std::vector<Stmt> seq);

class IfThenElseNode : public StmtNode {
 public:
  MLC_DECLARE_NODE(IfThenElse)
  IfThenElseNode(PrimExpr condition, Stmt then_case, Stmt else_case)
      : StmtNode(kKind),
        condition(std::move(condition)),
        then_case(std::move(then_case)),
        else_case(std::move(else_case)) {}
  const PrimExpr condition;
  const Stmt then_case;
  const Stmt else_case;  // may be null
};

class EvaluateNode : public StmtNode {
 public:
  MLC_DECLARE_NODE(Evaluate)
  explicit EvaluateNode(PrimExpr value) : StmtNode(kKind), value(std::move(value)) {}
  const PrimExpr value;
};

enum class IterKind : uint8_t { kSpatial = 0, kReduce = 1 };

/*! \brief A block iteration variable with its domain and whether it is spatial or reduction. */
struct IterVar {
  Var var;
  Range dom;
  IterKind kind;
};

/*! \brief A TensorIR block: the unit of computation, with declared iteration space,
 *         read/write regions, an optional reduction init, and local allocations. */
class BlockNode : public StmtNode {
 public:
  MLC_DECLARE_NODE(Block)
  BlockNode(std::string name, std::vector<IterVar> iter_vars, std::vector<BufferRegion> reads,
            std::vector<BufferRegion> writes, std::vector<Buffer> alloc_buffers, Stmt init, Stmt body,
            Attrs annotations = {})
      : StmtNode(kKind),
        name(std::move(name)),
        iter_vars(std::move(iter_vars)),
        reads(std::move(reads)),
        writes(std::move(writes)),
        alloc_buffers(std::move(alloc_buffers)),
        init(std::move(init)),
        body(std::move(body)),
        annotations(std::move(annotations)) {}
  const std::string name;
  const std::vector<IterVar> iter_vars;
  const std::vector<BufferRegion> reads;
  const std::vector<BufferRegion> writes;
  const std::vector<Buffer> alloc_buffers;
  const Stmt init;  // may be null
  const Stmt body;
  const Attrs annotations;
};
using Block = Ref<BlockNode>;

/*! \brief Executes a block with its iteration variables bound to values (from loop vars). */
class BlockRealizeNode : public StmtNode {
 public:
  MLC_DECLARE_NODE(BlockRealize)
  BlockRealizeNode(std::vector<PrimExpr> iter_values, PrimExpr predicate, Block block)
      : StmtNode(kKind),
        iter_values(std::move(iter_values)),
        predicate(std::move(predicate)),
        block(std::move(block)) {}
  const std::vector<PrimExpr> iter_values;
  const PrimExpr predicate;  // bool; IntImm(bool, 1) when always true
  const Block block;
};

/*! \brief Lowered form of alloc_buffer: storage for `buffer` live during `body`. */
class AllocateNode : public StmtNode {
 public:
  MLC_DECLARE_NODE(Allocate)
  AllocateNode(Buffer buffer, Stmt body) : StmtNode(kKind), buffer(std::move(buffer)), body(std::move(body)) {}
  const Buffer buffer;
  const Stmt body;
};

}  // namespace tir
}  // namespace mlc

#endif  // MLC_IR_TIR_STMT_H_
