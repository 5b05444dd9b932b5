/*! \file npy_test.cc
 *  \brief .npy / .npz reading and writing.
 */
#include "support/npy.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mlc {
namespace {

TensorData Iota(std::vector<int64_t> shape) {
  TensorData t(DataType::Float32(), shape);
  float* p = static_cast<float*>(t.mutable_data());
  for (int64_t i = 0; i < t.NumElements(); ++i) p[i] = static_cast<float>(i);
  return t;
}

TEST(Npy, RoundTrips) {
  TensorData t = Iota({2, 3, 4});
  absl::StatusOr<TensorData> back = ParseNpy(SerializeNpy(t), "t.npy");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->shape(), t.shape());
  EXPECT_EQ(back->bytes(), t.bytes());
  TensorData scalar = Iota({});
  EXPECT_EQ(ParseNpy(SerializeNpy(scalar), "s.npy")->shape(), std::vector<int64_t>{});
}

TEST(Npy, ConvertsFortranOrder) {
  // A (2, 3) array [[0, 1, 2], [3, 4, 5]] stored column-major: 0 3 1 4 2 5.
  std::string header = "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }";
  header.append(64 - (10 + header.size() + 1) % 64, ' ');
  header += '\n';
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) + '\0' + header;
  for (float v : {0.f, 3.f, 1.f, 4.f, 2.f, 5.f}) bytes.append(reinterpret_cast<const char*>(&v), 4);
  absl::StatusOr<TensorData> t = ParseNpy(bytes, "f.npy");
  ASSERT_TRUE(t.ok()) << t.status();
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t->data_as<float>()[i], static_cast<float>(i));
}

TEST(Npy, RejectsBadInput) {
  EXPECT_THAT(std::string(ParseNpy("garbage", "g.npy").status().message()),
              ::testing::HasSubstr("g.npy: not a .npy file"));
  std::string cut = SerializeNpy(Iota({4, 4}));
  EXPECT_THAT(std::string(ParseNpy(cut.substr(0, cut.size() - 3), "c.npy").status().message()),
              ::testing::HasSubstr("data bytes"));
}

TEST(Npz, RoundTrips) {
  std::string path = absl::StrCat(::testing::TempDir(), "/p.npz");
  ASSERT_TRUE(WriteNpz(path, {{"w0", Iota({3, 2})}, {"b0", Iota({3})}}).ok());
  absl::StatusOr<std::map<std::string, TensorData>> arrays = ReadNpz(path);
  ASSERT_TRUE(arrays.ok()) << arrays.status();
  ASSERT_EQ(arrays->size(), 2u);
  EXPECT_EQ(arrays->at("w0").bytes(), Iota({3, 2}).bytes());
  EXPECT_FALSE(ReadNpz("/nonexistent.npz").ok());
}

}  // namespace
}  // namespace mlc
