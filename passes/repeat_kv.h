/*! \file repeat_kv.h
 *  \brief Hugging Face's repeat_kv in an exported graph: each of KV key/value heads repeated for
 *         the G query heads that share it (grouped-query attention),
 *
 *    rep = reshape(broadcast_to(reshape(k, [..., KV, 1, S, D]), [..., KV, G, S, D]), [..., KV*G, S, D])
 *
 *  matched once for the passes that read attention through it (fold-repeat-kv, fuse-attention).
 */
#ifndef MLC_PASSES_REPEAT_KV_H_
#define MLC_PASSES_REPEAT_KV_H_

#include <cstdint>
#include <optional>

#include "passes/pattern.h"

namespace mlc {
namespace passes {

struct RepeatKvPattern {
  /*! \brief `k`: what the repeated tensor must match (anything by default). */
  explicit RepeatKvPattern(Pattern k = Wildcard());
  Pattern k, expand, repeat, rep;  // rep = reshape(repeat = broadcast_to(expand = reshape(k)))
};

struct HeadRepeat {
  int64_t kv_heads = 0, groups = 0;
};

/*! \brief KV and G when what `pattern` matched in `m` repeats each head of k [..., KV, S, D]
 *  G >= 2 times (the dimensions say so), else nullopt. */
std::optional<HeadRepeat> MatchHeadRepeat(const Match& m, const RepeatKvPattern& pattern);

/*! \brief Whether `call` is permute_dims swapping the last two of its operand's n axes. */
bool SwapsLastTwoAxes(const relax::Expr& call, size_t n);

}  // namespace passes
}  // namespace mlc

#endif  // MLC_PASSES_REPEAT_KV_H_
