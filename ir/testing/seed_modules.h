/*! \file seed_modules.h
 *  \brief The example modules of the seed chapters, constructed directly with the IR API
 *         (no parser, no builder), for golden, round-trip and verifier tests.
 */
#ifndef MLC_IR_TESTING_SEED_MODULES_H_
#define MLC_IR_TESTING_SEED_MODULES_H_

#include <string>
#include <utility>
#include <vector>

#include "ir/graph/module.h"

namespace mlc {
namespace testing {

/*! \brief "End to End Model Execution": relu0, linear0, linear1 and main with call_tir. */
IRModule MyModule();
/*! \brief main calling the runtime functions env.linear / env.relu. */
IRModule MyModuleWithExternCall();
/*! \brief linear0 in TensorIR, the rest through runtime functions. */
IRModule MyModuleMixture();
/*! \brief main with two dataflow blocks around an R.alloc_tensor (see the note in the .cc). */
IRModule TwoDataflowBlocks();
/*! \brief "Integration...": te_matmul composed with te_relu, matmul as an alloc_buffer. */
IRModule ComposedMatmulRelu();
/*! \brief "Computational Graph Optimization": main with multiply and add on (3, 4). */
IRModule EwiseModule();

/*! \brief All of the above, by name. */
std::vector<std::pair<std::string, IRModule>> AllSeedModules();

}  // namespace testing
}  // namespace mlc

#endif  // MLC_IR_TESTING_SEED_MODULES_H_
