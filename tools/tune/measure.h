/*! \file measure.h
 *  \brief Runs one PrimFunc on this machine, as the tuner measures candidates: compiled alone
 *         for the target, called on seeded random inputs, its outputs compared with a reference,
 *         and timed in repeated blocks of calls.
 */
#ifndef MLC_TOOLS_TUNE_MEASURE_H_
#define MLC_TOOLS_TUNE_MEASURE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/target/target.h"
#include "ir/tir/prim_func.h"
#include "support/tensor_data.h"

namespace mlc {
namespace tune {

/*! \brief The buffers of one call: every parameter of the function, float32 inputs filled with
 *  seeded random values in [-1, 1) and other inputs (indices, masks) with zeros, outputs zeroed
 *  before each checked call. */
class KernelArguments {
 public:
  static KernelArguments For(const tir::PrimFunc& func, uint64_t seed);
  std::vector<void*> pointers();
  /*! \brief Parameter `i`'s values as a float32 tensor of `shape`. */
  TensorData Tensor(size_t i, const std::vector<int64_t>& shape) const;
  /*! \brief These arguments with parameter `i` (an input) holding `value` instead (float32): a
   *  weight packed ahead of the calls. The other buffers are shared. */
  KernelArguments With(size_t i, const TensorData& value) const;
  /*! \brief The bytes of the outputs (the parameters some block writes). */
  std::vector<std::string> Outputs() const;
  void ZeroOutputs();

 private:
  /*! \brief 64-byte aligned, as the VM allocates tensors: kernels may use aligned vector loads. */
  struct Arg {
    std::shared_ptr<float> data;  // in float-sized words; float32 parameters random, others zero
    int64_t size = 0;
    bool output = false;
  };
  std::vector<Arg> args_;
};

struct Measurement {
  double seconds = 0;  // median of the repeats, per call
  double max_abs_diff = 0;
};

/*! \brief Compiles `func` for `target` and runs it on `args`: its outputs must match `reference`
 *  (from the unscheduled function; empty: this call makes the reference and returns it in
 *  `reference`) within 1e-3 relative, then it is timed: `repeats` blocks of at least
 *  `min_block_seconds` each (none: `seconds` stays 0). */
absl::StatusOr<Measurement> Measure(const tir::PrimFunc& func, const std::string& name, const Target& target,
                                    KernelArguments* args, std::vector<std::string>* reference, int repeats = 5,
                                    double min_block_seconds = 0.005);

}  // namespace tune
}  // namespace mlc

#endif  // MLC_TOOLS_TUNE_MEASURE_H_
