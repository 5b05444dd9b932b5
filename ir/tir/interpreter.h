/*! \file interpreter.h
 *  \brief A reference interpreter of loop-level programs, used to evaluate operators on
 *         constants at compile time (fold-constant) without code generation. Arithmetic
 *         follows the element types (float32 results are rounded to float32). For constant
 *         folding and tests, not for running models: a tree walk per element, or per row of
 *         iterations where a nest allows (about 10x faster: the weights of a QDQ model
 *         quantized at import).
 */
#ifndef MLC_IR_TIR_INTERPRETER_H_
#define MLC_IR_TIR_INTERPRETER_H_

#include <vector>

#include "absl/status/status.h"
#include "ir/tir/prim_func.h"
#include "support/tensor_data.h"

namespace mlc {
namespace tir {

/*! \brief How InterpretPrimFunc runs. */
struct InterpretOptions {
  /*! \brief Fails after more than this many stores and loop iterations. */
  int64_t max_steps = int64_t{1} << 28;
  /*! \brief A perfect loop nest around one store whose values do not read the stored tensor
   *  (elementwise operators, transposes, broadcasts) runs a row of iterations at a time, with
   *  the results, errors and steps of the element-by-element walk (interpreter.cc). Off: every
   *  nest element by element (tests compare the two). */
  bool rows = true;
};

/*! \brief What a run did. */
struct InterpretStats {
  int64_t row_iterations = 0;  // innermost iterations run in rows
};

/*! \brief Runs `func` on `buffers` (one per parameter, outputs last, written in place).
 *         Fails on shape mismatches, out-of-bounds accesses and more than `options.max_steps`
 *         stores and loop iterations. */
absl::Status InterpretPrimFunc(const tir::PrimFunc& func, const std::vector<TensorData*>& buffers,
                               const InterpretOptions& options, InterpretStats* stats = nullptr);

/*! \brief The same with the default options but `max_steps`. */
inline absl::Status InterpretPrimFunc(const tir::PrimFunc& func, const std::vector<TensorData*>& buffers,
                                      int64_t max_steps = int64_t{1} << 28) {
  InterpretOptions options;
  options.max_steps = max_steps;
  return InterpretPrimFunc(func, buffers, options);
}

}  // namespace tir
}  // namespace mlc

#endif  // MLC_IR_TIR_INTERPRETER_H_
