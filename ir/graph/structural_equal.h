/*! \file structural_equal.h
 *  \brief Structural equality and hashing of IR, both levels.
 *
 *  Variables and buffers are compared by where they are defined (function parameter,
 *  binding, loop, block iteration variable, alloc_buffer), not by name or pointer: two
 *  programs that differ only in naming are equal. Free variables compare by identity.
 *  GlobalVars compare by name; constants by dtype, shape and bytes.
 */
#ifndef MLC_IR_GRAPH_STRUCTURAL_EQUAL_H_
#define MLC_IR_GRAPH_STRUCTURAL_EQUAL_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "ir/graph/module.h"

namespace mlc {

bool StructuralEqual(const IRModule& lhs, const IRModule& rhs);
bool StructuralEqual(const BaseFunc& lhs, const BaseFunc& rhs);

/*! \brief Ok if equal, else an error describing the first difference and where it is. */
absl::Status CheckStructuralEqual(const IRModule& lhs, const IRModule& rhs);
absl::Status CheckStructuralEqual(const BaseFunc& lhs, const BaseFunc& rhs);

/*! \brief A hash consistent with StructuralEqual: equal programs hash equally, in every process
 *  (the tuning database keys workloads by it). */
size_t StructuralHash(const IRModule& mod);
size_t StructuralHash(const BaseFunc& func);

}  // namespace mlc

#endif  // MLC_IR_GRAPH_STRUCTURAL_EQUAL_H_
