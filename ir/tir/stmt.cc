/*! \file stmt.cc
 *  \brief Constructors and helpers of loop-level statements and buffers.
 */
#include "ir/tir/stmt.h"

#include "ir/tir/prim_func.h"

namespace mlc {
namespace tir {

Buffer MakeBuffer(std::string name, std::vector<PrimExpr> shape, DataType dtype) {
  return Buffer(new BufferNode(std::move(name), std::move(shape), dtype));
}

const char* ForKindName(ForKind kind) {
  switch (kind) {
    case ForKind::kSerial: return "serial";
    case ForKind::kParallel: return "parallel";
    case ForKind::kVectorized: return "vectorized";
    case ForKind::kUnrolled: return "unroll";
  }
  return "serial";
}

Stmt MakeSeq(std::vector<Stmt> seq) {
  std::vector<Stmt> flat;
  for (Stmt& s : seq) {
    if (!s.defined()) continue;
    if (const SeqStmtNode* inner = s.as<SeqStmtNode>()) {
      flat.insert(flat.end(), inner->seq.begin(), inner->seq.end());
    } else {
      flat.push_back(std::move(s));
    }
  }
  if (flat.size() == 1) return flat[0];
  return Stmt(new SeqStmtNode(std::move(flat)));
}

Stmt MakeRootBlock(std::vector<Buffer> alloc_buffers, Stmt body) {
  Block root(new BlockNode("root", {}, {}, {}, std::move(alloc_buffers), Stmt(), std::move(body)));
  return Stmt(new BlockRealizeNode({}, IntImm(DataType::Bool(), 1), std::move(root)));
}

const BlockNode* GetRootBlock(const Stmt& body) {
  const BlockRealizeNode* realize = body.as<BlockRealizeNode>();
  if (realize == nullptr || !realize->block->iter_vars.empty() || realize->block->name != "root") return nullptr;
  return realize->block.get();
}

}  // namespace tir
}  // namespace mlc
