/*! \file remove_unused.h
 *  \brief Dead bindings, shared by remove-unused and the passes that would otherwise spend work
 *         on them (fold-constant).
 */
#ifndef MLC_PASSES_REMOVE_UNUSED_H_
#define MLC_PASSES_REMOVE_UNUSED_H_

#include "ir/graph/function.h"

namespace mlc {
namespace passes {

/*! \brief `func` without its pure bindings whose variables nothing uses, repeated until none is
 *  left (so chains die); R.match_cast and impure calls stay. */
relax::Function RemoveUnusedBindings(relax::Function func);

}  // namespace passes
}  // namespace mlc

#endif  // MLC_PASSES_REMOVE_UNUSED_H_
