/*! \file library_test.cc
 *  \brief The runtime library's selection, scatter and int8 functions called directly: orders,
 *         ties, reductions, int32 indices, and errors for bad indices, shapes and geometry.
 */
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "vm/ndarray.h"
#include "vm/runtime_registry.h"

namespace mlc {
namespace vm {
namespace {

template <typename T>
NDArray Make(std::vector<int64_t> shape, DLDataType dtype, const std::vector<T>& values) {
  NDArray a = NDArray::Empty(std::move(shape), dtype);
  std::memcpy(a.dl()->data, values.data(), values.size() * sizeof(T));
  return a;
}
template <typename T>
std::vector<T> Values(const NDArray& a, size_t n) {
  const T* p = static_cast<const T*>(a.dl()->data);
  return std::vector<T>(p, p + n);
}

const DLDataType kF32{kDLFloat, 32, 1}, kI64{kDLInt, 64, 1}, kI32{kDLInt, 32, 1};

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

TEST(TopK, RejectsAKLargerThanTheAxis) {
  NDArray x = Make<float>({3}, kF32, {1, 2, 3});
  absl::Status s =
      Call("mlc.topk", {x, Make<int64_t>({2}, kI64, {0, 1}), NDArray::Empty({4}, kF32), NDArray::Empty({4}, kI64)});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("k = 4"), std::string::npos) << s.message();
}

TEST(ScatterElements, AddsDuplicatesAndWrapsNegativeInt32Indices) {
  NDArray data = Make<float>({2, 3}, kF32, {0, 0, 0, 10, 10, 10});
  NDArray idx = Make<int32_t>({2, 2}, kI32, {-1, 2, 0, 0});
  NDArray upd = Make<float>({2, 2}, kF32, {1, 2, 3, 4});
  NDArray out = NDArray::Empty({2, 3}, kF32);
  ASSERT_TRUE(Call("mlc.scatter_elements", {data, idx, upd, Make<int64_t>({2}, kI64, {1, 1}), out}).ok());
  EXPECT_EQ(Values<float>(out, 6), (std::vector<float>{0, 0, 3, 17, 10, 10}));
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

}  // namespace
}  // namespace vm
}  // namespace mlc
