/*! \file layout.h
 *  \brief Data layouts written as TVM writes them: "NCHW", "NCHW16c", "OIHW16i64o".
 *
 *  A layout lists a tensor's axes in memory order. An upper-case letter is a primal axis (N,
 *  C, H, W, O, I, ...); a number and a lower-case letter is a sub-axis of that primal axis, its
 *  innermost `factor` positions, so "NCHW16c" is [N, C / 16, H, W, 16] with channel
 *  c = c_outer * 16 + c_inner. Every primal axis appears once and has at most one sub-axis,
 *  after it. The primal layout ("NCHW") is the layout with the sub-axes left out.
 *
 *  Compiler passes choose blocked layouts (alter-op-layout), operators take them as attributes
 *  (nn.conv2d's data_layout, ...), `layout_transform` converts between two layouts of one
 *  primal layout, and the operator library indexes tensors through IndexOf.
 */
#ifndef MLC_IR_GRAPH_LAYOUT_H_
#define MLC_IR_GRAPH_LAYOUT_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/tir/prim_expr.h"
#include "support/tensor_data.h"

namespace mlc {

class Layout {
 public:
  /*! \brief One axis in memory order: a primal axis ('C') or a sub-axis ('c', factor 16). */
  struct Axis {
    char name;
    int64_t factor;  // sub-axes only; 0 for a primal axis
    bool primal() const { return factor == 0; }
  };

  /*! \brief Parses "NCHW16c"; an error names the text and what is wrong with it. */
  static absl::StatusOr<Layout> Parse(const std::string& text);

  const std::string& name() const { return name_; }
  const std::vector<Axis>& axes() const { return axes_; }
  size_t ndim() const { return axes_.size(); }
  /*! \brief The primal layout: "NCHW" for "NCHW16c". */
  std::string Primal() const;
  bool IsPrimal() const { return Primal() == name_; }
  /*! \brief The factor of `primal`'s sub-axis ('C' in "NCHW16c": 16), 1 when it has none. */
  int64_t Factor(char primal) const;
  /*! \brief Whether every sub-axis splits a channel axis (C of data, I or O of weights):
   *  "NCHW16c", "OIDHW16i16o", not "NCHW4h". */
  bool BlocksOnlyChannels() const;
  /*! \brief Where `name` (a primal 'C' or a sub-axis 'c') is among the axes, or -1. */
  int PositionOf(char name) const;

  /*! \brief The shape in this layout of a tensor whose primal shape (in Primal() order) is
   *  `primal`; a blocked dimension must be a constant multiple of its factor. */
  absl::StatusOr<std::vector<tir::PrimExpr>> ShapeFromPrimal(const std::vector<tir::PrimExpr>& primal) const;
  absl::StatusOr<std::vector<int64_t>> ShapeFromPrimal(const std::vector<int64_t>& primal) const;
  /*! \brief The primal shape of a tensor of shape `shape` in this layout. */
  std::vector<tir::PrimExpr> ShapeToPrimal(const std::vector<tir::PrimExpr>& shape) const;
  std::vector<int64_t> ShapeToPrimal(const std::vector<int64_t>& shape) const;

  /*! \brief A coordinate along a primal axis: whole, or already split into an outer and an
   *  inner part of `factor` (a loop over a blocked axis), which IndexOf reuses as they are when
   *  the layout blocks that axis by the same factor. */
  struct Coord {
    tir::PrimExpr whole;  // when not split
    tir::PrimExpr outer, inner;
    int64_t factor = 0;
    static Coord Whole(tir::PrimExpr v) { return Coord{std::move(v), {}, {}, 0}; }
    static Coord Split(tir::PrimExpr outer, tir::PrimExpr inner, int64_t factor);
    /*! \brief The coordinate as one value (outer * factor + inner when split). */
    tir::PrimExpr Value() const;
  };
  /*! \brief The index into a tensor of this layout of the element at the primal coordinates
   *  `coords` (by primal axis letter). */
  std::vector<tir::PrimExpr> IndexOf(const std::map<char, Coord>& coords) const;
  /*! \brief The primal coordinates of the element at `index` of a tensor in this layout. */
  std::map<char, Coord> CoordsOf(const std::vector<tir::PrimExpr>& index) const;

 private:
  std::string name_;
  std::vector<Axis> axes_;
};

/*! \brief `data` (in layout `src`) in layout `dst`, which must have the same primal layout;
 *  computed here for constants (weights packed at compile time), at memory speed. */
absl::StatusOr<TensorData> TransformLayout(const TensorData& data, const Layout& src, const Layout& dst);

}  // namespace mlc

#endif  // MLC_IR_GRAPH_LAYOUT_H_
