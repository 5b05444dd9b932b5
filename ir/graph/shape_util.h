/*! \file shape_util.h
 *  \brief Static shape arithmetic shared by operator inference, the operator library and the
 *         importers: broadcasting, slices, sliding windows, printing.
 */
#ifndef MLC_IR_GRAPH_SHAPE_UTIL_H_
#define MLC_IR_GRAPH_SHAPE_UTIL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/tir/prim_expr.h"

namespace mlc {
namespace relax {

/*! \brief NumPy broadcasting of two static shapes, or an error naming both shapes. */
absl::StatusOr<std::vector<int64_t>> BroadcastShapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b);

/*! \brief NumPy broadcasting of two shapes whose dimensions may be symbolic. A pair of
 *         dimensions broadcasts when one is 1 or they unify (UnifyDims); a pair that can be
 *         neither proven equal nor assumed to be (n vs 4, n vs m, outside a DimAssumptions
 *         scope) is an error naming both, as the result's shape would depend on values known
 *         only when it runs. */
absl::StatusOr<std::vector<tir::PrimExpr>> BroadcastDims(const std::vector<tir::PrimExpr>& a,
                                                         const std::vector<tir::PrimExpr>& b);

/*! \brief Whether two dimensions are provably equal. */
bool DimsEqual(const tir::PrimExpr& a, const tir::PrimExpr& b);

/*! \brief Run-time checks where shape inference cannot decide. While one of these is alive on
 *  a thread (the BlockBuilder opens one around each operator call's inference), UnifyDims may
 *  assume two dimensions it cannot prove equal (n and m, n and 4) are equal; the builder then
 *  casts the arguments to the assumed shapes with R.match_cast, which checks them when the
 *  program runs. Without one, nothing is assumed and inference reports the mismatch. Scopes
 *  nest; the innermost collects. */
class DimAssumptions {
 public:
  DimAssumptions();
  ~DimAssumptions();
  DimAssumptions(const DimAssumptions&) = delete;
  DimAssumptions& operator=(const DimAssumptions&) = delete;

  /*! \brief `replaced` was assumed to equal `kept`. */
  struct Equality {
    tir::PrimExpr kept, replaced;
  };
  const std::vector<Equality>& assumed() const { return assumed_; }
  /*! \brief The innermost scope on this thread, or nullptr. */
  static DimAssumptions* Current();

 private:
  friend std::optional<tir::PrimExpr> UnifyDims(const tir::PrimExpr& a, const tir::PrimExpr& b);
  std::vector<Equality> assumed_;
  DimAssumptions* outer_;
};

/*! \brief The dimension two dimensions share: `a` when provably equal; when not decidable and
 *         a DimAssumptions scope is open, the one to keep (a constant over an expression, else
 *         `a`), recording the assumption; nullopt when they differ or nothing may be assumed. */
std::optional<tir::PrimExpr> UnifyDims(const tir::PrimExpr& a, const tir::PrimExpr& b);

/*! \brief The dimension a reshape's -1 stands for: the product of `input` over the product of
 *         `others` (the target's other dimensions), with the factors they share cancelled first
 *         ((batch, 16, 1, 1) viewed as (batch, -1) gives 16, not batch * 16 // batch). */
tir::PrimExpr InferredReshapeDim(const std::vector<tir::PrimExpr>& input, const std::vector<tir::PrimExpr>& others);

/*! \brief "(n, 128)" for messages; constants print as ShapeToString does. */
std::string DimsToString(const std::vector<tir::PrimExpr>& dims);

/*! \brief The dimensions as constants, -1 where symbolic; an error naming `what` when a
 *         dimension in `need_static` (negative: from the end) is symbolic. Operators that
 *         compute from some dimensions (a convolution's channels and image) pass the others
 *         (the batch) through as they are. */
absl::StatusOr<std::vector<int64_t>> KnownValues(const std::vector<tir::PrimExpr>& dims,
                                                 const std::vector<int>& need_static, const std::string& what);

/*! \brief "(1, 128)" for messages. */
std::string ShapeToString(const std::vector<int64_t>& shape);

/*! \brief One dimension of a NumPy / ONNX slice x[begin:end:step] (step != 0): negative bounds
 *  count from the end, bounds are clamped; `start` is the first index, `extent` how many. */
struct SliceRange {
  int64_t start;
  int64_t extent;
};
SliceRange ClampSlice(int64_t dim, int64_t begin, int64_t end, int64_t step);
/*! \brief x[begin:] with begin < 0, step 1 (end: INT64_MAX, "to the end"): the last -begin
 *  elements, the one slice of an axis of symbolic length whose extent is known (a decoder's
 *  last position, x[:, -1:]). On such an axis the length must be at least -begin. */
bool IsTailSlice(int64_t begin, int64_t end, int64_t step);
/*! \brief The length of arange(start, limit, step) whose limit is a size (>= 0), for an
 *  integer start and a positive integer step: ceil((limit - start) / step), at least 0. */
tir::PrimExpr ArangeLength(const tir::PrimExpr& limit, int64_t start, int64_t step);
/*! \brief The same for constant bounds (any step but 0). */
int64_t ArangeLength(double start, double limit, double step);
/*! \brief ClampSlice on an axis of any length: start and extent as expressions of it (min/max
 *  of its clamps; constants when the length is). A bound of magnitude INT32_MAX or more means
 *  "from the start" / "to the end". A tail slice (IsTailSlice) keeps its static extent. */
struct SliceRangeExpr {
  tir::PrimExpr start;
  tir::PrimExpr extent;
};
SliceRangeExpr ClampSlice(const tir::PrimExpr& dim, int64_t begin, int64_t end, int64_t step);

/*! \brief Checks a sliding window's attributes (kernel, strides, dilation: positive; padding:
 *         not negative), naming the one that is not. */
absl::Status CheckWindowAttrs(const std::vector<int64_t>& kernel, const std::vector<int64_t>& strides,
                              const std::vector<int64_t>& dilation, const std::vector<int64_t>& padding);

/*! \brief Output extent of a sliding window (convolution, pooling) along one dimension; 0 when
 *  the window does not fit the padded input. With `ceil_mode` (pooling) the division rounds up,
 *  but the last window must start inside the input or its leading padding (PyTorch and ONNX
 *  agree). */
int64_t WindowExtent(int64_t in, int64_t pad_before, int64_t pad_after, int64_t kernel, int64_t dilation,
                     int64_t stride, bool ceil_mode = false);
/*! \brief The trailing padding after which `out` windows fit in floor mode: pad_after, or more
 *  where ceil_mode's last windows reach past the input and its padding (a split-out pad, a
 *  window read tap by tap). */
int64_t TrailingPaddingFor(int64_t out, int64_t in, int64_t pad_before, int64_t pad_after, int64_t kernel,
                           int64_t dilation, int64_t stride);

}  // namespace relax
}  // namespace mlc

#endif  // MLC_IR_GRAPH_SHAPE_UTIL_H_
