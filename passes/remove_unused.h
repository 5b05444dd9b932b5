/*! \file remove_unused.h
 *  \brief remove-unused, for passes that leave dead bindings behind and clean up after themselves.
 */
#ifndef MLC_PASSES_REMOVE_UNUSED_H_
#define MLC_PASSES_REMOVE_UNUSED_H_

#include <memory>

#include "passes/pass.h"

namespace mlc {
namespace passes {

/*! \brief Removes pure bindings nobody uses and functions unreachable from public ones. */
std::unique_ptr<Pass> CreateRemoveUnusedPass();

}  // namespace passes
}  // namespace mlc

#endif  // MLC_PASSES_REMOVE_UNUSED_H_
