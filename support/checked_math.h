/*! \file checked_math.h
 *  \brief Arithmetic on sizes and integers read from files: saturating instead of overflowing
 *         (undefined behaviour in C++), so a shape of 10^30 elements compares as too large
 *         rather than wrapping to a small number, and a float attribute of 1e33 or NaN read as
 *         an integer gives a value every check can refuse. Fuzzing found both. Also integer
 *         division rounded down or up for numerators of either sign (window and phase bounds).
 */
#ifndef MLC_SUPPORT_CHECKED_MATH_H_
#define MLC_SUPPORT_CHECKED_MATH_H_

#include <cstdint>
#include <limits>

namespace mlc {

/*! \brief a * b, or the int64 limit of the product's sign when it does not fit. */
inline int64_t SaturatingMul(int64_t a, int64_t b) {
  int64_t out;
  if (!__builtin_mul_overflow(a, b, &out)) return out;
  return (a < 0) != (b < 0) ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
}

/*! \brief a + b, saturating. */
inline int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t out;
  if (!__builtin_add_overflow(a, b, &out)) return out;
  return b < 0 ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
}

/*! \brief v rounded toward zero; out of range saturates, NaN gives 0. */
inline int64_t SaturatingInt64(double v) {
  if (!(v == v)) return 0;
  if (v >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
  if (v <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

/*! \brief floor(a / b) for b > 0 and a of either sign (C++'s / rounds toward zero). */
inline int64_t DivRoundDown(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/*! \brief ceil(a / b) for b > 0 and a of either sign. */
inline int64_t DivRoundUp(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

}  // namespace mlc

#endif  // MLC_SUPPORT_CHECKED_MATH_H_
