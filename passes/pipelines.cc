/*! \file pipelines.cc
 *  \brief The named pipelines, defined once: every tool, test, script and Bazel rule that
 *         wants "the default" says `--passes=default`.
 */
#include "passes/pass.h"

namespace mlc {
namespace passes {
namespace {

MLC_REGISTER_PIPELINE(
    "default",
    "prefill-entry,qdq-to-integer,fold-constant,kv-cache-append,fuse-attention,fold-repeat-kv,simplify-power,commute-"
    "transpose-matmul,scatter-rows,fold-scale-into-conv,prune-conv-taps,split-conv-taps,alter-op-layout,conv2d-to-gemm,"
    "pad-gemm-columns,remove-unused,split-padding,fold-int8-dequantize,concat-in-place,"
    "fuse-ops,legalize,fuse-tir,default-schedule,pack-constants,remove-unused",
    "what the pipeline and the Bazel rules run: a decoder's prompt entry point computing the last logits only, int8 "
    "(QDQ) convolutions as int8 kernels, constants folded, convolutions in "
    "channel-blocked layouts (NCHW16c, weights packed at compile time; the rest as GEMMs over their windows), "
    "everything fused, lowered to loops and scheduled by the default rules (GEMMs as "
    "register-tile micro-kernels over packed panels, weights packed at compile time, depthwise "
    "convolutions and max pools reading their padded inputs in place, written so by their producers, and pooling "
    "vectorized along the output rows); no library call");
MLC_REGISTER_PIPELINE(
    "blas",
    "prefill-entry,qdq-to-integer,fold-constant,kv-cache-append,fuse-attention,fold-repeat-kv,scatter-rows,"
    "fold-scale-into-conv,prune-conv-taps,split-conv-taps,dispatch-blas,remove-unused,fuse-ops,legalize,fuse-tir,"
    "default-schedule,pack-constants,remove-unused",
    "convolutions, dense and matmul through OpenBLAS (the runtime functions), the rest scheduled by "
    "the default rules: the library path, for comparison");
MLC_REGISTER_PIPELINE("O0", "legalize,remove-unused",
                      "each operator lowered on its own, nothing folded or fused (a reference for debugging)");

}  // namespace
}  // namespace passes
}  // namespace mlc
