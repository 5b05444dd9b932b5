/*! \file silu.h
 *  \brief SiLU, x * sigmoid(x), for the runtime's hand-written kernels (an int8 convolution's
 *         epilogue), in the steps and constants of support/sigmoid_approximation.h: the bits of
 *         the compiled kernels' SiLU, so fusing it into a kernel changes no result.
 *
 *  The vector versions are compiled in their own files with their ISA's flags (silu_avx2.cc,
 *  silu_avx512.cc): GCC does not inline a template of intrinsics into a function whose target
 *  attribute enables them. They work in place on memory, so no vector type crosses the call.
 */
#ifndef MLC_VM_LIBRARY_SILU_H_
#define MLC_VM_LIBRARY_SILU_H_

#include <cstdint>

namespace mlc {
namespace vm {

/*! \brief x * sigmoid(x), with std::fma where the vector versions fuse multiply-adds. */
float Silu(float x);

/*! \brief SiLU of values[0..n), n a multiple of 8, with AVX2 and FMA. */
void SiluInPlaceAvx2(float* values, int64_t n);

/*! \brief SiLU of values[0..n), n a multiple of 16, with AVX-512. */
void SiluInPlaceAvx512(float* values, int64_t n);

}  // namespace vm
}  // namespace mlc

#endif  // MLC_VM_LIBRARY_SILU_H_
