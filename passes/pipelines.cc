/*! \file pipelines.cc
 *  \brief The named pipelines, defined once: every tool, test, script and Bazel rule that
 *         wants "the default" says `--passes=default`.
 */
#include "passes/pass.h"

namespace mlc {
namespace passes {
namespace {

MLC_REGISTER_PIPELINE("default",
                      "fold-constant,fold-scale-into-conv,dispatch-blas,remove-unused,fuse-ops,legalize,fuse-tir,"
                      "remove-unused",
                      "what the pipeline and the Bazel rules run: constants folded, convolutions, dense and matmul "
                      "through the BLAS runtime functions, the rest fused and lowered to loops");
MLC_REGISTER_PIPELINE("native", "fold-constant,fold-scale-into-conv,remove-unused,fuse-ops,legalize,fuse-tir,remove-unused",
                      "the default without library dispatch: every operator compiled from the operator library");
MLC_REGISTER_PIPELINE("O0", "legalize,remove-unused",
                      "each operator lowered on its own, nothing folded or fused (a reference for debugging)");

}  // namespace
}  // namespace passes
}  // namespace mlc
