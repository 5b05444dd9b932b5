/*! \file object.cc
 *  \brief Kind names and categories, generated from node_kinds.def.
 */
#include "ir/node/object.h"

namespace mlc {

NodeCategory CategoryOf(NodeKind kind) {
  switch (kind) {
#define MLC_NODE_KIND(Name, Category) \
  case NodeKind::k##Name:             \
    return NodeCategory::k##Category;
#include "ir/node/node_kinds.def"
#undef MLC_NODE_KIND
  }
  return NodeCategory::kGraphOther;
}

const char* NodeKindName(NodeKind kind) {
  switch (kind) {
#define MLC_NODE_KIND(Name, Category) \
  case NodeKind::k##Name:             \
    return #Name;
#include "ir/node/node_kinds.def"
#undef MLC_NODE_KIND
  }
  return "?";
}

}  // namespace mlc
