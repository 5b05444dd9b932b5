/*! \file onnx_library_converters.cc
 *  \brief ONNX operators that run as runtime library functions (vm/library/), because no loop
 *         program of one output element per iteration expresses them: TopK (a selection) and
 *         ScatterElements / ScatterND (writes at computed positions).
 *
 *  Each becomes R.call_dps_packed of the function with the outputs' struct info; the operator's
 *  attributes travel as a constant int64 params tensor, the functions' last input.
 */
#include "frontend/onnx/converter_util.h"

namespace mlc {
namespace onnx_import {
namespace {

/*! \brief call_dps_packed(name, args) with one output per struct info, as values. */
Outputs CallLibrary(OnnxContext& ctx, const std::string& name, std::vector<relax::Expr> args, std::vector<relax::StructInfo> outs) {
  relax::StructInfo sinfo = outs.size() == 1 ? outs[0] : relax::TupleSInfo(outs);
  absl::StatusOr<relax::Expr> call =
      ctx.EmitOp("call_dps_packed", {relax::MakeExternFunc(name), relax::MakeTuple(std::move(args))}, {}, {sinfo});
  if (!call.ok()) return call.status();
  if (outs.size() == 1) return std::vector<relax::Expr>{*call};
  std::vector<relax::Expr> values;
  for (size_t i = 0; i < outs.size(); ++i) {
    absl::StatusOr<relax::Expr> item = relax::MakeTupleGetItem(*call, static_cast<int>(i));
    if (!item.ok()) return item.status();
    absl::StatusOr<relax::Var> v = ctx.bb().Emit(*item);
    if (!v.ok()) return v.status();
    values.push_back(*v);
  }
  return values;
}

relax::Expr Params(const std::vector<int64_t>& values) { return relax::MakeConstant(Int64Tensor(values)); }

/*! \brief The reduction attribute as the library's code: none 0, add 1, mul 2, max 3, min 4. */
absl::StatusOr<int64_t> Reduction(const OnnxContext& ctx, const onnx::NodeProto& node) {
  const std::string r = ctx.StringAttr(node, "reduction", "none");
  const char* names[] = {"none", "add", "mul", "max", "min"};
  for (int64_t i = 0; i < 5; ++i) {
    if (r == names[i]) return i;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown reduction '", r, "' (none, add, mul, max, min)"));
}

/*! \brief TopK: the k largest (or smallest) along `axis`, always sorted (sorted=0 leaves the
 *  order to the implementation). K must be a constant. */
Outputs TopK(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<std::vector<int64_t>> xs = StaticShape(*x, "TopK's input");
  if (!xs.ok()) return xs.status();
  absl::StatusOr<std::vector<int64_t>> k = ctx.ConstantInts(node, 1, "K");
  if (!k.ok()) return k.status();
  const int64_t rank = static_cast<int64_t>(xs->size());
  int64_t axis = ctx.IntAttr(node, "axis", -1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return absl::InvalidArgumentError(absl::StrCat("axis ", ctx.IntAttr(node, "axis", -1), " is out of range"));
  if (k->size() != 1 || (*k)[0] < 0 || (*k)[0] > (*xs)[axis]) {
    return absl::InvalidArgumentError(absl::StrCat("K must be one value in 0..", (*xs)[axis]));
  }
  std::vector<int64_t> out = *xs;
  out[axis] = (*k)[0];
  return CallLibrary(ctx, "mlc.topk", {*x, Params({axis, ctx.IntAttr(node, "largest", 1)})},
                     {relax::TensorSInfo(out, TensorOf(*x)->dtype), relax::TensorSInfo(out, DataType::Int64())});
}

OnnxConverter Scatter(bool nd) {
  return [nd](OnnxContext& ctx, const onnx::NodeProto& node) -> Outputs {
    std::vector<relax::Expr> in;
    std::vector<std::vector<int64_t>> shapes;
    for (int i = 0; i < 3; ++i) {
      absl::StatusOr<relax::Expr> v = ctx.Input(node, i);
      if (!v.ok()) return v.status();
      absl::StatusOr<std::vector<int64_t>> shape = StaticShape(*v, "a scatter operand");
      if (!shape.ok()) return shape.status();
      in.push_back(*v);
      shapes.push_back(*shape);
    }
    const std::vector<int64_t>&data = shapes[0], &indices = shapes[1], &updates = shapes[2];
    if (nd) {
      const int64_t k = indices.empty() ? 0 : indices.back();
      std::vector<int64_t> want(indices.begin(), indices.end() - (indices.empty() ? 0 : 1));
      if (k >= 1 && k <= static_cast<int64_t>(data.size())) want.insert(want.end(), data.begin() + k, data.end());
      if (k < 1 || k > static_cast<int64_t>(data.size()) || updates != want) {
        return absl::InvalidArgumentError(absl::StrCat("indices ", relax::ShapeToString(indices), " and updates ",
                                                       relax::ShapeToString(updates), " do not fit data ", relax::ShapeToString(data)));
      }
    } else if (indices != updates || indices.size() != data.size()) {
      return absl::InvalidArgumentError(absl::StrCat("indices ", relax::ShapeToString(indices), " and updates ", relax::ShapeToString(updates),
                                                     " must share a shape of data's rank ", data.size()));
    }
    absl::StatusOr<int64_t> reduction = Reduction(ctx, node);
    if (!reduction.ok()) return reduction.status();
    in.push_back(nd ? Params({*reduction}) : Params({ctx.IntAttr(node, "axis", 0), *reduction}));
    return CallLibrary(ctx, nd ? "mlc.scatter_nd" : "mlc.scatter_elements", in, {in[0]->struct_info()});
  };
}

}  // namespace

void RegisterLibraryOnnxConverters(OnnxConverterRegistry& r) {
  r.Register("TopK", TopK);
  r.Register("ScatterElements", Scatter(/*nd=*/false));
  r.Register("Scatter", Scatter(/*nd=*/false));  // opsets 9-10: ScatterElements by its old name
  r.Register("ScatterND", Scatter(/*nd=*/true));
}

}  // namespace onnx_import
}  // namespace mlc
