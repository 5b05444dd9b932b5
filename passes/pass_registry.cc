/*! \file pass_registry.cc
 *  \brief The core passes, registered explicitly (keep sorted).
 */
#include "passes/pass.h"
#include "passes/remove_unused.h"

namespace mlc {
namespace passes {

std::unique_ptr<Pass> CreateBindParamsPass();
std::unique_ptr<Pass> CreateCanonicalizeBindingsPass();
std::unique_ptr<Pass> CreateEwiseFmaPass();
std::unique_ptr<Pass> CreateFoldConstantPass();
std::unique_ptr<Pass> CreateFuseDenseAddPass();
std::unique_ptr<Pass> CreateFuseOpsPass();
std::unique_ptr<Pass> CreateFuseTirPass();
std::unique_ptr<Pass> CreateLegalizePass();

void RegisterCorePasses(PassRegistry& registry) {
  // keep-sorted start
  registry.Register(CreateBindParamsPass);
  registry.Register(CreateCanonicalizeBindingsPass);
  registry.Register(CreateEwiseFmaPass);
  registry.Register(CreateFoldConstantPass);
  registry.Register(CreateFuseDenseAddPass);
  registry.Register(CreateFuseOpsPass);
  registry.Register(CreateFuseTirPass);
  registry.Register(CreateLegalizePass);
  registry.Register(CreateRemoveUnusedPass);
  // keep-sorted end
}

}  // namespace passes
}  // namespace mlc
