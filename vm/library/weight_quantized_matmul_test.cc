/*! \file weight_quantized_matmul_test.cc
 *  \brief mlc.wq.matmul against the product of the dequantized activations (Q8_0 per block of
 *         32, QuantizeActivations) and the dequantized weight, on every code path the CPU runs
 *         (AVX-512 VNNI, AVX2, portable), and the quantization formats themselves.
 */
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "support/cpu_features.h"
#include "support/weight_quantization.h"
#include "vm/library/wq_matmul_tile.h"
#include "vm/ndarray.h"
#include "vm/runtime_registry.h"

namespace mlc {
namespace vm {
namespace {

const DLDataType kF32{kDLFloat, 32, 1};

NDArray FromTensor(const TensorData& t) {
  DLDataType dtype{static_cast<uint8_t>(t.dtype().is_float()  ? kDLFloat
                                        : t.dtype().is_uint() ? kDLUInt
                                                              : kDLInt),
                   static_cast<uint8_t>(t.dtype().bits()), 1};
  NDArray a = NDArray::Empty(t.shape(), dtype);
  std::memcpy(a.dl()->data, t.data(), t.NumBytes());
  return a;
}

absl::Status CallWq(const NDArray& x, const QuantizedWeights& q, const NDArray& out) {
  const RuntimeFunction* fn = RuntimeRegistry::Global().Find("mlc.wq.matmul");
  if (fn == nullptr) return absl::NotFoundError("mlc.wq.matmul");
  NDArray codes = FromTensor(q.codes), scales = FromTensor(q.scales);
  std::vector<DLTensor*> args = {x.dl(), codes.dl(), scales.dl(), out.dl()};
  return (*fn)(args);
}

/*! \brief The paths this CPU runs, each as the MLC_WQ_PATH value that selects it. */
std::vector<std::string> PathsOfThisCpu() {
  std::vector<std::string> paths = {"portable"};
  if (HostHasCpuFeature("avx2") && HostHasCpuFeature("fma")) paths.push_back("avx2");
  if (HostHasCpuFeature("avx512f") && HostHasCpuFeature("avx512bw") && HostHasCpuFeature("avx512vnni")) {
    paths.push_back("");  // the default: the best
  }
  return paths;
}

TEST(WeightQuantizedMatmul, MatchesTheProductOfTheDequantizedOperandsOnEveryPath) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  struct Case {
    int64_t k, n, group;
  };
  // A panel of 16, a partial last panel (40 = 16 + 16 + 8), two groups of 64 over a 70-wide N.
  const std::vector<Case> cases = {{32, 16, 32}, {96, 40, 32}, {128, 70, 64}};
  for (const std::string& path : PathsOfThisCpu()) {
    if (path.empty())
      unsetenv("MLC_WQ_PATH");
    else
      setenv("MLC_WQ_PATH", path.c_str(), 1);
    for (int bits : {8, 4}) {
      for (const Case& c : cases) {
        std::vector<float> w(c.k * c.n);
        for (float& v : w) v = normal(rng);
        for (bool transposed : {false, true}) {
          absl::StatusOr<QuantizedWeights> q = QuantizeWeights(w.data(), c.k, c.n, transposed, bits, c.group);
          ASSERT_TRUE(q.ok()) << q.status();
          const std::vector<float> dq = DequantizeWeights(*q);
          // Each value within half a step (q8) or one step (q4: the clipped top code) of the weight.
          for (int64_t kk = 0; kk < c.k; ++kk) {
            for (int64_t j = 0; j < c.n; ++j) {
              float amax = 0;
              for (int64_t g = kk / c.group * c.group; g < (kk / c.group + 1) * c.group; ++g) {
                amax = std::max(amax, std::fabs(transposed ? w[j * c.k + g] : w[g * c.n + j]));
              }
              // The fp16 scale adds up to 2^-11 of the group's largest value.
              const float step = bits == 8 ? amax / 127 : amax / 8, wv = transposed ? w[j * c.k + kk] : w[kk * c.n + j];
              ASSERT_NEAR(dq[kk * c.n + j], wv, (bits == 8 ? 0.5f : 1.0f) * step + amax / 2048 + 1e-6f)
                  << bits << " bits, k " << kk << ", column " << j;
            }
          }
          for (int64_t m : {1, 2, 5, 8, 11}) {  // row tiles of 8 and 4 with every remainder
            std::vector<float> xv(m * c.k), xdq(m * c.k);
            for (float& v : xv) v = normal(rng);
            xv[0] = 0.0f;                      // a zero activation: vpsignb zeroes its weight on the AVX2 path
            for (int64_t i = 0; i < m; ++i) {  // the activations as the kernel sees them
              std::vector<int8_t> q(c.k);
              std::vector<float> d(c.k / 32);
              std::vector<int32_t> sums(c.k / 32);
              QuantizeActivations(xv.data() + i * c.k, c.k, q.data(), d.data(), sums.data());
              for (int64_t kk = 0; kk < c.k; ++kk) xdq[i * c.k + kk] = q[kk] * d[kk / 32];
            }
            NDArray x = NDArray::Empty({m, c.k}, kF32), out = NDArray::Empty({m, c.n}, kF32);
            std::memcpy(x.dl()->data, xv.data(), xv.size() * 4);
            ASSERT_TRUE(CallWq(x, *q, out).ok());
            const float* got = static_cast<const float*>(out.dl()->data);
            for (int64_t i = 0; i < m; ++i) {
              for (int64_t j = 0; j < c.n; ++j) {
                double want = 0, scale = 0;
                for (int64_t kk = 0; kk < c.k; ++kk) {
                  want += static_cast<double>(xdq[i * c.k + kk]) * dq[kk * c.n + j];
                  scale += std::fabs(static_cast<double>(xdq[i * c.k + kk]) * dq[kk * c.n + j]);
                }
                ASSERT_NEAR(got[i * c.n + j], want, 1e-5 * scale + 1e-6)
                    << "path " << (path.empty() ? "best" : path) << ", " << bits << " bits, K " << c.k << ", N " << c.n
                    << ", M " << m << ", row " << i << ", column " << j;
              }
            }
          }
        }
      }
    }
  }
  unsetenv("MLC_WQ_PATH");
}

TEST(WeightQuantization, FollowsQ80AndQ40) {
  // One group of 32 in one column: values -2, -1.75, ..., 5.75 (largest magnitude 5.75).
  std::vector<float> w(32);
  for (int i = 0; i < 32; ++i) w[i] = -2.0f + 0.25f * i;
  absl::StatusOr<QuantizedWeights> q8 = QuantizeWeights(w.data(), 32, 1, false, 8, 32);
  absl::StatusOr<QuantizedWeights> q4 = QuantizeWeights(w.data(), 32, 1, false, 4, 32);
  ASSERT_TRUE(q8.ok() && q4.ok());
  // Codes come from the float scale; the scale is stored as fp16, and values use the stored one.
  const float d8 = 5.75f / 127, d4 = 5.75f / -8;
  EXPECT_EQ(q8->scales.data_as<uint16_t>()[0], FloatToHalf(d8));
  EXPECT_EQ(q4->scales.data_as<uint16_t>()[0], FloatToHalf(d4));
  const float s8 = HalfToFloat(FloatToHalf(d8)), s4 = HalfToFloat(FloatToHalf(d4));
  const std::vector<float> v8 = DequantizeWeights(*q8), v4 = DequantizeWeights(*q4);
  for (int i = 0; i < 32; ++i) {
    EXPECT_NEAR(v8[i], w[i], d8 / 2 + 5.75f / 2048) << i;
    EXPECT_NEAR(v8[i], std::round(w[i] / d8) * s8, 1e-6) << i;
    // Q4_0: code = min(15, trunc(w / d + 8.5)), value = (code - 8) * d; the largest magnitude is exact.
    const int code = std::min(15, static_cast<int>(w[i] / d4 + 8.5f));
    EXPECT_NEAR(v4[i], (code - 8) * s4, 1e-6) << i;
  }
  EXPECT_NEAR(v4[31], 5.75f, 5.75f / 2048);
  // 4-bit rows: byte j of row r holds k = 4 r + j in its low nibble and k = 16 + 4 r + j in its
  // high one; 8-bit codes are stored plus 128.
  const uint8_t* codes = static_cast<const uint8_t*>(q4->codes.data());
  auto code4 = [&](int k) { return std::min(15, static_cast<int>(w[k] / d4 + 8.5f)); };
  EXPECT_EQ(codes[0] & 0xF, code4(0));
  EXPECT_EQ(codes[0] >> 4, code4(16));
  EXPECT_EQ(codes[1 * 64 + 2] & 0xF, code4(6));  // row 1, column 0, byte 2
  EXPECT_EQ(static_cast<const uint8_t*>(q8->codes.data())[(1 * 16 + 0) * 4 + 1],
            std::lround(w[5] / d8) + 128);  // k = 5: row 1, byte 1
}

TEST(WeightQuantization, HalfPrecisionRoundsToNearestEven) {
  EXPECT_EQ(FloatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7bff);  // the largest half
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7c00);  // rounds up to infinity
  EXPECT_EQ(FloatToHalf(0.1f), 0x2e66);
  EXPECT_EQ(FloatToHalf(1.0f + 1.0f / 2048), 0x3c00);  // a tie: to the even mantissa
  EXPECT_EQ(FloatToHalf(1.0f + 3.0f / 2048), 0x3c02);
  EXPECT_EQ(FloatToHalf(1e-7f), 0x0002);  // a subnormal half: 1e-7 / 2^-24 = 1.68
  EXPECT_EQ(FloatToHalf(0.0f), 0x0000);
  for (uint32_t h = 0; h < 0x10000; ++h) {  // every finite half survives the round trip
    if ((h & 0x7c00) == 0x7c00) continue;
    ASSERT_EQ(FloatToHalf(HalfToFloat(static_cast<uint16_t>(h))), h) << h;
  }
}

TEST(WeightQuantization, QuantizesActivationsPerBlockOf32) {
  std::vector<float> x(64);
  for (int i = 0; i < 64; ++i) x[i] = i < 32 ? 0.5f * (i - 16) : (i == 40 ? -3.0f : 0.0f);
  std::vector<int8_t> q(64);
  float d[2];
  int32_t sums[2];
  QuantizeActivations(x.data(), 64, q.data(), d, sums);
  EXPECT_FLOAT_EQ(d[0], 8.0f / 127);
  EXPECT_FLOAT_EQ(d[1], 3.0f / 127);
  EXPECT_EQ(q[0], -127);
  EXPECT_EQ(q[40], -127);
  EXPECT_EQ(q[16], 0);
  int32_t sum0 = 0;
  for (int i = 0; i < 32; ++i) sum0 += q[i];
  EXPECT_EQ(sums[0], sum0);
  EXPECT_EQ(sums[1], -127);
}

TEST(WeightQuantizedMatmul, VectorizedActivationQuantizationIsBitForBitTheReference) {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  const int64_t k = 256;
  std::vector<float> x(k);
  for (float& v : x) v = normal(rng);
  std::fill(x.begin() + 64, x.begin() + 96, 0.0f);  // an all-zero block: scale 0, codes 0
  std::vector<int8_t> q0(k), q1(k);
  std::vector<float> d0(k / 32), d1(k / 32);
  std::vector<int32_t> s0(k / 32), s1(k / 32);
  QuantizeActivations(x.data(), k, q0.data(), d0.data(), s0.data());
  using Fn = void (*)(const float*, int64_t, int8_t*, float*, int32_t*);
  std::vector<std::pair<const char*, Fn>> paths;
  if (HostHasCpuFeature("avx2") && HostHasCpuFeature("fma") && HostHasCpuFeature("f16c"))
    paths.push_back({"avx2", WqQuantizeActivationsAvx2});
  if (HostHasCpuFeature("avx512f") && HostHasCpuFeature("avx512bw") && HostHasCpuFeature("avx512vnni")) {
    paths.push_back({"avx512", WqQuantizeActivationsAvx512});
  }
  for (const auto& [name, fn] : paths) {
    fn(x.data(), k, q1.data(), d1.data(), s1.data());
    EXPECT_EQ(q0, q1) << name;
    EXPECT_EQ(d0, d1) << name;
    EXPECT_EQ(s0, s1) << name;
  }
}

TEST(WeightQuantizedTake, GathersRowsOfTheTableStoredAsItsTransposeAndNamesABadId) {
  const RuntimeFunction* take = RuntimeRegistry::Global().Find("mlc.wq.take");
  ASSERT_NE(take, nullptr);
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int64_t vocab = 40, dim = 64;  // a partial last panel of ids
  std::vector<float> table(vocab * dim);
  for (float& v : table) v = normal(rng);
  for (int bits : {8, 4}) {
    absl::StatusOr<QuantizedWeights> q = QuantizeWeights(table.data(), dim, vocab, /*transposed=*/true, bits, 32);
    ASSERT_TRUE(q.ok());
    const std::vector<float> dq = DequantizeWeights(*q);  // [dim, vocab]
    const std::vector<int64_t> id_values = {0, 39, 17, 16};
    NDArray ids = NDArray::Empty({2, 2}, DLDataType{kDLInt, 64, 1}), out = NDArray::Empty({2, 2, dim}, kF32);
    std::memcpy(ids.dl()->data, id_values.data(), 4 * 8);
    NDArray codes = FromTensor(q->codes), scales = FromTensor(q->scales),
            rows = NDArray::Empty({1}, DLDataType{kDLInt, 64, 1});
    std::memcpy(rows.dl()->data, &vocab, 8);
    std::vector<DLTensor*> args = {ids.dl(), codes.dl(), scales.dl(), rows.dl(), out.dl()};
    ASSERT_TRUE((*take)(args).ok());
    const float* got = static_cast<const float*>(out.dl()->data);
    for (int i = 0; i < 4; ++i) {
      for (int64_t k = 0; k < dim; ++k)
        ASSERT_EQ(got[i * dim + k], dq[k * vocab + id_values[i]]) << bits << " bits, id " << id_values[i];
    }
    const int64_t bad = 40;
    std::memcpy(ids.dl()->data, &bad, 8);
    absl::Status s = (*take)(args);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("id 40 at position 0 is outside the table's 40 rows"), std::string::npos) << s.message();
  }
}

TEST(WeightQuantization, RefusesAReductionThatIsNotWholeGroups) {
  std::vector<float> w(48 * 4);
  absl::StatusOr<QuantizedWeights> q = QuantizeWeights(w.data(), 48, 4, false, 8, 32);
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.status().message().find("multiple of the group"), std::string::npos) << q.status();
  EXPECT_FALSE(QuantizeWeights(w.data(), 48, 4, false, 3, 16).ok());
}

TEST(WeightQuantizedMatmul, NamesScalesThatDoNotFitTheWeight) {
  std::vector<float> w(64 * 16, 1.0f);
  absl::StatusOr<QuantizedWeights> q = QuantizeWeights(w.data(), 64, 16, false, 8, 32);
  ASSERT_TRUE(q.ok());
  q->scales = TensorData(DataType::UInt(16), {1, 3, 16});  // 3 groups for K = 64
  NDArray x = NDArray::Empty({1, 64}, kF32), out = NDArray::Empty({1, 16}, kF32);
  absl::Status s = CallWq(x, *q, out);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("do not fit K = 64"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace vm
}  // namespace mlc
