/*! \file topi.h
 *  \brief The operator library: tensor-expression computes with NumPy semantics, named and
 *         shaped as TVM's topi prints them (T_add, T_matmul_NT, compute...). Importers and the
 *         legalize pass build loop programs from these; more operators go in this folder.
 *
 *  Shapes may be symbolic where the operator allows it. Every function checks its inputs and
 *  returns an error naming the operator and the offending shapes.
 */
#ifndef MLC_IR_TOPI_TOPI_H_
#define MLC_IR_TOPI_TOPI_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/te/tensor.h"

namespace mlc {
namespace topi {

using te::Tensor;

// Elementwise with NumPy broadcasting ("T_add", "T_subtract", ...).
absl::StatusOr<Tensor> Add(const Tensor& a, const Tensor& b);
absl::StatusOr<Tensor> Subtract(const Tensor& a, const Tensor& b);
absl::StatusOr<Tensor> Multiply(const Tensor& a, const Tensor& b);
absl::StatusOr<Tensor> Divide(const Tensor& a, const Tensor& b);
absl::StatusOr<Tensor> Maximum(const Tensor& a, const Tensor& b);
absl::StatusOr<Tensor> Minimum(const Tensor& a, const Tensor& b);
absl::StatusOr<Tensor> Power(const Tensor& a, const Tensor& b);
/*! \brief Python's / NumPy's x % y: the result has the divisor's sign. */
absl::StatusOr<Tensor> FloorMod(const Tensor& a, const Tensor& b);
/*! \brief C's fmod: the result has the dividend's sign (truncating division). */
absl::StatusOr<Tensor> TruncMod(const Tensor& a, const Tensor& b);
/*! \brief A broadcasting comparison or logical operator: `op` is one of equal, not_equal,
 *         less, less_equal, greater, greater_equal (any dtype, bool result), logical_and,
 *         logical_or, logical_xor (bool operands). */
absl::StatusOr<Tensor> Compare(const Tensor& a, const Tensor& b, const std::string& op);

/*! \brief a * b + c, all of one shape. */
absl::StatusOr<Tensor> EwiseFma(const Tensor& a, const Tensor& b, const Tensor& c);

/*! \brief f applied to every element ("compute"); the unary operators (ir/ops/elementwise.cc)
 *         are each one such formula. */
Tensor Unary(const Tensor& x, const std::function<tir::PrimExpr(const tir::PrimExpr&)>& f);
/*! \brief max(x, 0), as the seeds' topi.nn.relu. */
Tensor Relu(const Tensor& x);

/*! \brief x @ w.T with x (..., k) and w (n, k) ("T_matmul_NT"). */
absl::StatusOr<Tensor> Dense(const Tensor& x, const Tensor& w);
/*! \brief NumPy matmul: 1-D promotion and batch broadcasting ("T_matmul"). */
absl::StatusOr<Tensor> Matmul(const Tensor& a, const Tensor& b);
/*! \brief Permutes dimensions; empty `axes` reverses them ("T_transpose"). */
absl::StatusOr<Tensor> Transpose(const Tensor& x, std::vector<int64_t> axes);

/*! \brief How Pad fills the added elements: with a value, a copy of the edge element, or the
 *  elements mirrored about the edge (not repeating it, as NumPy's and ONNX's "reflect"). */
enum class PadMode { kConstant, kEdge, kReflect };

/*! \brief x with before[d] / after[d] elements added around each dimension d ("pad_temp"),
 *  `value` for kConstant (reflect needs widths below the dimension). */
absl::StatusOr<Tensor> Pad(const Tensor& x, const std::vector<int64_t>& before, const std::vector<int64_t>& after,
                           tir::PrimExpr value, PadMode mode = PadMode::kConstant);
/*! \brief Convolution over the spatial axes of the data's layout: 2-D (NCHW, weight OIHW) or
 *  3-D (NCDHW, weight OIDHW), the channels optionally blocked (NCHW16c, OIHW16i16o; ir/graph/layout.h).
 *  `padding` holds the widths before each spatial axis, then those after ((top, left, bottom,
 *  right) in 2-D); an empty `out_layout` is the data's. With the input channels blocked as the
 *  data blocks them, the reduction runs over (ic_outer, k..., ic_inner), so every access is
 *  affine ("conv2d_NCHWc", as TVM's x86 convolution). */
absl::StatusOr<Tensor> Conv(const Tensor& x, const Tensor& w, const std::vector<int64_t>& strides,
                            const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation, int64_t groups,
                            const std::string& data_layout = "NCHW", const std::string& kernel_layout = "OIHW",
                            const std::string& out_layout = "");
/*! \brief The windows of an NCHW convolution as the columns of a matrix [N, C*KH*KW, columns],
 *  row (c, kh, kw). Column q is output pixel (q / pitch, q % pitch), the pitch being the width
 *  of the input's stride phases (the padded input itself for unit strides; with strides s it is
 *  first split into s_h x s_w phases, stored once), so each row is a contiguous run of a phase;
 *  columns past the output width are junk. `columns` is rounded up to a multiple of
 *  `column_tile`; the extra columns read zero padding or junk, never out of bounds. */
absl::StatusOr<Tensor> Im2col(const Tensor& x, const std::vector<int64_t>& kernel_size,
                              const std::vector<int64_t>& strides, const std::vector<int64_t>& padding,
                              const std::vector<int64_t>& dilation, int64_t column_tile);
/*! \brief What Im2col makes of an NCHW input of shape `xs`: its column count (junk included)
 *  and whether it first copies the input (padding, grown for the junk columns' reach, or stride
 *  phases). */
struct Im2colLayout {
  int64_t columns = 0;
  bool copies_input = false;
};
absl::StatusOr<Im2colLayout> Im2colLayoutOf(const std::vector<int64_t>& xs, const std::vector<int64_t>& kernel_size,
                                            const std::vector<int64_t>& strides, const std::vector<int64_t>& padding,
                                            const std::vector<int64_t>& dilation, int64_t column_tile);
/*! \brief NCHW convolution with the weight flattened to [O, C*KH*KW], as the GEMM
 *  weight @ Im2col(x) ([N, O, columns], block "conv2d_gemm") whose pixel columns are then
 *  gathered into [N, O, OH, OW]. */
absl::StatusOr<Tensor> Conv2dGemm(const Tensor& x, const Tensor& w2d, const std::vector<int64_t>& kernel_size,
                                  const std::vector<int64_t>& strides, const std::vector<int64_t>& padding,
                                  const std::vector<int64_t>& dilation, int64_t column_tile);
/*! \brief Max (is_max) or average pooling over the spatial axes of `layout`: NCHW, NCDHW, or
 *  their channel-blocked forms; per-axis attributes as Conv's. */
absl::StatusOr<Tensor> Pool(const Tensor& x, bool is_max, const std::vector<int64_t>& pool_size,
                            const std::vector<int64_t>& strides, const std::vector<int64_t>& padding,
                            const std::vector<int64_t>& dilation, bool count_include_pad, bool ceil_mode = false,
                            const std::string& layout = "NCHW");
/*! \brief Mean over H and W, keeping them as 1 (NCHW or NCHW<b>c). */
absl::StatusOr<Tensor> GlobalAvgPool2d(const Tensor& x, const std::string& layout = "NCHW");
/*! \brief x (in layout `src`) in layout `dst` of the same primal axes ("T_layout_trans"). */
absl::StatusOr<Tensor> LayoutTransform(const Tensor& x, const std::string& src, const std::string& dst);

enum class ReduceOp { kSum, kMean, kMax, kMin, kProd };
/*! \brief Reduction over `axes` (empty: all), dropping them or keeping them as 1. */
absl::StatusOr<Tensor> Reduce(const Tensor& x, ReduceOp op, const std::vector<int64_t>& axes, bool keepdims);
/*! \brief Running sums along `axis` (from the end with `reverse`; `exclusive` leaves each
 *  element out of its own sum). */
absl::StatusOr<Tensor> Cumsum(const Tensor& x, int64_t axis, bool exclusive, bool reverse);
/*! \brief The index (int64) of the largest (`largest`) or smallest element along `axis`; on
 *  ties the first, or the last with `last`. */
absl::StatusOr<Tensor> ArgReduce(const Tensor& x, int64_t axis, bool keepdims, bool last, bool largest);
/*! \brief exp(x - max) / sum(exp(x - max)) along `axis`. */
absl::StatusOr<Tensor> Softmax(const Tensor& x, int64_t axis);
/*! \brief (x - mean) / sqrt(var + epsilon) * gamma + beta over the last `num_axes` dimensions. */
absl::StatusOr<Tensor> LayerNorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, int64_t num_axes,
                                 double epsilon);
/*! \brief x[begin:end:stride] along each of `axes` (NumPy clamping; negative values count from the end). */
absl::StatusOr<Tensor> StridedSlice(const Tensor& x, const std::vector<int64_t>& axes,
                                    const std::vector<int64_t>& begin, const std::vector<int64_t>& end,
                                    const std::vector<int64_t>& strides);

/*! \brief Inputs joined along `axis` ("T_concat"). */
absl::StatusOr<Tensor> Concatenate(const std::vector<Tensor>& xs, int64_t axis);
/*! \brief x's slices at `indices` along `axis` (numpy.take; negative indices from the end). */
absl::StatusOr<Tensor> Take(const Tensor& x, const Tensor& indices, int64_t axis);
/*! \brief NumPy's take_along_axis (ONNX GatherElements): out[i] = x[i with its `axis` entry
 *  replaced by indices[i]]; the result has the indices' shape. */
absl::StatusOr<Tensor> TakeAlongAxis(const Tensor& x, const Tensor& indices, int64_t axis);
/*! \brief x broadcast (NumPy rules) to `shape`. */
absl::StatusOr<Tensor> BroadcastTo(const Tensor& x, const std::vector<tir::PrimExpr>& shape);
/*! \brief cond ? a : b elementwise, with broadcasting; a non-bool cond is compared with 0. */
absl::StatusOr<Tensor> Where(const Tensor& cond, const Tensor& a, const Tensor& b);
/*! \brief Elementwise conversion to `dtype`. */
Tensor Cast(const Tensor& x, DataType dtype);

/*! \brief start, start + step, ... (`count` elements, which may be symbolic) in `dtype` ("T_arange"). */
absl::StatusOr<Tensor> Arange(const tir::PrimExpr& count, double start, double step, DataType dtype);
/*! \brief The extent of x's `axis` as a 0-d int64 tensor ("T_dim_value"); x's elements are not read. */
absl::StatusOr<Tensor> DimValue(const Tensor& x, int64_t axis);
/*! \brief x where its last two indices (r, c) have c - r >= k (upper, "T_triu") or c - r <= k
 *  (lower, "T_tril"), 0 elsewhere (NumPy's triu/tril, ONNX Trilu). */
absl::StatusOr<Tensor> Triangle(const Tensor& x, int64_t k, bool upper);

/*! \brief saturate(round_half_even(x / scale) + zero_point) as `out_dtype`. The scale and
 *  zero point are scalars (0-d or one element) or vectors along x's `axis` (per channel). */
absl::StatusOr<Tensor> Quantize(const Tensor& x, const Tensor& scale, const Tensor& zero_point, int64_t axis,
                                DataType out_dtype);
/*! \brief (x - zero_point) * scale in the scale's dtype; parameters as for Quantize. */
absl::StatusOr<Tensor> Dequantize(const Tensor& x, const Tensor& scale, const Tensor& zero_point, int64_t axis);

/*! \brief Row-major reshape to a static shape of the same size ("T_reshape"). */
absl::StatusOr<Tensor> Reshape(const Tensor& x, const std::vector<int64_t>& shape);
absl::StatusOr<Tensor> Reshape(const Tensor& x, const std::vector<tir::PrimExpr>& shape);

/*! \brief The static extent of each dimension, or an error naming `op`. */
absl::StatusOr<std::vector<int64_t>> StaticShape(const Tensor& t, const std::string& op);
/*! \brief The extents as constants, -1 where symbolic; an error naming `op` when one listed in
 *         `need_static` (negative: from the end) is symbolic. */
absl::StatusOr<std::vector<int64_t>> KnownExtents(const Tensor& t, const std::vector<int>& need_static,
                                                  const std::string& op);

}  // namespace topi
}  // namespace mlc

#endif  // MLC_IR_TOPI_TOPI_H_
