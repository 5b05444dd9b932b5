/*! \file weight_quantization.h
 *  \brief Quantized weights (int8 / int4 codes of a matrix), written once for the pass that makes it
 *         (passes/quantize_weights.cc) and the runtime kernel that reads it
 *         (vm/library/weight_quantized_matmul.cc, mlc.wq.matmul).
 *
 *  The number formats are llama.cpp's, so a model quantized here and the same weights in a GGUF
 *  file hold the same values (the codes from the float scale, the scale stored as fp16):
 *    - 8 bits (Q8_0): per group of `group` consecutive k of one output column, d = max|w| / 127,
 *      code = round(w / d) in [-127, 127], value = code * d;
 *    - 4 bits (Q4_0): d = m / -8 with m the group's value of largest magnitude (sign kept),
 *      code = min(15, trunc(w / d + 8.5)) in [0, 15], value = (code - 8) * d.
 *
 *  The layout is the kernel's, made for integer dot products of 4 consecutive k (AVX-512 VNNI's
 *  vpdpbusd, AVX2's vpmaddubsw): panels of kWqPanel = 16 output columns, zero past N; within a
 *  panel, rows of 64 bytes give each column's 4 consecutive k (one 32-bit lane per column):
 *    - 8 bits: codes uint8 [P, K / 4, 16, 4], codes[p, k / 4, l, k % 4] = code(k, 16 p + l) + 128
 *      (unsigned, as vpdpbusd's first operand must be);
 *    - 4 bits: codes uint8 [P, K / 8, 16, 4]: block b of 32 k is rows 4 b .. 4 b + 3; row 4 b + r
 *      holds k = 32 b + 4 r + j in its low nibbles and k = 32 b + 16 + 4 r + j in its high ones;
 *    - scales fp16 (as uint16 bits) [P, K / group, 16].
 *  K must be a multiple of the group, and the group a multiple of 32 (one block).
 */
#ifndef MLC_SUPPORT_WEIGHT_QUANTIZATION_H_
#define MLC_SUPPORT_WEIGHT_QUANTIZATION_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "support/tensor_data.h"

namespace mlc {

constexpr int64_t kWqPanel = 16;  // output columns per panel
constexpr int64_t kWqBlock = 32;  // k per block: the activations' quantization block, the smallest group
/*! \brief What a stored code exceeds the code by: 128 (8 bits), 8 (4 bits). */
constexpr int WqCodeOffset(int bits) { return bits == 8 ? 128 : 8; }

/*! \brief A quantized matrix in the kernel's layout. */
struct QuantizedWeights {
  int bits = 8;
  int64_t k = 0, n = 0, group = 32;
  TensorData codes;   // uint8 [P, K / 4, 16, 4] (8 bits) or [P, K / 8, 16, 4] (4 bits)
  TensorData scales;  // fp16 bits, uint16 [P, K / group, 16]
};

/*! \brief IEEE binary16 from float, rounded to nearest even (overflow to infinity). */
uint16_t FloatToHalf(float f);
/*! \brief The float value of IEEE binary16 bits. */
float HalfToFloat(uint16_t h);

/*! \brief Whether `bits` and `group` name a format of this file; an error naming the one that
 *  does not. */
absl::Status CheckWeightFormat(int bits, int64_t group);

/*! \brief Whether a K x N matrix can be quantized with `bits` and `group`; an error naming the
 *  reason otherwise. */
absl::Status CheckWeightQuantization(int64_t k, int64_t n, int bits, int64_t group);

/*! \brief A quantized K-row matrix's format as its operands' shapes give it. */
struct WqLayout {
  int bits = 8;
  int64_t panels = 0, group = 32;
};

/*! \brief The layout of quantized operands of a K-row matrix, read from the shapes of its codes
 *  ([P, K / 4 or K / 8, 16, 4]) and scales ([P, K / group, 16]); an error naming what does not
 *  fit (what the kernels mlc.wq.matmul and mlc.wq.take check their operands with). */
absl::StatusOr<WqLayout> WqLayoutOf(const std::vector<int64_t>& codes, const std::vector<int64_t>& scales, int64_t k);

/*! \brief Quantizes the float32 matrix `w`: w[k * n + j] (a matmul's right operand, K x N), or
 *  w[j * k + kk] when `transposed` (a dense layer's weight, N x K). */
absl::StatusOr<QuantizedWeights> QuantizeWeights(const float* w, int64_t k, int64_t n, bool transposed, int bits,
                                                 int64_t group);

/*! \brief The activations' side of the kernel's integer products, llama.cpp's Q8_0 over one row
 *  of K (a multiple of 32) values: per block of 32, d = max|x| / 127, q = round(x / d) in
 *  [-127, 127], and the block's sum of q (what turns products with offset weight codes into
 *  products with the codes). q [K], d [K / 32], sums [K / 32]. */
void QuantizeActivations(const float* x, int64_t k, int8_t* q, float* d, int32_t* sums);

/*! \brief The code of w[k, column] (its offset removed) in `codes` laid out as above for a matrix
 *  of `k_rows` rows: what DequantizeWeights and a gather of one column (mlc.wq.take) read. */
int WqCodeAt(const uint8_t* codes, int bits, int64_t k_rows, int64_t k, int64_t column);

/*! \brief The values the codes stand for, as a row-major K x N matrix (tests' reference). */
std::vector<float> DequantizeWeights(const QuantizedWeights& q);

}  // namespace mlc

#endif  // MLC_SUPPORT_WEIGHT_QUANTIZATION_H_
