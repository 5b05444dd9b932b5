/*! \file generation.h
 *  \brief Text generation with a compiled decoder: the prompt in one call (prefill), then one
 *         call per new token (decode), greedy or sampled.
 *
 *    Generator g = *Generator::Create(vm.get(), "main");
 *    GenerationResult r = *g.Generate({1, 2, 3}, options);
 *
 *  The function is one of two forms, told apart by its parameters:
 *   - cached (what exporters write as past_key_values): ids int64 [1, seq], positions int64
 *     [1, seq], then key/value cache tensors whose one symbolic dimension is the cached length
 *     (`past`); it returns (logits [1, seq, vocab], the caches grown by seq). The prompt is a call
 *     with empty caches, each new token a call with seq = 1 and the caches returned before.
 *   - full: ids int64 [1, seq] -> logits [1, seq, vocab]; each step runs the whole sequence.
 *
 *  When the executable also has @prefill (passes/prefill_entry.cc: `func` computing the logits
 *  of the last position only) and `func` is main, calls of a whole prompt go to @prefill: the
 *  prompt's call of a cached model, every call of a full one.
 */
#ifndef MLC_VM_GENERATION_H_
#define MLC_VM_GENERATION_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "vm/virtual_machine.h"

namespace mlc {
namespace vm {

struct GenerationOptions {
  int max_new_tokens = 32;
  /*! \brief 0: greedy (the largest logit); else softmax(logits / temperature) is sampled. */
  double temperature = 0;
  /*! \brief With sampling, only the top_k largest logits take part (0: all). */
  int top_k = 0;
  uint64_t seed = 1;
  /*! \brief Stops after this token (-1: none). */
  int64_t stop_token = -1;
  /*! \brief Called with each new token as it is chosen (streaming). */
  std::function<void(int64_t)> on_token;
  /*! \brief Run prompts through @prefill when the executable has one (false: always `func`,
   *  which computes the logits of every position). */
  bool use_prefill = true;
};

struct GenerationResult {
  std::vector<int64_t> tokens;  // the new tokens
  double prefill_seconds = 0;   // the prompt's call
  double decode_seconds = 0;    // the calls after it
  int64_t cache_bytes = 0;      // the key/value caches allocated (for the prompt and every new token)
  /*! \brief The logits each new token was chosen from, [vocab] each (kept when asked). */
  std::vector<std::vector<float>> logits;
};

class Generator {
 public:
  /*! \brief A generator over function `func` of `vm` (kept, not owned); an error naming the
   *  parameter when the function is neither form. */
  static absl::StatusOr<Generator> Create(VirtualMachine* vm, const std::string& func = "main");

  absl::StatusOr<GenerationResult> Generate(const std::vector<int64_t>& prompt, const GenerationOptions& options,
                                            bool keep_logits = false) const;

  bool cached() const { return !cache_types_.empty(); }
  /*! \brief The function prompts go to: @prefill, or `func` when there is none. */
  const std::string& prompt_function() const { return prompt_func_.empty() ? func_ : prompt_func_; }

 private:
  struct CacheType {
    std::vector<int64_t> dims;  // -1 at the cached length
    DLDataType dtype;
  };
  VirtualMachine* vm_ = nullptr;
  std::string func_;
  std::string prompt_func_;  // @prefill, or empty
  std::vector<CacheType> cache_types_;
};

}  // namespace vm
}  // namespace mlc

#endif  // MLC_VM_GENERATION_H_
