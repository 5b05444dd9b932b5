/*! \file prim_func.h
 *  \brief The loop-level function: PrimFunc.
 */
#ifndef MLC_IR_TIR_PRIM_FUNC_H_
#define MLC_IR_TIR_PRIM_FUNC_H_

#include <vector>

#include "ir/core/attrs.h"
#include "ir/core/base_func.h"
#include "ir/tir/stmt.h"

namespace mlc {

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

#endif  // MLC_IR_TIR_PRIM_FUNC_H_
