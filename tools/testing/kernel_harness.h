/*! \file kernel_harness.h
 *  \brief Test helpers: random tensors, tolerant comparison, compile-and-load, and KernelCase,
 *         which checks one TE kernel (built, compiled with LLVM, run by the VM) against a
 *         double-precision reference.
 */
#ifndef MLC_TOOLS_TESTING_KERNEL_HARNESS_H_
#define MLC_TOOLS_TESTING_KERNEL_HARNESS_H_

#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/graph/block_builder.h"
#include "ir/graph/module.h"
#include "ir/te/call_te.h"
#include "tools/testing/kernel_main.h"
#include "vm/virtual_machine.h"

namespace mlc {
namespace testing_util {

inline const DataType kF32 = DataType::Float32();

/*! \brief A float32 tensor of uniform values in [lo, hi). */
vm::NDArray Random(std::vector<int64_t> shape, std::mt19937* rng, float lo = -1, float hi = 1);
TensorData ToTensorData(const vm::NDArray& a);
vm::NDArray ToNDArray(const TensorData& t);
inline const float* F(const vm::NDArray& a) { return static_cast<const float*>(a.data()); }

/*! \brief |got - want| <= atol + rtol * |want| everywhere; reports the worst element. */
void ExpectClose(const vm::NDArray& got, const std::vector<double>& want, double rtol = 1e-5, double atol = 1e-5);

/*! \brief The expected output, from the inputs and the output shape. */
using Reference =
    std::function<std::vector<double>(const std::vector<vm::NDArray>&, const std::vector<int64_t>& out_shape)>;

/*! \brief main(inputs) = call_tir(fte(inputs)), run on random inputs in [lo, hi). */
struct KernelCase {
  std::string name;
  std::vector<std::vector<int64_t>> inputs;
  te::FTE fte;
  Reference reference;
  float lo = -1, hi = 1;
};

/*! \brief Row-major strides of a shape, in elements. */
std::vector<int64_t> Strides(const std::vector<int64_t>& shape);

/*! \brief Broadcasting elementwise reference for any number of inputs. */
Reference Elementwise(std::function<double(const std::vector<double>&)> f);

template <typename Fn>
te::FTE Unary(Fn f) {
  return [f](const std::vector<te::Tensor>& t) -> absl::StatusOr<te::Tensor> { return f(t[0]); };
}
template <typename Fn>
te::FTE Binary(Fn f) {
  return [f](const std::vector<te::Tensor>& t) -> absl::StatusOr<te::Tensor> { return f(t[0], t[1]); };
}

/*! \brief Compiles and runs the case and compares with its reference (gtest assertions), as the
 *  operator library writes it and again after the default-schedule rules. */
void RunKernelCase(const KernelCase& c, double rtol = 1e-5, double atol = 1e-5);

/*! \brief main(inputs) = op(inputs) with `attrs`, rewritten by the pass `pipeline`, compiled and
 *  run on random inputs in [lo, hi), compared with `reference`. Returns the lowered module's
 *  text (to check which path the pipeline took). */
std::string RunOpCase(const std::string& op, const Attrs& attrs, const std::vector<std::vector<int64_t>>& inputs,
                      const std::string& pipeline, const Reference& reference, float lo = -1, float hi = 1);
/*! \brief RunOpCase with the inputs marked in `constant` (random, as the others) given to the
 *  operator as constants of the module (weights), the rest as parameters of main. */
std::string RunOpCaseWithConstants(const std::string& op, const Attrs& attrs,
                                   const std::vector<std::vector<int64_t>>& inputs, const std::vector<bool>& constant,
                                   const std::string& pipeline, const Reference& reference, float lo = -1,
                                   float hi = 1);

}  // namespace testing_util
}  // namespace mlc

#endif  // MLC_TOOLS_TESTING_KERNEL_HARNESS_H_
