/*! \file op_attrs.h
 *  \brief The typed attributes of the operator library, each declared once with its
 *         defaults (see ir/graph/attr_schema.h). Inference, legalization, the passes and the
 *         importers read and build attributes through these structs.
 */
#ifndef MLC_IR_OPS_OP_ATTRS_H_
#define MLC_IR_OPS_OP_ATTRS_H_

#include <string>
#include <vector>

#include "ir/graph/attr_schema.h"

namespace mlc {
namespace relax {

struct MatmulAttrs {
  DataType out_dtype = DataType::Void();
  void VisitAttrs(AttrVisitor* v) {
    v->Field("out_dtype", &out_dtype)
        .Default(DataType::Void())
        .Describe("result dtype; \"void\" keeps the operands' dtype");
  }
};

struct Conv2DAttrs {
  static constexpr char kSpatialAxes[] = "HW";  // the window's axes, in layout letters
  std::vector<int64_t> strides, padding, dilation;
  int64_t groups;
  std::string data_layout = "NCHW", kernel_layout = "OIHW", out_layout = "";
  void VisitAttrs(AttrVisitor* v) {
    v->Field("strides", &strides).Default({1, 1}).Length(2).Describe("(stride_h, stride_w)");
    v->Field("padding", &padding).Default({0, 0, 0, 0}).Length(4).Describe("(top, left, bottom, right)");
    v->Field("dilation", &dilation).Default({1, 1}).Length(2).Describe("(dilation_h, dilation_w)");
    v->Field("groups", &groups).Default(1).Describe("channel groups (depthwise: groups = channels)");
    v->Field("data_layout", &data_layout)
        .Default("NCHW")
        .Describe("the data's layout: NCHW, or channels blocked (NCHW16c)");
    v->Field("kernel_layout", &kernel_layout)
        .Default("OIHW")
        .Describe(
            "the weight's layout: OIHW, or channels blocked (OIHW16i64o: input channels by the data's block, outputs "
            "by 64)");
    v->Field("out_layout", &out_layout)
        .Default("")
        .Describe("the result's layout (NCHW or NCHW<b>c); \"\": the data's");
  }
  /*! \brief NCHW data and result, OIHW weight: what every pass before alter-op-layout sees. */
  bool IsDefaultLayout() const {
    return data_layout == "NCHW" && kernel_layout == "OIHW" && (out_layout.empty() || out_layout == "NCHW");
  }
  const std::string& ResultLayout() const { return out_layout.empty() ? data_layout : out_layout; }
};

/*! \brief nn.conv3d: NCDHW data (channels optionally blocked), OIDHW weight. */
struct Conv3DAttrs {
  static constexpr char kSpatialAxes[] = "DHW";
  std::vector<int64_t> strides, padding, dilation;
  int64_t groups;
  std::string data_layout = "NCDHW", kernel_layout = "OIDHW", out_layout = "";
  void VisitAttrs(AttrVisitor* v) {
    v->Field("strides", &strides).Default({1, 1, 1}).Length(3).Describe("(stride_d, stride_h, stride_w)");
    v->Field("padding", &padding)
        .Default({0, 0, 0, 0, 0, 0})
        .Length(6)
        .Describe("(front, top, left, back, bottom, right)");
    v->Field("dilation", &dilation).Default({1, 1, 1}).Length(3).Describe("(dilation_d, dilation_h, dilation_w)");
    v->Field("groups", &groups).Default(1).Describe("channel groups (depthwise: groups = channels)");
    v->Field("data_layout", &data_layout)
        .Default("NCDHW")
        .Describe("the data's layout: NCDHW, or channels blocked (NCDHW16c)");
    v->Field("kernel_layout", &kernel_layout)
        .Default("OIDHW")
        .Describe("the weight's layout: OIDHW, or channels blocked");
    v->Field("out_layout", &out_layout).Default("").Describe("the result's layout; \"\": the data's");
  }
  const std::string& ResultLayout() const { return out_layout.empty() ? data_layout : out_layout; }
};

/*! \brief nn.conv2d_gemm: a convolution computed as a GEMM over its windows (conv2d-to-gemm). */
struct Conv2DGemmAttrs {
  std::vector<int64_t> kernel_size, strides, padding, dilation;
  int64_t column_tile;
  void VisitAttrs(AttrVisitor* v) {
    v->Field("kernel_size", &kernel_size).Length(2).Describe("(window_h, window_w)");
    v->Field("strides", &strides).Default({1, 1}).Length(2).Describe("(stride_h, stride_w)");
    v->Field("padding", &padding).Default({0, 0, 0, 0}).Length(4).Describe("(top, left, bottom, right)");
    v->Field("dilation", &dilation).Default({1, 1}).Length(2).Describe("(dilation_h, dilation_w)");
    v->Field("column_tile", &column_tile)
        .Default(1)
        .Describe("the GEMM's column count is rounded up to a multiple of this, so its column tiles are whole");
  }
};

struct Pool2DAttrs {
  static constexpr char kSpatialAxes[] = "HW";
  std::vector<int64_t> pool_size, strides, padding, dilation;
  bool ceil_mode, count_include_pad;
  std::string layout = "NCHW";
  void VisitAttrs(AttrVisitor* v) {
    v->Field("pool_size", &pool_size).Length(2).Describe("(window_h, window_w)");
    v->Field("strides", &strides).Default({1, 1}).Length(2).Describe("(stride_h, stride_w)");
    v->Field("padding", &padding).Default({0, 0, 0, 0}).Length(4).Describe("(top, left, bottom, right)");
    v->Field("dilation", &dilation).Default({1, 1}).Length(2).Describe("(dilation_h, dilation_w)");
    v->Field("ceil_mode", &ceil_mode)
        .Default(false)
        .Describe("round the output size up (the last window starts inside the input or its padding)");
    v->Field("count_include_pad", &count_include_pad)
        .Default(true)
        .Describe("avg: divide by the full window, padding included");
    v->Field("layout", &layout).Default("NCHW").Describe("the data's (and the result's) layout: NCHW or NCHW<b>c");
  }
};

/*! \brief nn.max_pool3d / nn.avg_pool3d over NCDHW data. */
struct Pool3DAttrs {
  static constexpr char kSpatialAxes[] = "DHW";
  std::vector<int64_t> pool_size, strides, padding, dilation;
  bool ceil_mode, count_include_pad;
  std::string layout = "NCDHW";
  void VisitAttrs(AttrVisitor* v) {
    v->Field("pool_size", &pool_size).Length(3).Describe("(window_d, window_h, window_w)");
    v->Field("strides", &strides).Default({1, 1, 1}).Length(3).Describe("(stride_d, stride_h, stride_w)");
    v->Field("padding", &padding)
        .Default({0, 0, 0, 0, 0, 0})
        .Length(6)
        .Describe("(front, top, left, back, bottom, right)");
    v->Field("dilation", &dilation).Default({1, 1, 1}).Length(3).Describe("(dilation_d, dilation_h, dilation_w)");
    v->Field("ceil_mode", &ceil_mode).Default(false).Describe("round the output size up, as pool2d's");
    v->Field("count_include_pad", &count_include_pad)
        .Default(true)
        .Describe("avg: divide by the full window, padding included");
    v->Field("layout", &layout).Default("NCDHW").Describe("the data's (and the result's) layout: NCDHW or NCDHW<b>c");
  }
};

struct AdaptivePool2DAttrs {
  std::vector<int64_t> output_size;
  std::string layout = "NCHW";
  void VisitAttrs(AttrVisitor* v) {
    v->Field("output_size", &output_size).Default({1, 1}).Length(2).Describe("(1, 1): global average pooling");
    v->Field("layout", &layout).Default("NCHW").Describe("the data's (and the result's) layout: NCHW or NCHW<b>c");
  }
};

/*! \brief layout_transform: the same tensor in another layout of the same primal axes. */
struct LayoutTransformAttrs {
  std::string src_layout, dst_layout;
  void VisitAttrs(AttrVisitor* v) {
    v->Field("src_layout", &src_layout).Describe("the input's layout (NCHW, NCHW16c, OIHW, ...; ir/graph/layout.h)");
    v->Field("dst_layout", &dst_layout).Describe("the result's layout");
  }
};

struct SoftmaxAttrs {
  int64_t axis;
  void VisitAttrs(AttrVisitor* v) { v->Field("axis", &axis).Default(-1).Describe("the normalized axis"); }
};

struct LayerNormAttrs {
  double epsilon;
  void VisitAttrs(AttrVisitor* v) { v->Field("epsilon", &epsilon).Default(1e-5).Describe("added to the variance"); }
};

struct PadAttrs {
  std::vector<int64_t> pad_width;
  double pad_value;
  std::string pad_mode;
  void VisitAttrs(AttrVisitor* v) {
    v->Field("pad_width", &pad_width).Describe("(before_0, after_0, before_1, after_1, ...)");
    v->Field("pad_value", &pad_value).Default(0.0).Describe("the value of the added elements");
    v->Field("pad_mode", &pad_mode)
        .Default("constant")
        .Describe("\"constant\" (pad_value), \"edge\" or \"reflect\" (mirrored, edge not repeated)");
  }
};

struct StridedSliceAttrs {
  std::vector<int64_t> axes, begin, end, strides;
  void VisitAttrs(AttrVisitor* v) {
    v->Field("axes", &axes).Describe("the sliced axes");
    v->Field("begin", &begin).Describe("first index per axis (negative: from the end)");
    v->Field("end", &end).Describe("end index per axis, exclusive (clamped)");
    v->Field("strides", &strides).Optional().Describe("step per axis (default 1)");
  }
};

struct ReshapeAttrs {
  std::vector<int64_t> shape;
  void VisitAttrs(AttrVisitor* v) {
    v->Field("shape", &shape)
        .Optional()
        .Describe(
            "the new shape; one dimension may be -1 (inferred). None when sinfo_args gives the result, whose dims may "
            "be symbolic");
  }
};

struct PermuteDimsAttrs {
  std::vector<int64_t> axes;
  void VisitAttrs(AttrVisitor* v) {
    v->Field("axes", &axes).Optional().Describe("the permutation; None reverses the dimensions");
  }
};

struct CumsumAttrs {
  int64_t axis;
  bool exclusive;
  bool reverse;
  void VisitAttrs(AttrVisitor* v) {
    v->Field("axis", &axis).Default(int64_t{0}).Describe("the axis summed along");
    v->Field("exclusive", &exclusive).Default(false).Describe("each sum leaves out its own element");
    v->Field("reverse", &reverse).Default(false).Describe("sum from the end");
  }
};

struct ArgReduceAttrs {
  int64_t axis;
  bool keepdims;
  bool select_last_index;
  void VisitAttrs(AttrVisitor* v) {
    v->Field("axis", &axis).Default(int64_t{0}).Describe("the axis searched");
    v->Field("keepdims", &keepdims).Default(false).Describe("keep the axis as size 1");
    v->Field("select_last_index", &select_last_index)
        .Default(false)
        .Describe("on ties, the last index instead of the first");
  }
};

struct ReduceAttrs {
  std::vector<int64_t> axis;
  bool keepdims;
  void VisitAttrs(AttrVisitor* v) {
    v->Field("axis", &axis).Optional().Describe("the reduced axes; None reduces all");
    v->Field("keepdims", &keepdims).Default(false).Describe("keep reduced axes as size 1");
  }
};

/*! \brief concat and take: the axis joined or indexed. */
struct AxisAttrs {
  int64_t axis;
  void VisitAttrs(AttrVisitor* v) { v->Field("axis", &axis).Default(0).Describe("the joined or indexed axis"); }
};

struct BroadcastToAttrs {
  std::vector<int64_t> shape;
  void VisitAttrs(AttrVisitor* v) {
    v->Field("shape", &shape)
        .Optional()
        .Describe("the target shape; None when sinfo_args gives it, whose dims may be symbolic");
  }
};

/*! \brief arange: start + i * step for i < the length its sinfo_args give (symbolic or not). */
struct ArangeAttrs {
  double start;
  double step;
  DataType dtype;
  void VisitAttrs(AttrVisitor* v) {
    v->Field("start", &start).Default(0.0).Describe("the first value");
    v->Field("step", &step).Default(1.0).Describe("the difference between neighbours (not 0)");
    v->Field("dtype", &dtype).Default(DataType::Int64()).Describe("the result dtype");
  }
};

/*! \brief triu / tril: which diagonal bounds the kept triangle. */
struct TriangleAttrs {
  int64_t k;
  void VisitAttrs(AttrVisitor* v) {
    v->Field("k", &k).Default(0).Describe("the diagonal: 0 the main one, > 0 above it, < 0 below");
  }
};

struct AstypeAttrs {
  DataType dtype;
  void VisitAttrs(AttrVisitor* v) { v->Field("dtype", &dtype).Describe("the result dtype"); }
};

/*! \brief quantize: real = (q - zero_point) * scale, q = saturate(round(real / scale) + zero_point). */
struct QuantizeAttrs {
  int64_t axis;
  DataType out_dtype;
  void VisitAttrs(AttrVisitor* v) {
    v->Field("axis", &axis).Default(-1).Describe("the channel axis of per-channel scales and zero points");
    v->Field("out_dtype", &out_dtype).Default(DataType::Int(8)).Describe("the integer type of the result");
  }
};

/*! \brief dequantize: the result has the scale's dtype. */
struct DequantizeAttrs {
  int64_t axis;
  void VisitAttrs(AttrVisitor* v) {
    v->Field("axis", &axis).Default(-1).Describe("the channel axis of per-channel scales and zero points");
  }
};

}  // namespace relax
}  // namespace mlc

#endif  // MLC_IR_OPS_OP_ATTRS_H_
