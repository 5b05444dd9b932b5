/*! \file base_func.h
 *  \brief The common base of the functions an IRModule holds: a graph-level Function or a
 *         loop-level PrimFunc.
 */
#ifndef MLC_IR_CORE_BASE_FUNC_H_
#define MLC_IR_CORE_BASE_FUNC_H_

#include "ir/core/attrs.h"
#include "ir/core/object.h"

namespace mlc {

class BaseFuncNode : public Object {
 public:
  BaseFuncNode(NodeKind kind, Attrs attrs) : Object(kind), attrs(std::move(attrs)) {}
  static bool IsInstance(const Object* obj) { return CategoryOf(obj->kind()) == NodeCategory::kFunction; }
  const Attrs attrs;
};
using BaseFunc = Ref<BaseFuncNode>;

}  // namespace mlc

#endif  // MLC_IR_CORE_BASE_FUNC_H_
