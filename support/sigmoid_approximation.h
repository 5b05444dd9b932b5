/*! \file sigmoid_approximation.h
 *  \brief The float32 e^x and sigmoid of the compiled kernels (codegen/llvm emits these steps as
 *         IR) and of the runtime's hand-written ones (vm/library computes them with intrinsics),
 *         one set of constants and one order of operations: an int8 convolution with SiLU fused
 *         into its epilogue then gives the same bits as the compiled SiLU it replaces, so the
 *         quantized bytes are the same too.
 *
 *  e^x = e^r * 2^n with x = n ln2 + r (Cody-Waite: ln2 in two parts), n rounded by adding
 *  1.5 * 2^23, e^r = 1 + r + r^2 P(r) on |r| <= ln2 / 2. sigmoid(x) = 1 / (1 + e) for x >= 0 and
 *  e / (1 + e) below, e = e^-|x|.
 */
#ifndef MLC_SUPPORT_SIGMOID_APPROXIMATION_H_
#define MLC_SUPPORT_SIGMOID_APPROXIMATION_H_

#include <cstdint>

namespace mlc {
namespace sigmoid_approximation {

// The range of the reduction: below, e^x is subnormal (it is clamped to e^kExpLowest); above,
// it overflows.
inline constexpr double kExpLowest = -87.3;
inline constexpr double kExpHighest = 88.7228391116729;
inline constexpr double kRoundingMagic = 12582912.0;  // 1.5 * 2^23: adding it rounds to an integer
inline constexpr double kLog2E = 1.44269504088896341;
inline constexpr double kMinusLn2High = -0.693359375;  // -ln2 = kMinusLn2High + kMinusLn2Low
inline constexpr double kMinusLn2Low = 2.12194440e-4;
// P, highest degree first, fitted for the least largest relative error (weighted least squares,
// Lawson's iteration): 0.57 ulp in float32 arithmetic, as close as Cephes' degree 5 (0.54) for
// one multiply-add less.
inline constexpr double kExpPolynomial[] = {1.3879671460017562e-3, 8.36872961372137e-3, 4.166722670197487e-2,
                                            1.666652113199234e-1, 4.999999701976776e-1};
inline constexpr uint32_t kOneBits = 0x3F800000;  // 1.0f: 2^n is its bits plus n << 23

/*! \brief sigmoid(x) in the steps codegen emits, for any vector type through `Ops`, a struct
 *  of static functions on V: Splat(float), Fma(a, b, c) (fused), Add, Sub, Mul, Div,
 *  NegativeAbs(x) (-|x|: the sign bit set), ClampBelow(x, lo) (lo where x < lo, ordered: NaN
 *  passes; x86's max(lo, x) is exactly that), ScaleByPowerOfTwo(e_r, n, shifted) (e_r * 2^n for
 *  an integral n in -126..0 and `shifted` = n + kRoundingMagic, whose low bits hold n: e_r times
 *  the float whose bits are (bits(shifted) << 23) + kOneBits, or AVX-512's scalef(e_r, n); the
 *  same bits, since 2^n is exact and e_r * 2^n stays normal), SelectNegative(x, a, b) (a where
 *  x's sign bit is set). Each is one or two instructions on x86, so the hand-written kernels
 *  pay no more than the compiled ones for the same bits. */
template <typename Ops, typename V>
V Sigmoid(V x) {
  const V e_arg = Ops::ClampBelow(Ops::NegativeAbs(x), Ops::Splat(static_cast<float>(kExpLowest)));
  const V magic = Ops::Splat(static_cast<float>(kRoundingMagic));
  const V shifted = Ops::Fma(e_arg, Ops::Splat(static_cast<float>(kLog2E)), magic);
  const V n = Ops::Sub(shifted, magic);
  V r = Ops::Fma(n, Ops::Splat(static_cast<float>(kMinusLn2High)), e_arg);
  r = Ops::Fma(n, Ops::Splat(static_cast<float>(kMinusLn2Low)), r);
  V p = Ops::Splat(static_cast<float>(kExpPolynomial[0]));
  for (int i = 1; i < 5; ++i) p = Ops::Fma(p, r, Ops::Splat(static_cast<float>(kExpPolynomial[i])));
  const V e_r = Ops::Add(Ops::Fma(p, Ops::Mul(r, r), r), Ops::Splat(1.0f));
  const V e = Ops::ScaleByPowerOfTwo(e_r, n, shifted);
  return Ops::Div(Ops::SelectNegative(x, e, Ops::Splat(1.0f)), Ops::Add(e, Ops::Splat(1.0f)));
}

}  // namespace sigmoid_approximation
}  // namespace mlc

#endif  // MLC_SUPPORT_SIGMOID_APPROXIMATION_H_
