/*! \file prim_func.h
 *  \brief Module-level functions: the common base and the loop-level PrimFunc.
 */
#ifndef MLC_IR_PRIM_FUNC_H_
#define MLC_IR_PRIM_FUNC_H_

#include <vector>

#include "ir/attrs.h"
#include "ir/stmt.h"

namespace mlc {

/*! \brief A function an IRModule maps a global name to: a graph-level Function or a PrimFunc. */
class BaseFuncNode : public Object {
 public:
  BaseFuncNode(NodeKind kind, Attrs attrs) : Object(kind), attrs(std::move(attrs)) {}
  static bool IsInstance(const Object* obj) { return CategoryOf(obj->kind()) == NodeCategory::kFunction; }
  const Attrs attrs;
};
using BaseFunc = Ref<BaseFuncNode>;

namespace tir {

/*! \brief A loop program in destination-passing style: every parameter is a buffer, the
 *         outputs last. Its body is normally a BlockRealize of the implicit "root" block,
 *         which holds the function's alloc_buffers. */
class PrimFuncNode : public BaseFuncNode {
 public:
  MLC_DECLARE_NODE(PrimFunc)
  PrimFuncNode(std::vector<Buffer> params, Stmt body, Attrs attrs)
      : BaseFuncNode(kKind, std::move(attrs)), params(std::move(params)), body(std::move(body)) {}
  const std::vector<Buffer> params;
  const Stmt body;
};
using PrimFunc = Ref<PrimFuncNode>;

/*! \brief Wraps `body` in the root block with `alloc_buffers`, as TensorIR does. */
Stmt MakeRootBlock(std::vector<Buffer> alloc_buffers, Stmt body);
/*! \brief The root block of a PrimFunc body, or nullptr if the body has none. */
const BlockNode* GetRootBlock(const Stmt& body);

}  // namespace tir
}  // namespace mlc

#endif  // MLC_IR_PRIM_FUNC_H_
