/*! \file attention_test.cc
 *  \brief mlc.attention against attention computed in double precision, operator by operator:
 *         grouped query heads, partial key blocks, bool and additive masks that broadcast,
 *         divide and multiply scales, no keys at all, and errors that name the mismatch.
 */
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "support/cpu_features.h"
#include "vm/ndarray.h"
#include "vm/runtime_registry.h"

namespace mlc {
namespace vm {
namespace {

const DLDataType kF32{kDLFloat, 32, 1}, kBool{kDLBoolCode, 8, 1};

NDArray Random(std::vector<int64_t> shape, std::mt19937* rng, float scale = 1.0f) {
  NDArray a = NDArray::Empty(shape, kF32);
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::normal_distribution<float> dist(0.0f, scale);
  float* p = static_cast<float*>(a.dl()->data);
  for (int64_t i = 0; i < n; ++i) p[i] = dist(*rng);
  return a;
}

const float* F(const NDArray& a) { return static_cast<const float*>(a.dl()->data); }

absl::Status Call(std::vector<NDArray> args) {
  const RuntimeFunction* fn = RuntimeRegistry::Global().Find("mlc.attention");
  if (fn == nullptr) return absl::NotFoundError("mlc.attention");
  std::vector<DLTensor*> dl;
  for (const NDArray& a : args) dl.push_back(a.dl());
  return (*fn)(dl);
}

struct Case {
  int64_t lead = 1, heads = 4, kv_heads = 2, rows = 3, keys = 21, depth = 8, value_depth = 5;
  float factor = 2.5f, fill = -1e30f;
  bool divide = true;
  bool k_seq_major = false, v_seq_major = false;  // k, v as [lead, keys, kv_heads, depth]
  enum { kNone, kCausalBool, kAdditive } mask = kNone;
};

/*! \brief Runs `c` through mlc.attention and through the reference; returns the largest error
 *  relative to the largest output magnitude. */
double MaxRelativeError(const Case& c) {
  std::mt19937 rng(7);
  NDArray q = Random({c.lead, c.heads, c.rows, c.depth}, &rng);
  NDArray k = c.k_seq_major ? Random({c.lead, c.keys, c.kv_heads, c.depth}, &rng)
                            : Random({c.lead, c.kv_heads, c.keys, c.depth}, &rng);
  NDArray v = c.v_seq_major ? Random({c.lead, c.keys, c.kv_heads, c.value_depth}, &rng)
                            : Random({c.lead, c.kv_heads, c.keys, c.value_depth}, &rng);
  auto key = [&](int64_t b, int64_t h, int64_t j, int64_t d) {
    return F(k)[(c.k_seq_major ? (b * c.keys + j) * c.kv_heads + h : (b * c.kv_heads + h) * c.keys + j) * c.depth + d];
  };
  auto value = [&](int64_t b, int64_t h, int64_t j, int64_t e) {
    return F(
        v)[(c.v_seq_major ? (b * c.keys + j) * c.kv_heads + h : (b * c.kv_heads + h) * c.keys + j) * c.value_depth + e];
  };
  NDArray params = NDArray::Empty({5}, kF32);
  float* pv = static_cast<float*>(params.dl()->data);
  pv[0] = c.factor;
  pv[1] = c.fill;
  pv[2] = c.divide ? 1 : 0;
  pv[3] = c.k_seq_major ? 1 : 0;
  pv[4] = c.v_seq_major ? 1 : 0;
  std::vector<NDArray> args = {q, k, v, params};
  // Causal bool [rows, keys]: query t (at position keys - rows + t) sees keys up to itself.
  // Additive [1, 1, 1, keys]: a per-key bias shared by every head and row.
  NDArray mask;
  if (c.mask == Case::kCausalBool) {
    mask = NDArray::Empty({c.rows, c.keys}, kBool);
    uint8_t* m = static_cast<uint8_t*>(mask.dl()->data);
    for (int64_t t = 0; t < c.rows; ++t) {
      for (int64_t j = 0; j < c.keys; ++j) m[t * c.keys + j] = j > c.keys - c.rows + t ? 1 : 0;
    }
    args.push_back(mask);
  } else if (c.mask == Case::kAdditive) {
    mask = Random({1, 1, 1, c.keys}, &rng, 3.0f);
    args.push_back(mask);
  }
  NDArray out = NDArray::Empty({c.lead, c.heads, c.rows, c.value_depth}, kF32);
  args.push_back(out);
  absl::Status s = Call(args);
  EXPECT_TRUE(s.ok()) << s.message();
  double worst = 0, largest = 1e-30;
  const int64_t groups = c.heads / c.kv_heads;
  for (int64_t b = 0; b < c.lead; ++b) {
    for (int64_t h = 0; h < c.heads; ++h) {
      const int64_t kvh = h / groups;
      for (int64_t t = 0; t < c.rows; ++t) {
        std::vector<double> score(c.keys);
        double top = -INFINITY;
        for (int64_t j = 0; j < c.keys; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < c.depth; ++d) {
            dot += double(F(q)[((b * c.heads + h) * c.rows + t) * c.depth + d]) * key(b, kvh, j, d);
          }
          dot = c.divide ? dot / c.factor : dot * c.factor;
          if (c.mask == Case::kCausalBool && static_cast<const uint8_t*>(mask.dl()->data)[t * c.keys + j]) dot = c.fill;
          if (c.mask == Case::kAdditive) dot += F(mask)[j];
          score[j] = dot;
          top = std::max(top, dot);
        }
        double sum = 0;
        for (double& x : score) sum += (x = std::exp(x - top));
        for (int64_t e = 0; e < c.value_depth; ++e) {
          double acc = 0;
          for (int64_t j = 0; j < c.keys; ++j) acc += score[j] / sum * value(b, kvh, j, e);
          const double got = F(out)[((b * c.heads + h) * c.rows + t) * c.value_depth + e];
          worst = std::max(worst, std::abs(got - acc));
          largest = std::max(largest, std::abs(acc));
        }
      }
    }
  }
  return worst / largest;
}

// Says which instruction set's kernels these checks cover (BUILD runs them once per level).
const bool kSaid = [] {
  const std::string cap = MaxIsaLevel();
  std::printf("mlc.attention's kernels for %s (%s)\n", HostCpuName().c_str(),
              cap.empty() ? "the widest this CPU runs" : ("MLC_MAX_ISA=" + cap).c_str());
  return true;
}();

TEST(Attention, GroupedQueryHeadsWithACausalMaskAndAPartialKeyBlock) {
  Case c;
  c.lead = 2;
  c.mask = Case::kCausalBool;
  EXPECT_LT(MaxRelativeError(c), 5e-6);  // float32 sums over the keys
}

TEST(Attention, AdditiveMaskBroadcastAndMultipliedScale) {
  Case c;
  c.heads = c.kv_heads = 3;
  c.divide = false;
  c.factor = 0.3f;
  c.mask = Case::kAdditive;
  EXPECT_LT(MaxRelativeError(c), 5e-6);  // float32 sums over the keys
}

TEST(Attention, DecodeStepOfALlamaLayer) {
  // One query row per head, 16 heads over 4 key/value heads of 64, 200 cached keys.
  Case c;
  c.heads = 16;
  c.kv_heads = 4;
  c.rows = 1;
  c.keys = 200;
  c.depth = c.value_depth = 64;
  c.factor = 8;
  c.mask = Case::kCausalBool;
  EXPECT_LT(MaxRelativeError(c), 5e-6);  // float32 sums over the keys
}

TEST(Attention, KeysAndValuesInTheSequenceMajorLayoutOfAGrowingCache) {
  for (int64_t rows : {1, 20}) {  // a decode step (direct dot products) and a prefill (packed keys)
    Case c;
    c.lead = 2;
    c.rows = rows;
    c.keys = 37;
    c.depth = 32;
    c.k_seq_major = c.v_seq_major = true;
    c.mask = Case::kCausalBool;
    EXPECT_LT(MaxRelativeError(c), 5e-6) << rows << " rows";
  }
  Case mixed;  // only the values sequence-major
  mixed.v_seq_major = true;
  EXPECT_LT(MaxRelativeError(mixed), 5e-6);
}

TEST(Attention, ManyRowsSpanSeveralTasks) {
  Case c;
  c.rows = 70;  // 2 groups x 70 rows: several row blocks per key/value head
  c.keys = 70;
  c.mask = Case::kCausalBool;
  EXPECT_LT(MaxRelativeError(c), 5e-6);  // float32 sums over the keys
}

NDArray ZeroParams() {
  NDArray params = NDArray::Empty({5}, kF32);
  std::memset(params.dl()->data, 0, 5 * sizeof(float));
  return params;
}

TEST(Attention, NoKeysGiveZeros) {
  NDArray out = NDArray::Empty({1, 2, 1, 4}, kF32);
  std::memset(out.dl()->data, 0xff, 8 * sizeof(float));
  NDArray params = ZeroParams();
  ASSERT_TRUE(Call({NDArray::Empty({1, 2, 1, 4}, kF32), NDArray::Empty({1, 2, 0, 4}, kF32),
                    NDArray::Empty({1, 2, 0, 4}, kF32), params, out})
                  .ok());
  for (int i = 0; i < 8; ++i) EXPECT_EQ(F(out)[i], 0.0f);
}

TEST(Attention, NamesKeyHeadsThatDoNotDivideTheQueryHeads) {
  NDArray params = ZeroParams();
  absl::Status s = Call({NDArray::Empty({1, 3, 1, 4}, kF32), NDArray::Empty({1, 2, 5, 4}, kF32),
                         NDArray::Empty({1, 2, 5, 4}, kF32), params, NDArray::Empty({1, 3, 1, 4}, kF32)});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("KV dividing H"), std::string::npos) << s.message();
}

TEST(Attention, NamesAMaskThatDoesNotBroadcast) {
  NDArray params = ZeroParams();
  absl::Status s =
      Call({NDArray::Empty({1, 2, 3, 4}, kF32), NDArray::Empty({1, 2, 5, 4}, kF32), NDArray::Empty({1, 2, 5, 4}, kF32),
            params, NDArray::Empty({3, 4}, kBool), NDArray::Empty({1, 2, 3, 4}, kF32)});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("does not broadcast"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace vm
}  // namespace mlc
