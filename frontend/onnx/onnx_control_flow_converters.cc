/*! \file onnx_control_flow_converters.cc
 *  \brief ONNX If, and Scan unrolled.
 *
 *  A condition known at import time (a constant, as exporters often leave behind) inlines the
 *  branch it selects. Otherwise each branch's subgraph becomes a private graph function whose
 *  parameters are the values it reads from the enclosing graph (constants stay inside), and the
 *  node a graph-level if calling one or the other (relax::IfNode; the importer later moves it
 *  out of the dataflow block, ir/graph/branch_blocks.h). Every pass then optimizes a branch as
 *  the function it is; only the branch taken runs. Results whose shapes differ between the
 *  branches are named by new shape variables (`<output>_dim<k>`, R.match_cast), as results of
 *  data-dependent size are.
 */
#include <algorithm>
#include <set>

#include "frontend/onnx/converter_util.h"
#include "ir/tir/shape_expr.h"

namespace mlc {
namespace onnx_import {
namespace {

/*! \brief The names `graph` reads from the scopes around it, in order of first use, including
 *         those its own subgraphs read. */
void OuterNames(const onnx::GraphProto& graph, std::vector<std::string>* out) {
  std::set<std::string> defined, seen;
  for (const onnx::TensorProto& t : graph.initializer()) defined.insert(t.name());
  for (const onnx::ValueInfoProto& v : graph.input()) defined.insert(v.name());
  auto read = [&](const std::string& name) {
    if (!name.empty() && !defined.count(name) && seen.insert(name).second) out->push_back(name);
  };
  for (const onnx::NodeProto& node : graph.node()) {
    for (const std::string& in : node.input()) read(in);
    for (const onnx::AttributeProto& a : node.attribute()) {
      std::vector<std::string> inner;
      if (a.has_g()) OuterNames(a.g(), &inner);
      for (const onnx::GraphProto& g : a.graphs()) OuterNames(g, &inner);
      for (const std::string& name : inner) read(name);
    }
    for (const std::string& o : node.output()) defined.insert(o);
  }
  for (const onnx::ValueInfoProto& v : graph.output()) read(v.name());
}

absl::Status SetInitializers(OnnxContext& ctx, const onnx::GraphProto& graph) {
  for (const onnx::TensorProto& init : graph.initializer()) {
    absl::StatusOr<TensorData> data = TensorFromOnnx(init);
    if (!data.ok()) return absl::Status(data.status().code(), absl::StrCat("initializer ", init.name(), ": ", data.status().message()));
    ctx.SetValue(init.name(), relax::MakeConstant(*data));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<relax::Expr>> GraphOutputs(OnnxContext& ctx, const onnx::GraphProto& graph, const std::string& which) {
  std::vector<relax::Expr> values;
  for (const onnx::ValueInfoProto& out : graph.output()) {
    absl::StatusOr<relax::Expr> v = ctx.MaterializedValue(out.name());
    if (!v.ok()) return absl::InvalidArgumentError(absl::StrCat("the ", which, " branch's output ", out.name(), " is not computed"));
    values.push_back(*v);
  }
  return values;
}

/*! \brief The branch as a call of a new private function of the values it reads. */
absl::StatusOr<relax::Expr> BranchCall(OnnxContext& ctx, const onnx::NodeProto& node, const onnx::GraphProto& graph,
                                       const std::string& which) {
  relax::BlockBuilder sub(ctx.bb().module());
  OnnxContext inner(&sub, ctx.opset());
  for (const auto& [name, value] : ctx.shape_values()) inner.SetShapeValue(name, value);
  std::vector<std::string> outer;
  OuterNames(graph, &outer);
  const std::string function_name =
      SanitizeIdentifier(absl::StrCat(node.name().empty() ? node.output(0) : node.name(), "_", which));
  // A value whose dimensions no call could bind a variable from (a min of detections and a top-k
  // count, say) comes in with a fresh variable for each such dimension.
  tir::DimGeneralizer dims(absl::StrCat(function_name, "_d"));
  std::vector<relax::Var> params;
  std::vector<relax::Expr> args;
  for (const std::string& name : outer) {
    absl::StatusOr<relax::Expr> value = ctx.Value(name);
    if (!value.ok()) {
      if (ctx.shape_values().count(name)) continue;  // the subgraph's converters read it as a shape value
      return absl::InvalidArgumentError(absl::StrCat("the ", which, " branch reads ", name, ": ", value.status().message()));
    }
    if (value->as<relax::ConstantNode>()) {
      inner.SetValue(name, *value);
      continue;
    }
    relax::StructInfo sinfo = (*value)->struct_info();
    if (const relax::TensorStructInfoNode* t = TensorOf(*value); t != nullptr && t->HasKnownShape()) {
      sinfo = relax::TensorSInfoOfDims(dims.Generalize(t->Dims()), t->dtype);
    }
    relax::Var param = relax::MakeVar(SanitizeIdentifier(name), sinfo);
    params.push_back(param);
    args.push_back(*value);
    inner.SetValue(name, param);
  }
  if (absl::Status s = SetInitializers(inner, graph); !s.ok()) return s;
  if (absl::Status s = sub.BeginFunction(function_name, params); !s.ok()) return s;
  if (absl::Status s = sub.BeginDataflow(); !s.ok()) return s;
  if (absl::Status s = ConvertGraphNodes(inner, graph, absl::StrCat("in its ", which, " branch, ")); !s.ok()) return s;
  absl::StatusOr<std::vector<relax::Expr>> results = GraphOutputs(inner, graph, which);
  if (!results.ok()) return results.status();
  if (results->empty()) return absl::InvalidArgumentError(absl::StrCat("the ", which, " branch has no outputs"));
  absl::StatusOr<relax::Var> result = sub.EmitOutput(results->size() == 1 ? (*results)[0] : relax::MakeTuple(*results));
  if (!result.ok()) return result.status();
  if (absl::Status s = sub.EndDataflow(); !s.ok()) return s;
  absl::StatusOr<relax::GlobalVar> built = sub.EmitFuncOutput(*result);
  if (!built.ok()) return built.status();
  // The branch's function and any its own ifs added move into the enclosing module, private.
  relax::GlobalVar callee;
  for (const auto& [name, func] : sub.module().functions()) {
    if (ctx.bb().module().Contains(name)) continue;
    BaseFunc moved = func;
    if (const auto* f = func.as<relax::FunctionNode>()) {
      Attrs attrs = f->attrs;
      attrs.erase("global_symbol");
      moved = relax::MakeFunction(f->params, f->body, f->ret_struct_info, attrs);
    }
    relax::GlobalVar added = ctx.bb().AddFunc(moved, name);
    if (added->name != name) return absl::InternalError(absl::StrCat("function ", name, " of an If branch is defined twice"));
    if (name == (*built)->name) callee = added;
  }
  return ctx.bb().Normalize(relax::MakeCall(callee, args));
}

Outputs If(OnnxContext& ctx, const onnx::NodeProto& node) {
  const onnx::GraphProto* branches[2] = {nullptr, nullptr};
  for (const onnx::AttributeProto& a : node.attribute()) {
    if (a.name() == "then_branch") branches[0] = &a.g();
    if (a.name() == "else_branch") branches[1] = &a.g();
  }
  if (branches[0] == nullptr || branches[1] == nullptr) return absl::InvalidArgumentError("needs then_branch and else_branch");
  if (branches[0]->output_size() != node.output_size() || branches[1]->output_size() != node.output_size()) {
    return absl::InvalidArgumentError(absl::StrCat("has ", node.output_size(), " outputs but its branches give ",
                                                   branches[0]->output_size(), " and ", branches[1]->output_size()));
  }
  // A condition known now: the branch it selects, inline.
  if (const TensorData* cond = ctx.ConstantInput(node, 0)) {
    if (cond->NumElements() != 1) return absl::InvalidArgumentError("the condition must have one element");
    bool taken = false;
    for (size_t b = 0; b < cond->dtype().bytes(); ++b) taken = taken || cond->bytes()[b] != 0;
    const onnx::GraphProto& graph = *branches[taken ? 0 : 1];
    if (absl::Status s = SetInitializers(ctx, graph); !s.ok()) return s;
    if (absl::Status s = ConvertGraphNodes(ctx, graph, absl::StrCat("in its ", taken ? "then" : "else", " branch, ")); !s.ok()) return s;
    return GraphOutputs(ctx, graph, taken ? "then" : "else");
  }
  // A condition computed from symbolic sizes comes as a tensor computed when the model runs.
  absl::StatusOr<relax::Expr> cond = ctx.Input(node, 0);
  if (!cond.ok()) return cond.status();
  if (const relax::TensorStructInfoNode* t = TensorOf(*cond); t != nullptr && t->shape) {
    int64_t elements = 1;
    for (int64_t d : *t->shape) elements *= d;
    if (elements != 1) return absl::InvalidArgumentError("the condition must have one element");
  }
  absl::StatusOr<relax::Expr> then_call = BranchCall(ctx, node, *branches[0], "then");
  if (!then_call.ok()) return then_call.status();
  absl::StatusOr<relax::Expr> else_call = BranchCall(ctx, node, *branches[1], "else");
  if (!else_call.ok()) return else_call.status();
  absl::StatusOr<relax::Var> joined = ctx.bb().Emit(relax::If(new relax::IfNode(*cond, *then_call, *else_call)));
  if (!joined.ok()) return joined.status();
  std::vector<relax::Expr> values;
  for (int i = 0; i < node.output_size(); ++i) {
    relax::Expr item = *joined;
    if (node.output_size() > 1) {
      absl::StatusOr<relax::Expr> got = relax::MakeTupleGetItem(*joined, i);
      if (!got.ok()) return got.status();
      absl::StatusOr<relax::Var> v = ctx.bb().Emit(*got);
      if (!v.ok()) return v.status();
      item = *v;
    }
    const auto* t = item->struct_info().as<relax::TensorStructInfoNode>();
    if (t != nullptr && !t->HasKnownShape()) {
      if (t->ndim < 0 || t->dtype.is_void()) {
        return absl::InvalidArgumentError(absl::StrCat("output ", i, ": the branches give tensors of different ",
                                                       t->ndim < 0 ? "ranks" : "element types", ", which is not supported"));
      }
      std::vector<tir::PrimExpr> dims;
      for (int k = 0; k < t->ndim; ++k) {
        dims.push_back(tir::MakeVar(absl::StrCat(SanitizeIdentifier(node.output(i)), "_dim", k), DataType::Int64()));
      }
      absl::StatusOr<relax::Expr> named = ctx.EmitOp("match_cast", {item}, {}, {relax::TensorSInfoOfDims(dims, t->dtype)});
      if (!named.ok()) return named.status();
      item = *named;
    }
    values.push_back(item);
  }
  return values;
}

/*! \brief Scan's steps unroll up to this many: each is a copy of the body. */
constexpr int64_t kMaxUnrolledScanSteps = 256;

/*! \brief x[..., at, ...] along `axis` (the axis dropped). */
absl::StatusOr<relax::Expr> TakeAlong(OnnxContext& ctx, const relax::Expr& x, int64_t axis, int64_t at) {
  absl::StatusOr<relax::Expr> slice = ctx.EmitOp(
      "strided_slice", {x}, {{"axes", std::vector<int64_t>{axis}}, {"begin", std::vector<int64_t>{at}}, {"end", std::vector<int64_t>{at + 1}}});
  if (!slice.ok()) return slice.status();
  std::vector<tir::PrimExpr> dims = TensorOf(x)->Dims();
  dims.erase(dims.begin() + axis);
  return Reshaped(ctx, *slice, dims);
}

/*! \brief The tensors of one shape stacked along a new `axis`. */
absl::StatusOr<relax::Expr> Stack(OnnxContext& ctx, const std::vector<relax::Expr>& xs, int64_t axis) {
  std::vector<relax::Expr> parts;
  for (const relax::Expr& x : xs) {
    std::vector<tir::PrimExpr> dims = TensorOf(x)->Dims();
    dims.insert(dims.begin() + axis, tir::I64(1));
    absl::StatusOr<relax::Expr> part = Reshaped(ctx, x, dims);
    if (!part.ok()) return part.status();
    parts.push_back(*part);
  }
  return parts.size() == 1 ? absl::StatusOr<relax::Expr>(parts[0]) : ctx.EmitOp("concat", parts, {{"axis", axis}});
}

/*! \brief The attributes of a Scan: per scan input its axis and direction, per scan output the same. */
struct ScanAxes {
  std::vector<int64_t> in_axes, in_reverse, out_axes, out_reverse;
};

/*! \brief One Scan over `scans`, from `states`, unrolled: the final states, then each scan
 *         output stacked along its axis. */
absl::StatusOr<std::vector<relax::Expr>> UnrollScan(OnnxContext& ctx, const onnx::GraphProto& body, std::vector<relax::Expr> states,
                                                    const std::vector<relax::Expr>& scans, const ScanAxes& a) {
  const size_t n = states.size(), k = static_cast<size_t>(body.output_size()) - n;
  int64_t steps = -1;
  std::vector<int64_t> axes;
  for (size_t j = 0; j < scans.size(); ++j) {
    const relax::TensorStructInfoNode* t = TensorOf(scans[j]);
    if (t == nullptr || !t->HasKnownShape()) return absl::InvalidArgumentError(absl::StrCat("scan input ", j, " needs a known shape"));
    const int64_t axis = a.in_axes[j] < 0 ? a.in_axes[j] + t->ndim : a.in_axes[j];
    if (axis < 0 || axis >= t->ndim) return absl::InvalidArgumentError(absl::StrCat("scan input ", j, ": axis ", a.in_axes[j], " out of range"));
    const tir::PrimExpr extent = t->Dims()[axis];  // held: AsConstInt points into it
    const int64_t* length = tir::AsConstInt(extent);
    if (length == nullptr) return absl::UnimplementedError("Scan over a sequence of symbolic length (Scan is unrolled at import)");
    if (steps >= 0 && *length != steps) return absl::InvalidArgumentError("the scan inputs differ in sequence length");
    steps = *length;
    axes.push_back(axis);
  }
  if (steps < 0) return absl::InvalidArgumentError("needs at least one scan input");
  if (steps > kMaxUnrolledScanSteps) {
    return absl::UnimplementedError(absl::StrCat("Scan of ", steps, " steps (Scan is unrolled at import, up to ", kMaxUnrolledScanSteps, " steps)"));
  }
  if (absl::Status s = SetInitializers(ctx, body); !s.ok()) return s;  // the same constants every step
  std::vector<std::vector<relax::Expr>> outputs(k);
  for (int64_t step = 0; step < steps; ++step) {
    for (size_t i = 0; i < n; ++i) ctx.SetValue(body.input(static_cast<int>(i)).name(), states[i]);
    for (size_t j = 0; j < scans.size(); ++j) {
      absl::StatusOr<relax::Expr> element = TakeAlong(ctx, scans[j], axes[j], a.in_reverse[j] ? steps - 1 - step : step);
      if (!element.ok()) return element.status();
      ctx.SetValue(body.input(static_cast<int>(n + j)).name(), *element);
    }
    if (absl::Status s = ConvertGraphNodes(ctx, body, absl::StrCat("in its body at step ", step, ", ")); !s.ok()) return s;
    absl::StatusOr<std::vector<relax::Expr>> results = GraphOutputs(ctx, body, "body");
    if (!results.ok()) return results.status();
    for (size_t i = 0; i < n; ++i) states[i] = (*results)[i];
    for (size_t o = 0; o < k; ++o) outputs[o].push_back((*results)[n + o]);
  }
  for (size_t o = 0; o < k; ++o) {
    if (a.out_reverse[o]) std::reverse(outputs[o].begin(), outputs[o].end());
    const relax::TensorStructInfoNode* t = TensorOf(outputs[o][0]);
    if (t == nullptr || !t->HasKnownShape()) return absl::InvalidArgumentError(absl::StrCat("scan output ", o, " needs a known shape"));
    const int64_t axis = a.out_axes[o] < 0 ? a.out_axes[o] + t->ndim + 1 : a.out_axes[o];
    if (axis < 0 || axis > t->ndim) return absl::InvalidArgumentError(absl::StrCat("scan output ", o, ": axis ", a.out_axes[o], " out of range"));
    absl::StatusOr<relax::Expr> stacked = Stack(ctx, outputs[o], axis);
    if (!stacked.ok()) return stacked.status();
    states.push_back(*stacked);
  }
  return states;
}

/*! \brief An attribute of one int per value (axes, directions); `count` zeros when absent. */
absl::StatusOr<std::vector<int64_t>> PerValueAttr(OnnxContext& ctx, const onnx::NodeProto& node, const std::string& name, size_t count) {
  std::vector<int64_t> v = ctx.IntsAttr(node, name);
  if (v.empty()) v.assign(count, 0);
  if (v.size() != count) return absl::InvalidArgumentError(absl::StrCat(name, " has ", v.size(), " values for ", count));
  return v;
}

/*! \brief ONNX Scan over a sequence of static length, unrolled at import: each step slices the
 *  scan inputs, converts the body with the states and slices bound to its inputs, and each scan
 *  output is the steps' results stacked. Opset 8's form (sequence_lens first, a batch axis 0)
 *  runs the scan on each batch element and stacks the results. */
Outputs Scan(OnnxContext& ctx, const onnx::NodeProto& node) {
  const onnx::GraphProto* body = nullptr;
  for (const onnx::AttributeProto& attr : node.attribute()) {
    if (attr.name() == "body") body = &attr.g();
  }
  if (body == nullptr) return absl::InvalidArgumentError("needs a body");
  const bool batched = ctx.opset() < 9;
  if (batched && ctx.HasInput(node, 0)) return absl::UnimplementedError("Scan with sequence_lens (opset 8)");
  const int offset = batched ? 1 : 0;
  const int64_t m = ctx.IntAttr(node, "num_scan_inputs", 0), inputs = node.input_size() - offset;
  if (m <= 0 || m > inputs) return absl::InvalidArgumentError(absl::StrCat("num_scan_inputs ", m, " for ", inputs, " inputs"));
  const size_t n = static_cast<size_t>(inputs - m);
  if (body->input_size() != inputs || body->output_size() < static_cast<int>(n) || body->output_size() != node.output_size()) {
    return absl::InvalidArgumentError(absl::StrCat("the body takes ", body->input_size(), " values and gives ", body->output_size(),
                                                   "; the node has ", inputs, " inputs and ", node.output_size(), " outputs"));
  }
  const size_t k = static_cast<size_t>(body->output_size()) - n;
  ScanAxes axes;
  const std::pair<std::vector<int64_t>*, std::pair<const char*, size_t>> attrs[] = {
      {&axes.in_axes, {"scan_input_axes", m}}, {&axes.in_reverse, {batched ? "directions" : "scan_input_directions", m}},
      {&axes.out_axes, {"scan_output_axes", k}}, {&axes.out_reverse, {"scan_output_directions", k}}};
  for (const auto& [field, spec] : attrs) {
    absl::StatusOr<std::vector<int64_t>> v = PerValueAttr(ctx, node, spec.first, spec.second);
    if (!v.ok()) return v.status();
    *field = *v;
  }
  std::vector<relax::Expr> values;
  for (int i = offset; i < node.input_size(); ++i) {
    absl::StatusOr<relax::Expr> v = ctx.Input(node, i);
    if (!v.ok()) return v.status();
    values.push_back(*v);
  }
  auto run = [&](const std::vector<relax::Expr>& all) {
    return UnrollScan(ctx, *body, {all.begin(), all.begin() + n}, {all.begin() + n, all.end()}, axes);
  };
  if (!batched) return run(values);
  const relax::TensorStructInfoNode* first = TensorOf(values[0]);
  const tir::PrimExpr batch_dim = first != nullptr && first->HasKnownShape() && first->ndim > 0 ? first->Dims()[0] : tir::PrimExpr();
  const int64_t* batch = batch_dim.defined() ? tir::AsConstInt(batch_dim) : nullptr;
  if (batch == nullptr) return absl::UnimplementedError("Scan (opset 8) needs a static batch size");
  std::vector<std::vector<relax::Expr>> results(node.output_size());
  for (int64_t b = 0; b < *batch; ++b) {
    std::vector<relax::Expr> element;
    for (const relax::Expr& v : values) {
      absl::StatusOr<relax::Expr> e = TakeAlong(ctx, v, 0, b);
      if (!e.ok()) return e.status();
      element.push_back(*e);
    }
    absl::StatusOr<std::vector<relax::Expr>> got = run(element);
    if (!got.ok()) return got.status();
    for (size_t o = 0; o < got->size(); ++o) results[o].push_back((*got)[o]);
  }
  std::vector<relax::Expr> outs;
  for (const std::vector<relax::Expr>& per_batch : results) {
    absl::StatusOr<relax::Expr> stacked = Stack(ctx, per_batch, 0);
    if (!stacked.ok()) return stacked.status();
    outs.push_back(*stacked);
  }
  return outs;
}

}  // namespace

void RegisterControlFlowOnnxConverters(OnnxConverterRegistry& r) {
  r.Register("If", If);
  r.Register("Scan", Scan);
}

}  // namespace onnx_import
}  // namespace mlc
