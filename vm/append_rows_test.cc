/*! \file append_rows_test.cc
 *  \brief NDArray::AppendRows, what R.cache_append runs: in place when the storage has room
 *         after the cache, a copy with room to grow otherwise; the tensor appended to never
 *         changes, and an older cache (a branch) is copied, not overwritten.
 */
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "vm/ndarray.h"

namespace mlc {
namespace vm {
namespace {

const DLDataType kF32{kDLFloat, 32, 1};

// Rows of [1, n, 2] whose values are row * 10 + column, from row `first` on.
NDArray Rows(int64_t first, int64_t n) {
  NDArray a = NDArray::Empty({1, n, 2}, kF32);
  float* p = static_cast<float*>(a.data());
  for (int64_t r = 0; r < n; ++r) {
    for (int c = 0; c < 2; ++c) p[r * 2 + c] = static_cast<float>((first + r) * 10 + c);
  }
  return a;
}

void ExpectRows(const NDArray& a, int64_t n) {
  ASSERT_EQ(a.shape(), (std::vector<int64_t>{1, n, 2}));
  const float* p = static_cast<const float*>(a.data());
  for (int64_t r = 0; r < n; ++r) {
    for (int c = 0; c < 2; ++c) EXPECT_EQ(p[r * 2 + c], static_cast<float>(r * 10 + c)) << "row " << r;
  }
}

TEST(AppendRows, WritesInPlaceWhileTheStorageHasRoom) {
  NDArray cache = *NDArray::AllocateWithCapacity({1, 0, 2}, kF32, 5 * 2 * sizeof(float));
  bool in_place = false;
  NDArray a = *NDArray::AppendRows(cache, Rows(0, 3), 1, &in_place);  // the prompt
  EXPECT_TRUE(in_place);
  NDArray b = *NDArray::AppendRows(a, Rows(3, 1), 1, &in_place);  // a decode step
  EXPECT_TRUE(in_place);
  EXPECT_TRUE(b.SameStorage(cache));
  EXPECT_EQ(b.data(), cache.data());
  ExpectRows(b, 4);
  ExpectRows(a, 3);  // what was appended to still reads as before
  NDArray c = *NDArray::AppendRows(b, Rows(4, 1), 1, &in_place);
  EXPECT_TRUE(in_place);
  ExpectRows(c, 5);
  // Full: the next append copies into new storage with room for as many rows again.
  NDArray d = *NDArray::AppendRows(c, Rows(5, 1), 1, &in_place);
  EXPECT_FALSE(in_place);
  EXPECT_FALSE(d.SameStorage(c));
  ExpectRows(d, 6);
  NDArray e = *NDArray::AppendRows(d, Rows(6, 1), 1, &in_place);
  EXPECT_TRUE(in_place);
  ExpectRows(e, 7);
}

TEST(AppendRows, AnOlderCacheIsCopiedNotOverwritten) {
  NDArray cache = *NDArray::AllocateWithCapacity({1, 0, 2}, kF32, 8 * 2 * sizeof(float));
  bool in_place = false;
  NDArray a = *NDArray::AppendRows(cache, Rows(0, 2), 1, &in_place);
  NDArray b = *NDArray::AppendRows(a, Rows(2, 1), 1, &in_place);
  ASSERT_TRUE(in_place);
  // Appending to `a` again (another continuation of the same prefix) must not write over b's row.
  NDArray row = Rows(2, 1);
  static_cast<float*>(row.data())[0] = -1;  // a different third row
  NDArray branch = *NDArray::AppendRows(a, row, 1, &in_place);
  EXPECT_FALSE(in_place);
  ExpectRows(b, 3);  // untouched
  EXPECT_EQ(static_cast<const float*>(branch.data())[4], -1);
}

TEST(AppendRows, AnOrdinaryTensorIsCopiedWithRoomToGrow) {
  bool in_place = true;
  NDArray a = *NDArray::AppendRows(Rows(0, 2), Rows(2, 2), 1, &in_place);
  EXPECT_FALSE(in_place);
  ExpectRows(a, 4);
  NDArray b = *NDArray::AppendRows(a, Rows(4, 3), 1, &in_place);
  EXPECT_TRUE(in_place);  // the copy left room for as many rows again
  ExpectRows(b, 7);
}

TEST(AppendRows, NamesShapesThatDoNotLineUp) {
  bool in_place = false;
  absl::StatusOr<NDArray> r = NDArray::AppendRows(Rows(0, 2), NDArray::Empty({1, 2, 3}, kF32), 1, &in_place);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cannot append float32 (1, 2, 3) to float32 (1, 2, 2) along axis 1"),
            std::string::npos)
      << r.status().message();
  // Rows that would not follow the cache's bytes: an axis before the appended one is not 1.
  r = NDArray::AppendRows(NDArray::Empty({2, 3}, kF32), NDArray::Empty({2, 1}, kF32), 1, &in_place);
  EXPECT_FALSE(r.ok());
}

}  // namespace
}  // namespace vm
}  // namespace mlc
