/*! \file attention_params.h
 *  \brief The float32 params tensor of the runtime function mlc.attention: what the pass
 *         fuse-attention writes and the kernel (vm/library/attention.cc) reads, entry by entry.
 */
#ifndef MLC_SUPPORT_ATTENTION_PARAMS_H_
#define MLC_SUPPORT_ATTENTION_PARAMS_H_

namespace mlc {

enum AttentionParam : int {
  kAttentionFactor = 0,           // the scale's constant (1 when there is none)
  kAttentionFill,                 // the score where a bool mask is true
  kAttentionDivide,               // 1: score = q.k / factor; 0: q.k * factor
  kAttentionKeysSequenceMajor,    // 1: k is [..., S, KV, D]; 0: [..., KV, S, D]
  kAttentionValuesSequenceMajor,  // the same for v
  kAttentionParamCount,
};

}  // namespace mlc

#endif  // MLC_SUPPORT_ATTENTION_PARAMS_H_
