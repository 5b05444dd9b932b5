/*! \file interpreter.h
 *  \brief A reference interpreter of loop-level programs, used to evaluate operators on
 *         constants at compile time (fold-constant) without code generation. Arithmetic
 *         follows the element types (float32 results are rounded to float32). Slow by design:
 *         for constant folding and tests, not for running models.
 */
#ifndef MLC_IR_TIR_INTERPRETER_H_
#define MLC_IR_TIR_INTERPRETER_H_

#include <vector>

#include "absl/status/status.h"
#include "ir/tir/prim_func.h"
#include "support/tensor_data.h"

namespace mlc {
namespace tir {

/*! \brief Runs `func` on `buffers` (one per parameter, outputs last, written in place).
 *         Fails on shape mismatches, out-of-bounds accesses and more than `max_steps` stores
 *         and loop iterations. */
absl::Status InterpretPrimFunc(const tir::PrimFunc& func, const std::vector<TensorData*>& buffers,
                               int64_t max_steps = int64_t{1} << 28);

}  // namespace tir
}  // namespace mlc

#endif  // MLC_IR_TIR_INTERPRETER_H_
