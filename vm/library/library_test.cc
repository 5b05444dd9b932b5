/*! \file library_test.cc
 *  \brief The runtime library's selection, scatter, NMS and int8 functions called directly:
 *         orders, ties, reductions, int32 indices, and errors for bad indices, shapes and geometry.
 */
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "support/cpu_features.h"
#include "vm/library/int8_common.h"
#include "vm/ndarray.h"
#include "vm/runtime_registry.h"

namespace mlc {
namespace vm {
namespace {

template <typename T>
NDArray Make(std::vector<int64_t> shape, DLDataType dtype, const std::vector<T>& values) {
  NDArray a = NDArray::Empty(std::move(shape), dtype);
  // An empty tensor may have no storage; memcpy's pointers must not be null even for 0 bytes.
  if (!values.empty()) std::memcpy(a.dl()->data, values.data(), values.size() * sizeof(T));
  return a;
}
template <typename T>
std::vector<T> Values(const NDArray& a, size_t n) {
  const T* p = static_cast<const T*>(a.dl()->data);
  return std::vector<T>(p, p + n);
}

const DLDataType kF32{kDLFloat, 32, 1}, kI64{kDLInt, 64, 1}, kI32{kDLInt, 32, 1}, kI16{kDLInt, 16, 1};

absl::Status Call(const std::string& name, std::vector<NDArray> args) {
  const RuntimeFunction* fn = RuntimeRegistry::Global().Find(name);
  if (fn == nullptr) return absl::NotFoundError(name);
  std::vector<DLTensor*> dl;
  for (const NDArray& a : args) dl.push_back(a.dl());
  return (*fn)(dl);
}

TEST(TopK, SelectsAlongTheMiddleAxisLowerIndexFirstOnTies) {
  // x[2, 3, 2]; top 2 along axis 1.
  NDArray x = Make<float>({2, 3, 2}, kF32, {1, 5, 3, 5, 3, 0, -1, 2, -2, 2, 7, 2});
  NDArray v = NDArray::Empty({2, 2, 2}, kF32), i = NDArray::Empty({2, 2, 2}, kI64);
  ASSERT_TRUE(Call("mlc.topk", {x, Make<int64_t>({2}, kI64, {1, 1}), v, i}).ok());
  EXPECT_EQ(Values<float>(v, 8), (std::vector<float>{3, 5, 3, 5, 7, 2, -1, 2}));
  EXPECT_EQ(Values<int64_t>(i, 8), (std::vector<int64_t>{1, 0, 2, 1, 2, 0, 0, 1}));  // 3 == 3: index 1 first
  ASSERT_TRUE(Call("mlc.topk", {x, Make<int64_t>({2}, kI64, {-2, 0}), v, i}).ok());  // smallest
  EXPECT_EQ(Values<float>(v, 8), (std::vector<float>{1, 0, 3, 5, -2, 2, -1, 2}));
}

// Thousands of elements of a few values (ties everywhere) and NaNs: the k first of a stable
// sort, NaN as the largest, each tie in index order, for every k.
TEST(TopK, EqualsTheFirstKOfAStableSortOnManyTies) {
  std::mt19937 rng(5);
  const int64_t n = 3000;
  std::vector<float> x(n);
  for (float& v : x) v = static_cast<float>(rng() % 7);
  for (int64_t i = 0; i < n; i += 97) x[i] = std::numeric_limits<float>::quiet_NaN();
  for (const bool largest : {true, false}) {
    std::vector<int64_t> order(n);
    for (int64_t i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      const bool na = std::isnan(x[a]), nb = std::isnan(x[b]);
      if (na || nb) return largest ? na && !nb : nb && !na;
      return largest ? x[a] > x[b] : x[a] < x[b];
    });
    for (const int64_t k : {int64_t{1}, int64_t{300}, n}) {
      NDArray v = NDArray::Empty({k}, kF32), i = NDArray::Empty({k}, kI64);
      ASSERT_TRUE(Call("mlc.topk", {Make<float>({n}, kF32, x), Make<int64_t>({2}, kI64, {0, largest}), v, i}).ok());
      EXPECT_EQ(Values<int64_t>(i, k), std::vector<int64_t>(order.begin(), order.begin() + k))
          << "largest " << largest << ", k " << k;
    }
  }
}

// Rows far longer than k, in orders that make the running cut-off useless (ascending) or
// decisive (descending), with ties and NaNs, along an axis with a stride (x[n, 2], axis 0): the
// k first of a stable sort of each column, for k from 1 to most of the row.
TEST(TopK, EqualsAStableSortOnLongRowsOfAnyOrder) {
  const int64_t n = 40000;
  std::mt19937 rng(7);
  for (const int order : {0, 1, 2}) {  // ascending, descending, random
    std::vector<float> x(2 * n);
    for (int64_t i = 0; i < n; ++i) {
      const float ramp = static_cast<float>(i / 3);  // ties in threes
      x[2 * i] = order == 0 ? ramp : order == 1 ? -ramp : static_cast<float>(rng() % 500);
      x[2 * i + 1] = i % 101 == 0 ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(rng() % 50);
    }
    for (const bool largest : {true, false}) {
      for (const int64_t k : {int64_t{1}, int64_t{1000}, int64_t{30000}}) {
        NDArray v = NDArray::Empty({k, 2}, kF32), i = NDArray::Empty({k, 2}, kI64);
        ASSERT_TRUE(
            Call("mlc.topk", {Make<float>({n, 2}, kF32, x), Make<int64_t>({2}, kI64, {0, largest}), v, i}).ok());
        const std::vector<int64_t> got = Values<int64_t>(i, 2 * k);
        for (int64_t column = 0; column < 2; ++column) {
          std::vector<int64_t> want(n);
          for (int64_t j = 0; j < n; ++j) want[j] = j;
          std::stable_sort(want.begin(), want.end(), [&](int64_t a, int64_t b) {
            const float xa = x[2 * a + column], xb = x[2 * b + column];
            const bool na = std::isnan(xa), nb = std::isnan(xb);
            if (na || nb) return largest ? na && !nb : nb && !na;
            return largest ? xa > xb : xa < xb;
          });
          for (int64_t j = 0; j < k; ++j) {
            ASSERT_EQ(got[2 * j + column], want[j]) << "order " << order << ", largest " << largest << ", k " << k
                                                    << ", column " << column << ", rank " << j;
          }
        }
      }
    }
  }
}

TEST(TopK, RejectsAKLargerThanTheAxis) {
  NDArray x = Make<float>({3}, kF32, {1, 2, 3});
  absl::Status s =
      Call("mlc.topk", {x, Make<int64_t>({2}, kI64, {0, 1}), NDArray::Empty({4}, kF32), NDArray::Empty({4}, kI64)});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("k = 4"), std::string::npos) << s.message();
}

// Each shape's non-zero elements (NaN and -0 among the values) against their coordinates
// divided out of the flat index, in row-major order; a scalar has no coordinates, an empty
// tensor no elements.
TEST(NonZero, ListsTheCoordinatesOfEveryNonZeroElementInRowMajorOrder) {
  const AllocatingRuntimeFunction* nonzero = RuntimeRegistry::Global().FindAllocating("mlc.nonzero");
  ASSERT_NE(nonzero, nullptr);
  std::mt19937 rng(13);
  const std::vector<std::vector<int64_t>> shapes = {{}, {7}, {3, 1, 5}, {2, 3, 4, 9}, {4, 0, 3}, {1000}};
  for (const std::vector<int64_t>& dims : shapes) {
    int64_t count = 1;
    for (int64_t d : dims) count *= d;
    std::vector<float> x(count);
    for (float& v : x) v = rng() % 3 == 0 ? static_cast<float>(rng() % 5) : 0.f;
    if (count > 4) x[1] = std::numeric_limits<float>::quiet_NaN(), x[2] = -0.f;
    const int64_t rank = static_cast<int64_t>(dims.size());
    std::vector<std::vector<int64_t>> want(rank);
    int64_t found = 0;
    for (int64_t i = 0; i < count; ++i) {
      if (x[i] == 0.f) continue;
      ++found;
      for (int64_t d = rank - 1, rest = i; d >= 0; rest /= dims[d], --d) want[d].push_back(rest % dims[d]);
    }
    absl::StatusOr<std::vector<NDArray>> got = (*nonzero)({Make<float>(dims, kF32, x)});
    ASSERT_TRUE(got.ok()) << got.status();
    const DLTensor* out = (*got)[0].dl();
    ASSERT_EQ(out->ndim, 2);
    ASSERT_EQ(out->shape[0], rank);
    ASSERT_EQ(out->shape[1], found) << "rank " << rank << ", " << count << " elements";
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t* row = static_cast<const int64_t*>(out->data) + d * found;
      EXPECT_EQ(std::vector<int64_t>(row, row + found), want[d]) << "rank " << rank << ", axis " << d;
    }
  }
}

// Many RoIs over a small image take the channel-last path (the image transposed once, each
// bin summing vectors of channels), one RoI over it the per-channel path: the 40 RoIs pooled at
// once equal each pooled alone, in both modes, for a fixed and an adaptive sampling grid, with
// boxes reaching past the image. (The per-channel path is checked against torchvision by the
// importer's reference cases.)
TEST(RoiAlign, ManyRoisAtOnceEqualEachPooledAlone) {
  const int64_t images = 2, channels = 5, height = 30, width = 30, rois = 40, ph = 3, pw = 4;
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> value(-1, 1), corner(-20, 140);
  std::vector<float> x(images * channels * height * width), boxes(rois * 4);
  for (float& v : x) v = value(rng);
  std::vector<int64_t> batch(rois);
  for (int64_t r = 0; r < rois; ++r) {
    float x1 = corner(rng), y1 = corner(rng), x2 = corner(rng), y2 = corner(rng);
    boxes[r * 4 + 0] = std::min(x1, x2), boxes[r * 4 + 1] = std::min(y1, y2);
    boxes[r * 4 + 2] = std::max(x1, x2), boxes[r * 4 + 3] = std::max(y1, y2);
    batch[r] = static_cast<int64_t>(rng() % images);
  }
  const NDArray image = Make<float>({images, channels, height, width}, kF32, x);
  const NDArray scale = Make<float>({1}, kF32, {0.25f});
  const int64_t bins = ph * pw;
  for (const int64_t max_mode : {0, 1}) {
    for (const int64_t sampling_ratio : {2, 0}) {
      const NDArray params = Make<int64_t>({3}, kI64, {max_mode, 1, sampling_ratio});
      NDArray all = NDArray::Empty({rois, channels, ph, pw}, kF32);
      ASSERT_TRUE(Call("mlc.roi_align", {image, Make<float>({rois, 4}, kF32, boxes), Make<int64_t>({rois}, kI64, batch),
                                         params, scale, all})
                      .ok());
      const std::vector<float> together = Values<float>(all, rois * channels * bins);
      for (int64_t r = 0; r < rois; ++r) {
        NDArray one = NDArray::Empty({1, channels, ph, pw}, kF32);
        ASSERT_TRUE(Call("mlc.roi_align",
                         {image, Make<float>({1, 4}, kF32, std::vector<float>(&boxes[r * 4], &boxes[r * 4 + 4])),
                          Make<int64_t>({1}, kI64, {batch[r]}), params, scale, one})
                        .ok());
        const std::vector<float> alone = Values<float>(one, channels * bins);
        for (int64_t i = 0; i < channels * bins; ++i) {
          ASSERT_NEAR(together[r * channels * bins + i], alone[i], 1e-5f)
              << "RoI " << r << ", element " << i << ", max mode " << max_mode << ", sampling ratio " << sampling_ratio;
        }
      }
    }
  }
}

TEST(ScatterElements, AddsDuplicatesAndWrapsNegativeInt32Indices) {
  NDArray data = Make<float>({2, 3}, kF32, {0, 0, 0, 10, 10, 10});
  NDArray idx = Make<int32_t>({2, 2}, kI32, {-1, 2, 0, 0});
  NDArray upd = Make<float>({2, 2}, kF32, {1, 2, 3, 4});
  NDArray out = NDArray::Empty({2, 3}, kF32);
  ASSERT_TRUE(Call("mlc.scatter_elements", {data, idx, upd, Make<int64_t>({2}, kI64, {1, 1}), out}).ok());
  EXPECT_EQ(Values<float>(out, 6), (std::vector<float>{0, 0, 3, 17, 10, 10}));
}

// Indices smaller than data off the axis (a 3 x 2 x 4 block of a 4 x 5 x 6 tensor), along each
// axis, every reduction: each element lands where the ONNX definition puts it, duplicates in
// order (a reference that computes every element's position from scratch).
TEST(ScatterElements, WritesEveryElementWhereItsIndexSaysAlongEachAxis) {
  const std::vector<int64_t> dims = {4, 5, 6}, idims = {3, 2, 4};
  std::mt19937 rng(11);
  std::vector<float> data(4 * 5 * 6), updates(3 * 2 * 4);
  for (float& v : data) v = static_cast<float>(rng() % 9 + 1);
  for (float& v : updates) v = static_cast<float>(rng() % 9 + 1);
  for (int64_t axis = 0; axis < 3; ++axis) {
    std::vector<int64_t> index(updates.size());
    for (int64_t& i : index) i = static_cast<int64_t>(rng() % dims[axis]) - (rng() % 2 ? dims[axis] : 0);
    for (int64_t reduction = 0; reduction <= 4; ++reduction) {
      std::vector<float> want = data;
      for (int64_t j = 0; j < static_cast<int64_t>(index.size()); ++j) {
        int64_t at[3] = {j / 8, j / 4 % 2, j % 4};
        at[axis] = index[j] < 0 ? index[j] + dims[axis] : index[j];
        float& dst = want[(at[0] * 5 + at[1]) * 6 + at[2]];
        const float v = updates[j];
        dst = reduction == 1   ? dst + v
              : reduction == 2 ? dst * v
              : reduction == 3 ? std::max(dst, v)
              : reduction == 4 ? std::min(dst, v)
                               : v;
      }
      NDArray out = NDArray::Empty(dims, kF32);
      ASSERT_TRUE(Call("mlc.scatter_elements",
                       {Make<float>(dims, kF32, data), Make<int64_t>(idims, kI64, index),
                        Make<float>(idims, kF32, updates), Make<int64_t>({2}, kI64, {axis, reduction}), out})
                      .ok());
      EXPECT_EQ(Values<float>(out, want.size()), want) << "axis " << axis << ", reduction " << reduction;
    }
  }
}

TEST(ScatterElements, NamesAnIndexOutOfRange) {
  NDArray data = Make<float>({3}, kF32, {0, 0, 0});
  absl::Status s = Call("mlc.scatter_elements", {data, Make<int64_t>({2}, kI64, {1, 3}), Make<float>({2}, kF32, {1, 1}),
                                                 Make<int64_t>({2}, kI64, {0, 0}), NDArray::Empty({3}, kF32)});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("index 3 at position 1"), std::string::npos) << s.message();
}

TEST(ScatterNd, WritesSlicesAndMultiplies) {
  NDArray data = Make<float>({3, 2}, kF32, {1, 1, 2, 2, 3, 3});
  NDArray idx = Make<int64_t>({2, 1}, kI64, {2, 0});
  NDArray upd = Make<float>({2, 2}, kF32, {5, 6, 7, 8});
  NDArray out = NDArray::Empty({3, 2}, kF32);
  ASSERT_TRUE(Call("mlc.scatter_nd", {data, idx, upd, Make<int64_t>({1}, kI64, {0}), out}).ok());
  EXPECT_EQ(Values<float>(out, 6), (std::vector<float>{7, 8, 2, 2, 5, 6}));
  ASSERT_TRUE(Call("mlc.scatter_nd", {data, idx, upd, Make<int64_t>({1}, kI64, {2}), out}).ok());
  EXPECT_EQ(Values<float>(out, 6), (std::vector<float>{7, 8, 2, 2, 15, 18}));
}

// Greedy NMS as ONNX states it, each candidate checked against every box kept before: what
// mlc.non_max_suppression must select, whatever index it keeps its boxes in.
std::vector<int64_t> NmsByCheckingEveryKeptBox(const std::vector<float>& boxes, const std::vector<float>& scores,
                                               int64_t n, int64_t classes, int64_t max_per_class, float iou,
                                               bool center) {
  struct B {
    float y1, x1, y2, x2;
  };
  auto read = [&](int64_t i) {
    const float* b = &boxes[i * 4];
    if (center) return B{b[1] - b[3] / 2, b[0] - b[2] / 2, b[1] + b[3] / 2, b[0] + b[2] / 2};
    return B{std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3])};
  };
  auto suppresses = [&](const B& a, const B& b) {
    const float area_a = (a.y2 - a.y1) * (a.x2 - a.x1), area_b = (b.y2 - b.y1) * (b.x2 - b.x1);
    if (area_a <= 0 || area_b <= 0) return false;
    const float h = std::min(a.y2, b.y2) - std::max(a.y1, b.y1), w = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
    if (h <= 0 || w <= 0) return false;
    return h * w / (area_a + area_b - h * w) > iou;
  };
  std::vector<int64_t> out;
  for (int64_t c = 0; c < classes; ++c) {
    std::vector<int64_t> order(n);
    for (int64_t i = 0; i < n; ++i) order[i] = i;
    const float* s = &scores[c * n];
    std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return s[x] > s[y]; });
    std::vector<B> kept;
    for (int64_t i : order) {
      if (static_cast<int64_t>(kept.size()) >= max_per_class) break;
      const B box = read(i);
      if (std::any_of(kept.begin(), kept.end(), [&](const B& k) { return suppresses(k, box); })) continue;
      kept.push_back(box);
      out.insert(out.end(), {0, c, i});
    }
  }
  return out;
}

// torchvision's batched NMS (each class's boxes shifted apart, one NMS over all) and ONNX's
// per-class NMS on thousands of random boxes, with boxes that cover the whole image, have no
// area, are inverted (negative width in center form), repeat one another with equal scores,
// or hold NaN: the boxes kept are exactly those of the plain greedy algorithm.
TEST(NonMaxSuppression, KeepsWhatCheckingEveryKeptBoxKeeps) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> unit(0, 1);
  for (const bool center : {false, true}) {
    for (const int64_t classes : {1, 3}) {
      const int64_t n = 3000, shifted_classes = 30;
      std::vector<float> boxes(n * 4), scores(classes * n);
      for (int64_t i = 0; i < n; ++i) {
        const float shift = classes == 1 ? static_cast<float>(i % shifted_classes) * 321.f : 0.f;
        const float y = unit(rng) * 300 + shift, x = unit(rng) * 300 + shift;
        const float h = unit(rng) * 60 + 1, w = unit(rng) * 60 + 1;
        float* b = &boxes[i * 4];
        if (center) {
          b[0] = x + w / 2, b[1] = y + h / 2, b[2] = w, b[3] = h;
        } else {
          b[0] = y, b[1] = x, b[2] = y + h, b[3] = x + w;
        }
      }
      for (float& s : scores) s = unit(rng);
      // The odd boxes.
      const float whole[4] = {-10, -10, 10000, 10000};
      std::copy(whole, whole + 4, &boxes[5 * 4]);
      std::fill(&boxes[6 * 4], &boxes[6 * 4 + 4], 50.f);  // no area (corners) / a point (center)
      if (center) boxes[7 * 4 + 2] = -boxes[7 * 4 + 2];   // negative width
      boxes[8 * 4 + 1] = std::numeric_limits<float>::quiet_NaN();
      std::copy(&boxes[10 * 4], &boxes[10 * 4 + 4], &boxes[11 * 4]);                  // a repeat ...
      for (int64_t c = 0; c < classes; ++c) scores[c * n + 11] = scores[c * n + 10];  // ... of equal score
      for (const int64_t max_per_class : {int64_t{100000}, int64_t{40}}) {
        const std::vector<int64_t> want =
            NmsByCheckingEveryKeptBox(boxes, scores, n, classes, max_per_class, 0.45f, center);
        const AllocatingRuntimeFunction* nms = RuntimeRegistry::Global().FindAllocating("mlc.non_max_suppression");
        ASSERT_NE(nms, nullptr);
        absl::StatusOr<std::vector<NDArray>> got =
            (*nms)({Make<float>({1, n, 4}, kF32, boxes), Make<float>({1, classes, n}, kF32, scores),
                    Make<int64_t>({1}, kI64, {max_per_class}), Make<float>({1}, kF32, {0.45f}),
                    Make<float>({1}, kF32, {0.f}), Make<int64_t>({2}, kI64, {center ? 1 : 0, 0})});
        ASSERT_TRUE(got.ok()) << got.status();
        ASSERT_EQ((*got)[0].dl()->shape[0] * 3, static_cast<int64_t>(want.size()));
        EXPECT_EQ(Values<int64_t>((*got)[0], want.size()), want)
            << "center " << center << ", classes " << classes << ", max " << max_per_class;
        // Some boxes suppressed and many kept (a real test of both), or the limit reached.
        const int64_t kept = static_cast<int64_t>(want.size()) / 3;
        if (max_per_class < n) {
          EXPECT_EQ(kept, max_per_class * classes);
        } else {
          EXPECT_GT(kept, 1000);
          EXPECT_LT(kept, n * classes);
        }
      }
    }
  }
}

// A weight packed for another reduction length (12 taps where x has 5 per row) is refused
// with what was expected, not read past its end.
TEST(Int8Dense, RejectsAWeightPackedForAnotherReduction) {
  const DLDataType kU8{kDLUInt, 8, 1}, kI8{kDLInt, 8, 1};
  NDArray x = NDArray::Empty({3, 5}, kU8), w = NDArray::Empty({1, 3, 16, 4}, kI8), out = NDArray::Empty({3, 4}, kF32);
  NDArray comp = NDArray::Empty({4}, kI32), scale = NDArray::Empty({4}, kF32), bias = NDArray::Empty({4}, kF32);
  absl::Status s = Call("mlc.int8.dense", {x, w, Make<int64_t>({2}, kI64, {0, 0}), comp, scale, bias, out});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("K = 5"), std::string::npos) << s.message();
}

// An output larger than the geometry makes of the input (6 x 6 from a 4 x 4 image, 3 x 3 kernel,
// padding 1) is refused with the geometry, not packed from past the padded image.
TEST(Int8Conv2d, RejectsAnOutputTheGeometryDoesNotMake) {
  const DLDataType kU8{kDLUInt, 8, 1}, kI8{kDLInt, 8, 1};
  NDArray x = NDArray::Empty({1, 2, 4, 4}, kU8), w = NDArray::Empty({3, 20}, kI8);
  NDArray comp = NDArray::Empty({3}, kI32), scale = NDArray::Empty({3}, kF32), bias = NDArray::Empty({3}, kF32);
  //                               stride  pad (t, l, b, r)  dilation  kernel  zero  relu
  NDArray geometry = Make<int64_t>({12}, kI64, {1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 0, 0});
  ASSERT_TRUE(Call("mlc.int8.conv2d", {x, w, geometry, comp, scale, bias, NDArray::Empty({1, 3, 4, 4}, kF32)}).ok());
  absl::Status s = Call("mlc.int8.conv2d", {x, w, geometry, comp, scale, bias, NDArray::Empty({1, 3, 6, 6}, kF32)});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("a 6 x 6 output does not fit a 4 x 4 input"), std::string::npos) << s.message();
}

/*! \brief x[N, C, P] as [N, C/b, P, b]: the channel-blocked layout. */
template <typename T>
std::vector<T> Blocked(const std::vector<T>& x, int64_t n, int64_t c, int64_t pixels, int64_t b) {
  std::vector<T> out(x.size());
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t p = 0; p < pixels; ++p)
        out[((i * (c / b) + ch / b) * pixels + p) * b + ch % b] = x[(i * c + ch) * pixels + p];
    }
  }
  return out;
}

/*! \brief RequantizedLanes of 16 values, as bytes (AVX-512). */
__attribute__((target("avx512f"))) void RequantizeLanesAvx512(const float* v, const Requantize& r, uint8_t* out) {
  alignas(64) int32_t lanes[16];
  _mm512_store_si512(lanes, RequantizedLanes(_mm512_loadu_ps(v), r));
  for (int i = 0; i < 16; ++i) out[i] = static_cast<uint8_t>(lanes[i]);
}

/*! \brief 16 values requantized by the AVX2 StoreRequantized, 8 and then 7 + 1 at a time (its
 *  partial store too). */
__attribute__((target("avx2,fma"))) void RequantizeLanesAvx2(const float* v, const Requantize& r, uint8_t* out) {
  StoreRequantized(out, 8, _mm256_loadu_ps(v), r);
  StoreRequantized(out + 8, 7, _mm256_loadu_ps(v + 8), r);
  StoreRequantized(out + 15, 1, _mm256_set1_ps(v[15]), r);
}

// The vector epilogues' requantize, AVX-512 and AVX2 (one clamp of v / scale to bounds derived
// once, then the rounding), gives RequantizeOne's bytes (clip, divide, round, add the zero point, clamp), for
// uint8 and int8, with and without a clip, a clip partly and wholly outside the type's range,
// on values at and around every rounding tie, beyond the range and infinite. (NaN's byte is
// not specified: the vector paths give the clip's or the type's bound, the scalar one 0.)
TEST(Int8Requantize, OneClampOfTheQuotientGivesTheStepByStepBytes) {
  using Path = void (*)(const float*, const Requantize&, uint8_t*);
  std::vector<std::pair<const char*, Path>> paths;
  for (auto [feature, path] : {std::pair<const char*, Path>{"avx512f", RequantizeLanesAvx512},
                               std::pair<const char*, Path>{"avx2", RequantizeLanesAvx2}}) {
    if (HostHasCpuFeature(feature))
      paths.emplace_back(feature, path);
    else
      std::printf("[  SKIPPED ] the %s epilogue: this CPU (%s) lacks it\n", feature, HostCpuName().c_str());
  }
  ASSERT_FALSE(paths.empty()) << "no vector epilogue runs on this CPU";
  const float inf = std::numeric_limits<float>::infinity();
  struct Config {
    float scale, zero, clip_lo, clip_hi;
    bool is_signed;
  };
  const Config configs[] = {{0.05f, 3, -inf, inf, false}, {0.0235f, 128, 0, 6, false},
                            {0.1f, -5, -inf, inf, true},  {0.013f, 0, -1.5f, 0.7f, true},
                            {0.5f, 10, 200, 300, false},  {0.25f, 200, -400, -300, false},
                            {3e-7f, 7, 0, 6, false}};
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  for (const Config& c : configs) {
    Requantize r{true,      c.scale,  c.zero, c.is_signed ? -128.0f : 0.0f, c.is_signed ? 127.0f : 255.0f,
                 c.clip_lo, c.clip_hi};
    r.PrepareQuotientBounds();
    std::vector<float> v;
    for (int k = -300; k <= 300; ++k) {
      const float tie = (static_cast<float>(k) + 0.5f) * c.scale;  // at and next to each tie
      v.insert(v.end(), {tie, std::nextafter(tie, inf), std::nextafter(tie, -inf), static_cast<float>(k) * c.scale});
    }
    for (int i = 0; i < 2000; ++i) v.push_back(unit(rng) * 400 * c.scale);
    v.insert(v.end(), {inf, -inf, 3e38f, -3e38f, 0.0f, -0.0f});
    while (v.size() % 16 != 0) v.push_back(1.0f);
    for (const auto& [feature, path] : paths) {
      for (size_t i = 0; i < v.size(); i += 16) {
        uint8_t got[16];
        path(v.data() + i, r, got);
        for (int l = 0; l < 16; ++l) {
          ASSERT_EQ(got[l], RequantizeOne(v[i + l], r))
              << feature << ": v " << v[i + l] << ", scale " << c.scale << ", zero " << c.zero << ", clip ["
              << c.clip_lo << ", " << c.clip_hi << "]";
        }
      }
    }
  }
}

// The blocked pointwise convolution (alter-op-layout's form of a 1 x 1 mlc.int8.conv2d) gives
// mlc.int8.conv2d's bytes and floats on the same operands, on every int8 path this CPU has:
// blocks of 8 and 16 in and out, output channels that leave half a register tile (24, 40),
// pixel counts that leave a partial tile (5 x 7), int8 and uint8 input, results requantized
// (with a clip), and float, through ReLU, SiLU and HardSwish; blocks of 4 and a last vector of
// 4 channels (F 20); both weight forms (int8 panels for VNNI, int16 for AVX2).
TEST(Int8Conv2dNchwc, EqualsTheNchwConvolutionOnEveryPath) {
  const DLDataType kU8{kDLUInt, 8, 1}, kI8{kDLInt, 8, 1};
  struct Case {
    int64_t c, f, b, bo;
    bool x_signed, requantized;
    int64_t activation;  // 0 none, 1 ReLU, 2 SiLU
  };
  const Case cases[] = {{32, 24, 16, 8, false, true, 1},   {24, 40, 8, 8, true, true, 0},
                        {16, 64, 16, 16, false, false, 2}, {48, 16, 16, 16, false, true, 2},
                        {8, 32, 8, 16, false, false, 1},   {16, 20, 4, 4, true, false, 3}};
  const int64_t n = 2, h = 5, w = 7, pixels = h * w;
  std::mt19937 rng(11);
  for (const Case& k : cases) {
    std::vector<uint8_t> x(n * k.c * pixels);
    for (uint8_t& v : x) v = static_cast<uint8_t>(rng());
    // The weight in both panel forms: int8 16 channels x 4 taps (VNNI), int16 8 x 2 (AVX2).
    std::vector<int8_t> weight(k.f * k.c), panels(((k.f + 15) / 16) * k.c * 16, 0);
    std::vector<int16_t> panels16(((k.f + 7) / 8) * k.c * 8, 0);
    for (int8_t& v : weight) v = static_cast<int8_t>(rng());
    for (int64_t o = 0; o < k.f; ++o) {
      for (int64_t i = 0; i < k.c; ++i) {
        panels[((o / 16 * (k.c / 4) + i / 4) * 16 + o % 16) * 4 + i % 4] = weight[o * k.c + i];
        panels16[((o / 8 * (k.c / 2) + i / 2) * 8 + o % 8) * 2 + i % 2] = weight[o * k.c + i];
      }
    }
    std::vector<int32_t> comp(k.f);
    std::vector<float> scale(k.f), bias(k.f);
    for (int64_t o = 0; o < k.f; ++o) {
      comp[o] = static_cast<int32_t>(rng() % 20000) - 10000;
      scale[o] = 1e-4f * static_cast<float>(1 + rng() % 50);
      bias[o] = 0.01f * static_cast<float>(static_cast<int>(rng() % 200) - 100);
    }
    const DLDataType x_type = k.x_signed ? kI8 : kU8, out_type = k.requantized ? kU8 : kF32;
    const int64_t out_bytes = k.requantized ? 1 : 4;
    NDArray geometry = Make<int64_t>({12}, kI64, {1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 7, k.activation});
    std::vector<NDArray> common = {Make<int32_t>({k.f}, kI32, comp), Make<float>({k.f}, kF32, scale),
                                   Make<float>({k.f}, kF32, bias)};
    if (k.requantized) common.push_back(Make<float>({4}, kF32, {0.05f, 3.0f, -1.0f, 6.0f}));
    for (const Int8PathInfo& path : Int8Paths()) {
      if (!path.available) {
        std::printf("[ skipped ] int8 path %s: this CPU lacks it\n", path.name);
        continue;
      }
      setenv("MLC_INT8_PATH", path.name, 1);
      std::vector<NDArray> nchw = {Make<uint8_t>({n, k.c, h, w}, x_type, x), Make<int8_t>({k.f, k.c}, kI8, weight),
                                   geometry};
      for (const NDArray& a : common) nchw.push_back(a);
      nchw.push_back(NDArray::Empty({n, k.f, h, w}, out_type));
      ASSERT_TRUE(Call("mlc.int8.conv2d", nchw).ok());
      const size_t bytes = n * k.f * pixels * out_bytes;
      std::vector<uint8_t> want(bytes);
      std::memcpy(want.data(), nchw.back().dl()->data, bytes);
      // Compared as bytes in the blocked layout: the float results bit for bit too.
      const std::vector<uint8_t> want_blocked = k.requantized ? Blocked(want, n, k.f, pixels, k.bo) : [&] {
        std::vector<float> f(n * k.f * pixels), fb;
        std::memcpy(f.data(), want.data(), bytes);
        fb = Blocked(f, n, k.f, pixels, k.bo);
        std::vector<uint8_t> out(bytes);
        std::memcpy(out.data(), fb.data(), bytes);
        return out;
      }();
      // Paths that multiply bytes get the int8 panels, AVX2 the int16 ones, the portable path both.
      std::vector<NDArray> forms;
      if (path.multiplies_int8 || path.path == Int8Path::kPortable)
        forms.push_back(Make<int8_t>({(k.f + 15) / 16, k.c / 4, 16, 4}, kI8, panels));
      if (!path.multiplies_int8) forms.push_back(Make<int16_t>({(k.f + 7) / 8, k.c / 2, 8, 2}, kI16, panels16));
      for (const NDArray& w_panels : forms) {
        std::vector<NDArray> nchwc = {Make<uint8_t>({n, k.c / k.b, h, w, k.b}, x_type, Blocked(x, n, k.c, pixels, k.b)),
                                      w_panels, geometry};
        for (const NDArray& a : common) nchwc.push_back(a);
        nchwc.push_back(NDArray::Empty({n, k.f / k.bo, h, w, k.bo}, out_type));
        absl::Status s = Call("mlc.int8.conv2d_nchwc", nchwc);
        ASSERT_TRUE(s.ok()) << s.message();
        // The profiler's count of its operations: a multiply-add per input channel per output.
        const OperationCount* count = RuntimeRegistry::Global().FindOperationCount("mlc.int8.conv2d_nchwc");
        ASSERT_NE(count, nullptr);
        std::vector<DLTensor*> dl;
        for (NDArray& a : nchwc) dl.push_back(a.dl());
        EXPECT_EQ((*count)(absl::MakeSpan(dl)), 2 * n * k.f * pixels * k.c);
        std::vector<uint8_t> got(bytes);
        std::memcpy(got.data(), nchwc.back().dl()->data, bytes);
        EXPECT_EQ(got, want_blocked) << "path " << path.name << ", "
                                     << (w_panels.dl()->dtype.bits == 16 ? "int16" : "int8") << " panels, C " << k.c
                                     << ", F " << k.f << ", blocks " << k.b << " -> " << k.bo;
        // With a store operand: the same values inside a border (top 1, left 2, bottom 0, right
        // 1) of zeros (the zero point's byte for bytes), and requantized bytes dequantized
        // again as a dequantize kernel computes them, (float)(q - zero) * scale.
        for (const bool dequantized : {false, true}) {
          if (dequantized && !k.requantized) continue;
          const int64_t top = 1, left = 2, oh = h + 1, ow = w + 3, elem = dequantized ? 4 : out_bytes;
          // The border: zeros, or the zero point's byte (3) for bytes.
          std::vector<uint8_t> padded(n * k.f * oh * ow * elem, k.requantized && !dequantized ? 3 : 0);
          for (int64_t plane = 0; plane < n * k.f / k.bo; ++plane) {
            for (int64_t p = 0; p < pixels; ++p) {
              for (int64_t lane = 0; lane < k.bo; ++lane) {
                const int64_t from = (plane * pixels + p) * k.bo + lane;
                const int64_t to = (plane * oh * ow + (p / w + top) * ow + p % w + left) * k.bo + lane;
                if (dequantized) {
                  const float v = static_cast<float>(static_cast<int32_t>(want_blocked[from]) - 3) * 0.05f;
                  std::memcpy(padded.data() + to * 4, &v, 4);
                } else {
                  std::memcpy(padded.data() + to * elem, want_blocked.data() + from * elem, elem);
                }
              }
            }
          }
          std::vector<NDArray> stored = nchwc;
          stored.back() = NDArray::Empty({n, k.f / k.bo, oh, ow, k.bo}, dequantized ? kF32 : out_type);
          stored.insert(stored.end() - 1, Make<int64_t>({5}, kI64, {top, left, 0, 1, dequantized ? 1 : 0}));
          absl::Status st = Call("mlc.int8.conv2d_nchwc", stored);
          ASSERT_TRUE(st.ok()) << st.message();
          std::vector<uint8_t> got_padded(padded.size());
          std::memcpy(got_padded.data(), stored.back().dl()->data, padded.size());
          EXPECT_EQ(got_padded, padded) << "path " << path.name << ", "
                                        << (w_panels.dl()->dtype.bits == 16 ? "int16" : "int8") << " panels, C " << k.c
                                        << ", F " << k.f << ", blocks " << k.b << " -> " << k.bo
                                        << (dequantized ? ", dequantized" : "") << ", bordered";
        }
      }
    }
    unsetenv("MLC_INT8_PATH");
  }
}

// A store operand that is not (top, left, bottom, right, dequantized) with borders >= 0, or that
// dequantizes without a requantize, or an out that lacks its border, is refused.
TEST(Int8Conv2dNchwc, RejectsAStoreItCannotFollow) {
  const DLDataType kU8{kDLUInt, 8, 1}, kI8{kDLInt, 8, 1};
  NDArray x = NDArray::Empty({1, 1, 4, 4, 16}, kU8), w = NDArray::Empty({1, 4, 16, 4}, kI8);
  NDArray comp = NDArray::Empty({16}, kI32), scale = NDArray::Empty({16}, kF32), bias = NDArray::Empty({16}, kF32);
  NDArray geometry = Make<int64_t>({12}, kI64, {1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0});
  NDArray requantize = Make<float>({2}, kF32, {0.1f, 3.0f});
  auto call = [&](std::vector<int64_t> store, bool with_requantize, std::vector<int64_t> out_shape) {
    std::vector<NDArray> args = {x, w, geometry, comp, scale, bias};
    if (with_requantize) args.push_back(requantize);
    args.push_back(Make<int64_t>({5}, kI64, store));
    args.push_back(NDArray::Empty(out_shape, kF32));
    return Call("mlc.int8.conv2d_nchwc", args);
  };
  EXPECT_TRUE(call({1, 1, 1, 1, 1}, true, {1, 1, 6, 6, 16}).ok());
  absl::Status negative = call({-1, 0, 0, 0, 1}, true, {1, 1, 3, 4, 16});
  EXPECT_NE(negative.message().find("borders >= 0"), std::string::npos) << negative.message();
  absl::Status no_requantize = call({0, 0, 0, 0, 1}, false, {1, 1, 4, 4, 16});
  EXPECT_NE(no_requantize.message().find("with requantize"), std::string::npos) << no_requantize.message();
  absl::Status small = call({1, 1, 1, 1, 1}, true, {1, 1, 4, 4, 16});
  EXPECT_NE(small.message().find("store's border"), std::string::npos) << small.message();
}

// A geometry other than a 1 x 1 window at stride 1 without padding is refused with what it is.
TEST(Int8Conv2dNchwc, RejectsAWindowItDoesNotCompute) {
  const DLDataType kU8{kDLUInt, 8, 1}, kI8{kDLInt, 8, 1};
  NDArray x = NDArray::Empty({1, 1, 4, 4, 16}, kU8), w = NDArray::Empty({1, 4, 16, 4}, kI8);
  NDArray comp = NDArray::Empty({16}, kI32), scale = NDArray::Empty({16}, kF32), bias = NDArray::Empty({16}, kF32);
  NDArray geometry = Make<int64_t>({12}, kI64, {1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 0, 0});
  absl::Status s =
      Call("mlc.int8.conv2d_nchwc", {x, w, geometry, comp, scale, bias, NDArray::Empty({1, 1, 4, 4, 16}, kF32)});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("kernel 3 x 3"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace vm
}  // namespace mlc
