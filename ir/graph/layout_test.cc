/*! \file layout_test.cc
 *  \brief Layout strings: parsing and its errors, shapes, indices, and the compile-time transform.
 */
#include "ir/graph/layout.h"

#include "gtest/gtest.h"
#include "ir/tir/prim_expr_ops.h"

namespace mlc {
namespace {

TEST(Layout, ParsesAxesAndSubAxes) {
  absl::StatusOr<Layout> l = Layout::Parse("OIHW16i64o");
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->ndim(), 6u);
  EXPECT_EQ(l->Primal(), "OIHW");
  EXPECT_FALSE(l->IsPrimal());
  EXPECT_EQ(l->Factor('I'), 16);
  EXPECT_EQ(l->Factor('O'), 64);
  EXPECT_EQ(l->Factor('H'), 1);
  EXPECT_EQ(l->PositionOf('i'), 4);
  EXPECT_TRUE(Layout::Parse("NCHW")->IsPrimal());
}

TEST(Layout, BlocksOnlyChannelsAcceptsChannelSubAxesOnly) {
  EXPECT_TRUE(Layout::Parse("NCHW")->BlocksOnlyChannels());
  EXPECT_TRUE(Layout::Parse("NCDHW16c")->BlocksOnlyChannels());
  EXPECT_TRUE(Layout::Parse("OIHW16i64o")->BlocksOnlyChannels());
  EXPECT_FALSE(Layout::Parse("NCHW4h")->BlocksOnlyChannels());
  EXPECT_FALSE(Layout::Parse("OIDHW2d16o")->BlocksOnlyChannels());
}

TEST(Layout, MalformedTextIsAnErrorSayingWhy) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "empty"},
      {"NCHWC", "axis C appears twice"},
      {"NCHWc", "needs a positive factor"},
      {"NCHW0c", "needs a positive factor"},
      {"NcHW4c", "needs a positive factor"},
      {"N4cCHW", "comes before its axis C"},
      {"NCHW4c4c", "appears twice"},
      {"NCHW16", "ends with a factor"},
      {"NC-HW", "unexpected character '-'"},
      {"NCH16W", "a factor must precede a lower-case sub-axis"},
  };
  for (const auto& [text, want] : cases) {
    absl::StatusOr<Layout> l = Layout::Parse(text);
    ASSERT_FALSE(l.ok()) << text;
    EXPECT_NE(std::string(l.status().message()).find(want), std::string::npos) << text << ": " << l.status();
  }
}

TEST(Layout, ShapesConvertAndBlockedAxesMustDivide) {
  Layout l = *Layout::Parse("NCHW16c");
  EXPECT_EQ(*l.ShapeFromPrimal(std::vector<int64_t>{2, 64, 7, 5}), (std::vector<int64_t>{2, 4, 7, 5, 16}));
  EXPECT_EQ(l.ShapeToPrimal(std::vector<int64_t>{2, 4, 7, 5, 16}), (std::vector<int64_t>{2, 64, 7, 5}));
  absl::StatusOr<std::vector<int64_t>> bad = l.ShapeFromPrimal(std::vector<int64_t>{1, 24, 7, 5});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("dimension C (24) is not a multiple of 16"), std::string::npos)
      << bad.status();
  // A symbolic batch passes through; a symbolic blocked axis cannot be blocked.
  tir::Var n = tir::MakeVar("n", DataType::Int64());
  absl::StatusOr<std::vector<tir::PrimExpr>> dims = l.ShapeFromPrimal({n, tir::I64(32), tir::I64(3), tir::I64(3)});
  ASSERT_TRUE(dims.ok());
  EXPECT_TRUE((*dims)[0].same_as(n));
  EXPECT_FALSE(l.ShapeFromPrimal({tir::I64(1), n, tir::I64(3), tir::I64(3)}).ok());
}

TEST(Layout, IndexOfReusesASplitOfTheSameFactorAndDividesOtherwise) {
  Layout l = *Layout::Parse("NCHW8c");
  tir::Var co = tir::MakeVar("co"), ci = tir::MakeVar("ci"), c = tir::MakeVar("c"), z = tir::MakeVar("z");
  std::map<char, Layout::Coord> split = {{'N', Layout::Coord::Whole(z)},
                                         {'C', Layout::Coord::Split(co, ci, 8)},
                                         {'H', Layout::Coord::Whole(z)},
                                         {'W', Layout::Coord::Whole(z)}};
  std::vector<tir::PrimExpr> idx = l.IndexOf(split);
  EXPECT_TRUE(idx[1].same_as(co));
  EXPECT_TRUE(idx[4].same_as(ci));
  std::map<char, Layout::Coord> whole = split;
  whole['C'] = Layout::Coord::Whole(c);
  idx = Layout::Parse("NCHW8c")->IndexOf(whole);
  EXPECT_EQ(idx[1]->kind(), NodeKind::kFloorDiv);
  EXPECT_EQ(idx[4]->kind(), NodeKind::kFloorMod);
  std::map<char, Layout::Coord> back = l.CoordsOf({z, co, z, z, ci});
  EXPECT_TRUE(back.at('C').outer.same_as(co));
  EXPECT_EQ(back.at('C').factor, 8);
}

TEST(Layout, TransformLayoutMovesEveryElementWhereItsIndexSays) {
  // OIHW (6, 4, 1, 2) -> OIHW2i3o: element (o, i, h, w) lands at (o/3, i/2, h, w, i%2, o%3).
  std::vector<int64_t> shape = {6, 4, 1, 2};
  std::vector<double> values(48);
  for (int i = 0; i < 48; ++i) values[i] = i;
  TensorData data = TensorFromDoubles(DataType::Float32(), shape, values);
  absl::StatusOr<TensorData> packed = TransformLayout(data, *Layout::Parse("OIHW"), *Layout::Parse("OIHW2i3o"));
  ASSERT_TRUE(packed.ok()) << packed.status();
  EXPECT_EQ(packed->shape(), (std::vector<int64_t>{2, 2, 1, 2, 2, 3}));
  const float* p = packed->data_as<float>();
  for (int o = 0; o < 6; ++o)
    for (int i = 0; i < 4; ++i)
      for (int w = 0; w < 2; ++w) {
        int64_t dst = ((((o / 3) * 2 + i / 2) * 1 * 2 + w) * 2 + i % 2) * 3 + o % 3;
        EXPECT_EQ(p[dst], (o * 4 + i) * 2 + w) << o << " " << i << " " << w;
      }
  // And back, through another blocking of the same axes.
  absl::StatusOr<TensorData> other = TransformLayout(*packed, *Layout::Parse("OIHW2i3o"), *Layout::Parse("OIHW2o"));
  ASSERT_TRUE(other.ok());
  absl::StatusOr<TensorData> back = TransformLayout(*other, *Layout::Parse("OIHW2o"), *Layout::Parse("OIHW"));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->bytes(), data.bytes());
  EXPECT_FALSE(TransformLayout(data, *Layout::Parse("OIHW"), *Layout::Parse("NCHW")).ok());
  EXPECT_FALSE(TransformLayout(data, *Layout::Parse("OIHW"), *Layout::Parse("OIHW4o")).ok());  // 6 % 4
}

}  // namespace
}  // namespace mlc
