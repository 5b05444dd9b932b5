/*! \file onnx_control_flow_converters.cc
 *  \brief ONNX If, Loop, and Scan unrolled.
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
#include <map>
#include <optional>
#include <set>
#include <variant>

#include "frontend/onnx/converter_util.h"
#include "ir/tir/analyzer.h"
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

/*! \brief Whether a one-element constant is true (non-zero, of any type). */
bool Truth(const TensorData& value) {
  bool truth = false;
  for (size_t b = 0; b < value.dtype().bytes(); ++b) truth = truth || value.bytes()[b] != 0;
  return truth;
}

absl::Status SetInitializers(OnnxContext& ctx, const onnx::GraphProto& graph) {
  for (const onnx::TensorProto& init : graph.initializer()) {
    absl::StatusOr<TensorData> data = TensorFromOnnx(init);
    if (!data.ok())
      return absl::Status(data.status().code(),
                          absl::StrCat("initializer ", init.name(), ": ", data.status().message()));
    ctx.SetValue(init.name(), relax::MakeConstant(*data));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<relax::Expr>> GraphOutputs(OnnxContext& ctx, const onnx::GraphProto& graph,
                                                      const std::string& which) {
  std::vector<relax::Expr> values;
  for (const onnx::ValueInfoProto& out : graph.output()) {
    absl::StatusOr<relax::Expr> v = ctx.MaterializedValue(out.name());
    if (!v.ok())
      return absl::InvalidArgumentError(
          absl::StrCat("the ", which, " branch's output ", out.name(), " is not computed"));
    values.push_back(*v);
  }
  return values;
}

/*! \brief Binds, in `inner`, each value `graph` reads from the scopes around it: constants as
 *         they are, shape values through `inner`'s shape values, every other value to a new
 *         parameter (in `params`; the value to pass for it in `args`). A dimension no call could
 *         bind a variable from (a min of detections and a top-k count, say) comes in as a fresh
 *         variable `<prefix>_d<k>`. */
absl::Status CaptureOuterValues(OnnxContext& ctx, OnnxContext& inner, const onnx::GraphProto& graph,
                                const std::string& prefix, const std::string& which, std::vector<relax::Var>* params,
                                std::vector<relax::Expr>* args) {
  for (const auto& [name, value] : ctx.shape_values()) inner.SetShapeValue(name, value);
  std::vector<std::string> outer;
  OuterNames(graph, &outer);
  tir::DimGeneralizer dims(absl::StrCat(prefix, "_d"));
  for (const std::string& name : outer) {
    absl::StatusOr<relax::Expr> value = ctx.Value(name);
    if (!value.ok()) {
      if (ctx.shape_values().count(name)) continue;  // the subgraph's converters read it as a shape value
      return absl::InvalidArgumentError(absl::StrCat("the ", which, " reads ", name, ": ", value.status().message()));
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
    params->push_back(param);
    args->push_back(*value);
    inner.SetValue(name, param);
  }
  return absl::OkStatus();
}

/*! \brief Moves the functions `sub` built (and any its own control flow added) into the
 *         enclosing module, private; `renamed` maps a function's name there to the name it takes. */
absl::Status MoveFunctions(OnnxContext& ctx, const relax::BlockBuilder& sub,
                           const std::map<std::string, std::string>& renamed = {}) {
  for (const auto& [name, func] : sub.module().functions()) {
    auto as = renamed.find(name);
    const std::string& target = as == renamed.end() ? name : as->second;
    if (target.empty() || (ctx.bb().module().Contains(name) && as == renamed.end())) continue;
    BaseFunc moved = func;
    if (const auto* f = func.as<relax::FunctionNode>()) {
      Attrs attrs = f->attrs;
      attrs.erase("global_symbol");
      moved = relax::MakeFunction(f->params, f->body, f->ret_struct_info, attrs);
    }
    relax::GlobalVar added = ctx.bb().AddFunc(moved, target);
    if (added->name != target)
      return absl::InternalError(absl::StrCat("function ", target, " of a subgraph is defined twice"));
  }
  return absl::OkStatus();
}

/*! \brief The branch as a call of a new private function of the values it reads. */
absl::StatusOr<relax::Expr> BranchCall(OnnxContext& ctx, const onnx::NodeProto& node, const onnx::GraphProto& graph,
                                       const std::string& which) {
  relax::BlockBuilder sub(ctx.bb().module());
  OnnxContext inner(&sub, ctx.opset());
  const std::string function_name =
      SanitizeIdentifier(absl::StrCat(node.name().empty() ? node.output(0) : node.name(), "_", which));
  std::vector<relax::Var> params;
  std::vector<relax::Expr> args;
  if (absl::Status s =
          CaptureOuterValues(ctx, inner, graph, function_name, absl::StrCat(which, " branch"), &params, &args);
      !s.ok()) {
    return s;
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
  if (absl::Status s = MoveFunctions(ctx, sub); !s.ok()) return s;
  const relax::GlobalVar callee = relax::MakeGlobalVar((*built)->name);
  return ctx.bb().Normalize(relax::MakeCall(callee, args));
}

Outputs If(OnnxContext& ctx, const onnx::NodeProto& node) {
  const onnx::GraphProto* branches[2] = {nullptr, nullptr};
  for (const onnx::AttributeProto& a : node.attribute()) {
    if (a.name() == "then_branch") branches[0] = &a.g();
    if (a.name() == "else_branch") branches[1] = &a.g();
  }
  if (branches[0] == nullptr || branches[1] == nullptr)
    return absl::InvalidArgumentError("needs then_branch and else_branch");
  if (branches[0]->output_size() != node.output_size() || branches[1]->output_size() != node.output_size()) {
    return absl::InvalidArgumentError(absl::StrCat("has ", node.output_size(), " outputs but its branches give ",
                                                   branches[0]->output_size(), " and ", branches[1]->output_size()));
  }
  // A condition known now: the branch it selects, inline.
  if (const TensorData* cond = ctx.ConstantInput(node, 0)) {
    if (cond->NumElements() != 1) return absl::InvalidArgumentError("the condition must have one element");
    const bool taken = Truth(*cond);
    const onnx::GraphProto& graph = *branches[taken ? 0 : 1];
    if (absl::Status s = SetInitializers(ctx, graph); !s.ok()) return s;
    if (absl::Status s = ConvertGraphNodes(ctx, graph, absl::StrCat("in its ", taken ? "then" : "else", " branch, "));
        !s.ok())
      return s;
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
                                                       t->ndim < 0 ? "ranks" : "element types",
                                                       ", which is not supported"));
      }
      std::vector<tir::PrimExpr> dims;
      for (int k = 0; k < t->ndim; ++k) {
        dims.push_back(tir::MakeVar(absl::StrCat(SanitizeIdentifier(node.output(i)), "_dim", k), DataType::Int64()));
      }
      absl::StatusOr<relax::Expr> named =
          ctx.EmitOp("match_cast", {item}, {}, {relax::TensorSInfoOfDims(dims, t->dtype)});
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
  absl::StatusOr<relax::Expr> slice = ctx.EmitOp("strided_slice", {x},
                                                 {{"axes", std::vector<int64_t>{axis}},
                                                  {"begin", std::vector<int64_t>{at}},
                                                  {"end", std::vector<int64_t>{at + 1}}});
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

absl::StatusOr<std::vector<relax::Expr>> ScanAsLoop(OnnxContext& ctx, const std::string& name,
                                                    const onnx::GraphProto& body,
                                                    const std::vector<relax::Expr>& states,
                                                    const std::vector<relax::Expr>& scans, const ScanAxes& a,
                                                    const tir::PrimExpr& length);

/*! \brief One Scan over `scans`, from `states`, unrolled (a sequence of a static length up to
 *         kMaxUnrolledScanSteps; a longer or symbolic one runs as a Loop): the final states, then each scan
 *         output stacked along its axis. */
absl::StatusOr<std::vector<relax::Expr>> UnrollScan(OnnxContext& ctx, const std::string& name,
                                                    const onnx::GraphProto& body, std::vector<relax::Expr> states,
                                                    const std::vector<relax::Expr>& scans, const ScanAxes& a) {
  const size_t n = states.size(), k = static_cast<size_t>(body.output_size()) - n;
  int64_t steps = -1;
  std::vector<int64_t> axes;
  for (size_t j = 0; j < scans.size(); ++j) {
    const relax::TensorStructInfoNode* t = TensorOf(scans[j]);
    if (t == nullptr || !t->HasKnownShape())
      return absl::InvalidArgumentError(absl::StrCat("scan input ", j, " needs a known shape"));
    const int64_t axis = a.in_axes[j] < 0 ? a.in_axes[j] + t->ndim : a.in_axes[j];
    if (axis < 0 || axis >= t->ndim)
      return absl::InvalidArgumentError(absl::StrCat("scan input ", j, ": axis ", a.in_axes[j], " out of range"));
    const tir::PrimExpr extent = t->Dims()[axis];  // held: AsConstInt points into it
    const int64_t* length = tir::AsConstInt(extent);
    if (length == nullptr) return ScanAsLoop(ctx, name, body, states, scans, a, extent);
    if (steps >= 0 && *length != steps) return absl::InvalidArgumentError("the scan inputs differ in sequence length");
    steps = *length;
    axes.push_back(axis);
  }
  if (steps < 0) return absl::InvalidArgumentError("needs at least one scan input");
  if (steps > kMaxUnrolledScanSteps) return ScanAsLoop(ctx, name, body, states, scans, a, tir::I64(steps));
  if (absl::Status s = SetInitializers(ctx, body); !s.ok()) return s;  // the same constants every step
  std::vector<std::vector<relax::Expr>> outputs(k);
  for (int64_t step = 0; step < steps; ++step) {
    for (size_t i = 0; i < n; ++i) ctx.SetValue(body.input(static_cast<int>(i)).name(), states[i]);
    for (size_t j = 0; j < scans.size(); ++j) {
      absl::StatusOr<relax::Expr> element =
          TakeAlong(ctx, scans[j], axes[j], a.in_reverse[j] ? steps - 1 - step : step);
      if (!element.ok()) return element.status();
      ctx.SetValue(body.input(static_cast<int>(n + j)).name(), *element);
    }
    if (absl::Status s = ConvertGraphNodes(ctx, body, absl::StrCat("in its body at step ", step, ", ")); !s.ok())
      return s;
    absl::StatusOr<std::vector<relax::Expr>> results = GraphOutputs(ctx, body, "body");
    if (!results.ok()) return results.status();
    for (size_t i = 0; i < n; ++i) states[i] = (*results)[i];
    for (size_t o = 0; o < k; ++o) outputs[o].push_back((*results)[n + o]);
  }
  for (size_t o = 0; o < k; ++o) {
    if (a.out_reverse[o]) std::reverse(outputs[o].begin(), outputs[o].end());
    const relax::TensorStructInfoNode* t = TensorOf(outputs[o][0]);
    if (t == nullptr || !t->HasKnownShape())
      return absl::InvalidArgumentError(absl::StrCat("scan output ", o, " needs a known shape"));
    const int64_t axis = a.out_axes[o] < 0 ? a.out_axes[o] + t->ndim + 1 : a.out_axes[o];
    if (axis < 0 || axis > t->ndim)
      return absl::InvalidArgumentError(absl::StrCat("scan output ", o, ": axis ", a.out_axes[o], " out of range"));
    absl::StatusOr<relax::Expr> stacked = Stack(ctx, outputs[o], axis);
    if (!stacked.ok()) return stacked.status();
    states.push_back(*stacked);
  }
  return states;
}

/*! \brief An attribute of one int per value (axes, directions); `count` zeros when absent. */
absl::StatusOr<std::vector<int64_t>> PerValueAttr(OnnxContext& ctx, const onnx::NodeProto& node,
                                                  const std::string& name, size_t count) {
  std::vector<int64_t> v = ctx.IntsAttr(node, name);
  if (v.empty()) v.assign(count, 0);
  if (v.size() != count)
    return absl::InvalidArgumentError(absl::StrCat(name, " has ", v.size(), " values for ", count));
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
  if (m <= 0 || m > inputs)
    return absl::InvalidArgumentError(absl::StrCat("num_scan_inputs ", m, " for ", inputs, " inputs"));
  const size_t n = static_cast<size_t>(inputs - m);
  if (body->input_size() != inputs || body->output_size() < static_cast<int>(n) ||
      body->output_size() != node.output_size()) {
    return absl::InvalidArgumentError(absl::StrCat("the body takes ", body->input_size(), " values and gives ",
                                                   body->output_size(), "; the node has ", inputs, " inputs and ",
                                                   node.output_size(), " outputs"));
  }
  const size_t k = static_cast<size_t>(body->output_size()) - n;
  ScanAxes axes;
  const std::pair<std::vector<int64_t>*, std::pair<const char*, size_t>> attrs[] = {
      {&axes.in_axes, {"scan_input_axes", m}},
      {&axes.in_reverse, {batched ? "directions" : "scan_input_directions", m}},
      {&axes.out_axes, {"scan_output_axes", k}},
      {&axes.out_reverse, {"scan_output_directions", k}}};
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
  const std::string name = SanitizeIdentifier(node.name().empty() ? node.output(0) : node.name());
  auto run = [&](const std::vector<relax::Expr>& all, const std::string& instance) {
    return UnrollScan(ctx, instance, *body, {all.begin(), all.begin() + n}, {all.begin() + n, all.end()}, axes);
  };
  if (!batched) return run(values, name);
  const relax::TensorStructInfoNode* first = TensorOf(values[0]);
  const tir::PrimExpr batch_dim =
      first != nullptr && first->HasKnownShape() && first->ndim > 0 ? first->Dims()[0] : tir::PrimExpr();
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
    absl::StatusOr<std::vector<relax::Expr>> got = run(element, absl::StrCat(name, "_batch", b));
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

/*! \brief What a Loop's two functions are built from: the carried values' types (fixed by the
 *         first attempt, generalized where the body changes a shape) and the node's inputs. */
struct LoopPlan {
  const onnx::GraphProto* body = nullptr;
  std::string test_name, body_name;  // the two functions
  /*! \brief The test function's definition is built under this name, then takes test_name. */
  std::string DefinitionName() const { return test_name + "_definition"; }
  bool has_trip_count = false, has_condition = false;
  relax::StructInfo condition_sinfo, trip_count_sinfo;
  std::vector<relax::StructInfo> carried;  // per loop-carried value
  std::vector<std::vector<bool>> free;     // ... its dimensions that vary (variables of the loop)
};

/*! \brief What the first call of a built Loop passes after the carried values (the scan
 *         outputs' empty starts, the trip count, the outer values), and the dimensions of each
 *         scan output its rows' shape fixes (undefined where the run decides). */
struct BuiltLoop {
  std::vector<relax::Expr> rest;
  std::vector<std::vector<tir::PrimExpr>> scan_dims;
};

/*! \brief `sinfo` with the dimensions `free` marks as fresh variables `<prefix><k>`. */
relax::StructInfo FreeDims(const relax::StructInfo& sinfo, const std::vector<bool>& free, const std::string& prefix) {
  const auto* t = sinfo.as<relax::TensorStructInfoNode>();
  std::vector<tir::PrimExpr> dims = t->HasKnownShape() ? t->Dims() : std::vector<tir::PrimExpr>(t->ndim);
  for (int k = 0; k < t->ndim; ++k) {
    if (free[k]) dims[k] = tir::MakeVar(absl::StrCat(prefix, k), DataType::Int64());
  }
  return relax::TensorSInfoOfDims(dims, t->dtype);
}

/*! \brief The names of carried value j's free dimensions: `<its body input>_d<k>`. */
std::string FreePrefix(const onnx::GraphProto& body, size_t j) {
  return absl::StrCat(SanitizeIdentifier(body.input(static_cast<int>(2 + j)).name()), "_d");
}

/*! \brief The dimensions in which `b` differs from `a` (two tensors of known shape and one rank). */
std::vector<bool> DifferentDims(const relax::StructInfo& a, const relax::StructInfo& b) {
  const auto *x = a.as<relax::TensorStructInfoNode>(), *y = b.as<relax::TensorStructInfoNode>();
  const std::vector<tir::PrimExpr> dx = x->Dims(), dy = y->Dims();
  std::vector<bool> differ(dx.size());
  for (size_t k = 0; k < dx.size(); ++k) differ[k] = !tir::ExprDeepEqual(dx[k], dy[k]);
  return differ;
}

bool SameDims(const relax::StructInfo& a, const relax::StructInfo& b) {
  const auto *x = a.as<relax::TensorStructInfoNode>(), *y = b.as<relax::TensorStructInfoNode>();
  if (x == nullptr || y == nullptr || !x->HasKnownShape() || !y->HasKnownShape()) return x == y;
  if (x->dtype != y->dtype || x->ndim != y->ndim) return false;
  const std::vector<bool> differ = DifferentDims(a, b);
  return std::none_of(differ.begin(), differ.end(), [](bool d) { return d; });
}

/*! \brief The Loop's functions, built in `sub`:
 *
 *    <test>(i, cond, v..., scans..., [trip_count], outer...):
 *      if (i < trip_count) && cond: <body>(i, cond, v..., scans..., ...) else (v..., scans...)
 *    <body>(i, cond, v..., scans..., [trip_count], outer...):
 *      cond', v'..., rows... = the ONNX body(i, cond, v...)
 *      <test>(i + 1, cond', v'..., concat(scans, rows)..., ...)
 *
 *  Both calls are tail calls: the VM runs them in constant depth. Returns the indices of the
 *  carried values whose shape the body changed (then nothing was built: the caller generalizes
 *  those and builds again), or what the first call needs. */
absl::StatusOr<std::variant<std::vector<std::pair<size_t, std::vector<bool>>>, BuiltLoop>> BuildLoop(
    OnnxContext& ctx, relax::BlockBuilder& sub, const LoopPlan& plan, const relax::Expr& trip_count) {
  const onnx::GraphProto& body = *plan.body;
  const size_t n = plan.carried.size(), k = static_cast<size_t>(body.output_size()) - 1 - n;
  OnnxContext inner(&sub, ctx.opset());
  std::vector<relax::Var> outer_params;
  std::vector<relax::Expr> outer_args;
  if (absl::Status s = CaptureOuterValues(ctx, inner, body, plan.body_name, "body", &outer_params, &outer_args);
      !s.ok())
    return s;
  const relax::StructInfo index_sinfo = relax::TensorSInfo({}, DataType::Int64());
  relax::Var i = relax::MakeVar("i", index_sinfo), cond = relax::MakeVar("cond", plan.condition_sinfo);
  std::vector<relax::Var> carried;
  for (size_t j = 0; j < n; ++j)
    carried.push_back(relax::MakeVar(SanitizeIdentifier(body.input(2 + j).name()), plan.carried[j]));

  if (absl::Status s = sub.BeginFunction(plan.body_name); !s.ok()) return s;
  if (absl::Status s = sub.BeginDataflow(); !s.ok()) return s;
  inner.SetValue(body.input(0).name(), i);
  inner.SetValue(body.input(1).name(), cond);
  for (size_t j = 0; j < n; ++j) inner.SetValue(body.input(2 + j).name(), carried[j]);
  if (absl::Status s = SetInitializers(inner, body); !s.ok()) return s;
  if (absl::Status s = ConvertGraphNodes(inner, body, "in its body, "); !s.ok()) return s;
  absl::StatusOr<std::vector<relax::Expr>> results = GraphOutputs(inner, body, "body");
  if (!results.ok()) return results.status();
  std::vector<std::pair<size_t, std::vector<bool>>> changed;
  for (size_t j = 0; j < n; ++j) {
    const relax::StructInfo& out = (*results)[1 + j]->struct_info();
    const auto *before = plan.carried[j].as<relax::TensorStructInfoNode>(),
               *after = out.as<relax::TensorStructInfoNode>();
    if (before == nullptr || after == nullptr || before->ndim != after->ndim || before->dtype != after->dtype) {
      return absl::InvalidArgumentError(absl::StrCat("the body gives loop-carried value ", j, " (",
                                                     body.output(1 + j).name(), ") as ", relax::StructInfoToString(out),
                                                     ", taken as ", relax::StructInfoToString(plan.carried[j]),
                                                     " (rank and type must stay)"));
    }
    // A dimension the body changes varies from one iteration to the next.
    std::vector<bool> differ =
        after->HasKnownShape() ? DifferentDims(plan.carried[j], out) : std::vector<bool>(after->ndim, true);
    bool more = false;
    for (size_t d = 0; d < differ.size(); ++d) {
      differ[d] = differ[d] && !plan.free[j][d];
      more = more || differ[d];
    }
    if (more) changed.emplace_back(j, differ);
  }
  if (!changed.empty()) return changed;

  // The scan outputs so far, one row per iteration: (count, row dims...). Rows of a static
  // shape are appended in place where the stack's storage has room (R.cache_append: amortized
  // constant time per row, not a copy of the stack each iteration); others by the library
  // (mlc.append_row), the stack's dimensions then all variables.
  std::vector<relax::Var> scans;
  BuiltLoop built;
  std::vector<relax::Expr> grown;
  for (size_t o = 0; o < k; ++o) {
    const relax::Expr& row = (*results)[1 + n + o];
    const std::string name = SanitizeIdentifier(body.output(1 + n + o).name());
    const relax::TensorStructInfoNode* t = TensorOf(row);
    if (t == nullptr || t->ndim < 0) {
      return absl::UnimplementedError(absl::StrCat("scan output ", o, " (", name, ") is ",
                                                   relax::StructInfoToString(row->struct_info()),
                                                   "; scan outputs must be tensors of known rank"));
    }
    std::vector<int64_t> row_shape;
    for (const tir::PrimExpr& d : t->HasKnownShape() ? t->Dims() : std::vector<tir::PrimExpr>()) {
      if (const int64_t* v = tir::AsConstInt(d)) row_shape.push_back(*v);
    }
    const bool static_rows = static_cast<int>(row_shape.size()) == t->ndim;
    std::vector<tir::PrimExpr> dims = {tir::MakeVar(absl::StrCat(plan.test_name, "_count", o), DataType::Int64())};
    std::vector<tir::PrimExpr> out_dims = {tir::PrimExpr()};
    std::vector<int64_t> empty_shape(t->ndim + 1, 0);
    for (int d = 0; d < t->ndim; ++d) {
      dims.push_back(static_rows ? tir::I64(row_shape[d])
                                 : tir::MakeVar(absl::StrCat(plan.test_name, "_row", o, "_d", d), DataType::Int64()));
      out_dims.push_back(static_rows ? tir::I64(row_shape[d]) : tir::PrimExpr());
      if (static_rows) empty_shape[d + 1] = row_shape[d];
    }
    scans.push_back(relax::MakeVar(name, relax::TensorSInfoOfDims(dims, t->dtype)));
    built.rest.push_back(relax::MakeConstant(TensorData(t->dtype, empty_shape)));
    built.scan_dims.push_back(out_dims);
    if (static_rows) {
      std::vector<tir::PrimExpr> one_row = {tir::I64(1)};
      for (int64_t d : row_shape) one_row.push_back(tir::I64(d));
      absl::StatusOr<relax::Expr> reshaped = Reshaped(inner, row, one_row);
      if (!reshaped.ok()) return reshaped.status();
      absl::StatusOr<relax::Expr> appended =
          inner.EmitOp("cache_append", {scans.back(), *reshaped}, {{"axis", int64_t{0}}});
      if (!appended.ok()) return appended.status();
      grown.push_back(*appended);
      continue;
    }
    std::vector<tir::PrimExpr> grown_dims;
    for (int d = 0; d <= t->ndim; ++d)
      grown_dims.push_back(tir::MakeVar(absl::StrCat(name, "_grown_d", d), DataType::Int64()));
    Outputs appended = CallAllocating(inner, "mlc.append_row", {scans.back(), row}, {{t->dtype, grown_dims}});
    if (!appended.ok()) return appended.status();
    grown.push_back((*appended)[0]);
  }

  // The parameters both functions take, in order; a fresh copy of each for the test function.
  std::vector<relax::Var> params = {i, cond};
  params.insert(params.end(), carried.begin(), carried.end());
  params.insert(params.end(), scans.begin(), scans.end());
  std::optional<relax::Var> trip;
  if (plan.has_trip_count) trip = relax::MakeVar("trip_count", plan.trip_count_sinfo), params.push_back(*trip);
  params.insert(params.end(), outer_params.begin(), outer_params.end());
  std::vector<relax::Var> test_params;
  for (const relax::Var& p : params) test_params.push_back(relax::MakeVar(p->name_hint, p->struct_info()));

  // The test function's declaration first (the body calls it), its definition after.
  std::vector<relax::StructInfo> returned;
  for (size_t j = 0; j < n + k; ++j) {
    const auto* t = params[2 + j]->struct_info().as<relax::TensorStructInfoNode>();
    returned.push_back(relax::TensorSInfoUnknownShape(t->dtype, t->ndim));
  }
  const relax::StructInfo ret = relax::TupleSInfo(returned);
  std::vector<relax::Expr> fields(test_params.begin() + 2, test_params.begin() + 2 + n + k);
  relax::GlobalVar test = sub.AddFunc(
      relax::MakeFunction(test_params, relax::SeqExpr(new relax::SeqExprNode({}, relax::MakeTuple(fields))), ret),
      plan.test_name);
  if (test->name != plan.test_name)
    return absl::InternalError(absl::StrCat("function ", plan.test_name, " is defined twice"));

  absl::StatusOr<relax::Expr> next = inner.EmitOp("add", {i, Scalar(1, DataType::Int64())});
  if (!next.ok()) return next.status();
  relax::Expr next_cond = cond;
  if (plan.has_condition && SameDims(plan.condition_sinfo, (*results)[0]->struct_info())) {
    next_cond = (*results)[0];
  } else if (plan.has_condition) {
    const auto* c = plan.condition_sinfo.as<relax::TensorStructInfoNode>();
    absl::StatusOr<relax::Expr> reshaped = Reshaped(inner, (*results)[0], c->Dims());
    if (!reshaped.ok()) return reshaped.status();
    next_cond = *reshaped;
  }
  std::vector<relax::Expr> args = {*next, next_cond};
  args.insert(args.end(), results->begin() + 1, results->begin() + 1 + n);
  args.insert(args.end(), grown.begin(), grown.end());
  args.insert(args.end(), params.begin() + 2 + n + k, params.end());
  absl::StatusOr<relax::Expr> again = sub.Normalize(relax::MakeCall(test, args));
  if (!again.ok()) return again.status();
  absl::StatusOr<relax::Var> result = sub.EmitOutput(*again);
  if (!result.ok()) return result.status();
  if (absl::Status s = sub.EndDataflow(); !s.ok()) return s;
  absl::StatusOr<relax::GlobalVar> body_fn = sub.EmitFuncOutput(*result, params);
  if (!body_fn.ok()) return body_fn.status();

  // The test: built under a temporary name, moved under its declared one by the caller.
  if (absl::Status s = sub.BeginFunction(plan.DefinitionName(), test_params); !s.ok()) return s;
  if (absl::Status s = sub.BeginDataflow(); !s.ok()) return s;
  relax::Expr go_on = test_params[1];
  if (plan.has_trip_count) {
    absl::StatusOr<relax::Expr> below = inner.EmitOp("less", {test_params[0], test_params[2 + n + k]});
    if (!below.ok()) return below.status();
    go_on = *below;
    if (plan.has_condition) {
      absl::StatusOr<relax::Expr> both = inner.EmitOp("logical_and", {*below, test_params[1]});
      if (!both.ok()) return both.status();
      go_on = *both;
    }
  }
  absl::StatusOr<relax::Var> decided = sub.EmitOutput(go_on);
  if (!decided.ok()) return decided.status();
  if (absl::Status s = sub.EndDataflow(); !s.ok()) return s;
  absl::StatusOr<relax::Expr> step =
      sub.Normalize(relax::MakeCall(*body_fn, std::vector<relax::Expr>(test_params.begin(), test_params.end())));
  if (!step.ok()) return step.status();
  absl::StatusOr<relax::Expr> done = sub.Normalize(relax::MakeTuple(fields));
  if (!done.ok()) return done.status();
  absl::StatusOr<relax::Var> joined = sub.Emit(relax::If(new relax::IfNode(*decided, *step, *done)));
  if (!joined.ok()) return joined.status();
  absl::StatusOr<relax::GlobalVar> definition = sub.EmitFuncOutput(*joined);
  if (!definition.ok()) return definition.status();
  if ((*definition)->name != plan.DefinitionName()) return absl::InternalError("a Loop's function name is taken");

  if (plan.has_trip_count) built.rest.push_back(trip_count);
  built.rest.insert(built.rest.end(), outer_args.begin(), outer_args.end());
  return built;
}

/*! \brief A Loop that carries a sequence unrolls up to this many iterations: each is a copy of
 *  the body. */
constexpr int64_t kMaxUnrolledLoopIterations = 256;

/*! \brief ONNX Loop unrolled at import, for one that carries a sequence (a list known at import,
 *  onnx_sequence_converters.cc, which a loop that runs with the model cannot carry): torch.onnx
 *  writes `torch.tensor_split` and list-building for loops of scripted code so (torchvision's
 *  MViT). The trip count and the condition must then be known at import, before and after every
 *  iteration; each iteration converts the body with the iteration number as a constant. */
Outputs UnrollLoop(OnnxContext& ctx, const onnx::NodeProto& node, const onnx::GraphProto& body,
                   std::vector<relax::Expr> carried) {
  const size_t n = carried.size(), k = static_cast<size_t>(body.output_size()) - 1 - n;
  int64_t trips = kMaxUnrolledLoopIterations;
  const bool bounded = ctx.HasInput(node, 0);
  if (bounded) {
    absl::StatusOr<std::vector<int64_t>> m =
        ctx.ConstantInts(node, 0, "the trip count of a Loop that carries a sequence");
    if (!m.ok()) return m.status();
    if (m->size() != 1) return absl::InvalidArgumentError("the trip count must have one element");
    trips = (*m)[0];
    if (trips > kMaxUnrolledLoopIterations) {
      return absl::UnimplementedError(
          absl::StrCat("carries a sequence, so it is unrolled at import, but its trip count ", trips, " is more than ",
                       kMaxUnrolledLoopIterations));
    }
  }
  // The condition, before the first iteration and after each.
  auto known = [&](const relax::Expr& cond, const std::string& when) -> absl::StatusOr<bool> {
    const auto* c = cond.as<relax::ConstantNode>();
    if (c == nullptr || c->data.NumElements() != 1) {
      return absl::UnimplementedError(
          absl::StrCat("carries a sequence, so it is unrolled at import, but its condition ", when,
                       " is not a one-element constant"));
    }
    return Truth(c->data);
  };
  bool go_on = true;
  if (ctx.HasInput(node, 1)) {
    absl::StatusOr<relax::Expr> cond = ctx.Input(node, 1);
    if (!cond.ok()) return cond.status();
    absl::StatusOr<bool> first = known(*cond, "before the first iteration");
    if (!first.ok()) return first.status();
    go_on = *first;
  }
  if (absl::Status s = SetInitializers(ctx, body); !s.ok()) return s;  // the same constants every iteration
  std::vector<std::vector<relax::Expr>> rows(k);
  int64_t i = 0;
  for (; go_on && i < trips; ++i) {
    ctx.SetValue(body.input(0).name(), Scalar(static_cast<double>(i), DataType::Int64()));
    ctx.SetValue(body.input(1).name(), Scalar(1, DataType::Bool()));
    for (size_t j = 0; j < n; ++j) ctx.SetValue(body.input(static_cast<int>(2 + j)).name(), carried[j]);
    if (absl::Status s = ConvertGraphNodes(ctx, body, absl::StrCat("in its body at iteration ", i, ", ")); !s.ok())
      return s;
    absl::StatusOr<std::vector<relax::Expr>> results = GraphOutputs(ctx, body, "body");
    if (!results.ok()) return results.status();
    absl::StatusOr<bool> next = known((*results)[0], absl::StrCat("after iteration ", i));
    if (!next.ok()) return next.status();
    go_on = *next;
    for (size_t j = 0; j < n; ++j) carried[j] = (*results)[1 + j];
    for (size_t o = 0; o < k; ++o) rows[o].push_back((*results)[1 + n + o]);
  }
  if (!bounded && go_on) {
    return absl::UnimplementedError(absl::StrCat("carries a sequence, so it is unrolled at import, but its condition ",
                                                 "is still true after ", kMaxUnrolledLoopIterations, " iterations"));
  }
  std::vector<relax::Expr> outs = std::move(carried);
  for (size_t o = 0; o < k && outs.size() < static_cast<size_t>(node.output_size()); ++o) {
    if (rows[o].empty()) {
      return absl::UnimplementedError(
          absl::StrCat("scan output ", o, ": no iteration ran, so the shape of its rows is not known"));
    }
    absl::StatusOr<relax::Expr> stacked = Stack(ctx, rows[o], 0);
    if (!stacked.ok()) return stacked.status();
    outs.push_back(*stacked);
  }
  outs.resize(static_cast<size_t>(node.output_size()));
  return outs;
}

/*! \brief ONNX Loop: a for loop (trip count), a while loop (condition) or both, with values
 *  carried from one iteration to the next and scan outputs (one row per iteration, stacked).
 *  It becomes two private functions that call each other (BuildLoop), so the trip count and
 *  the condition may be values computed when the model runs and the outputs' sizes with them.
 *  Carried values keep their shapes where the body does; a shape the body changes becomes
 *  symbolic. */
Outputs Loop(OnnxContext& ctx, const onnx::NodeProto& node) {
  LoopPlan plan;
  for (const onnx::AttributeProto& attr : node.attribute()) {
    if (attr.name() == "body") plan.body = &attr.g();
  }
  if (plan.body == nullptr) return absl::InvalidArgumentError("needs a body");
  const onnx::GraphProto& body = *plan.body;
  if (node.input_size() < 2)
    return absl::InvalidArgumentError("needs a trip count and a condition input (either may be empty)");
  const size_t n = static_cast<size_t>(node.input_size()) - 2;
  if (body.input_size() != static_cast<int>(n) + 2 || body.output_size() < static_cast<int>(n) + 1 ||
      node.output_size() > body.output_size() - 1) {
    return absl::InvalidArgumentError(absl::StrCat("the body takes ", body.input_size(), " values and gives ",
                                                   body.output_size(), "; the node has ", node.input_size(),
                                                   " inputs and ", node.output_size(), " outputs"));
  }
  std::vector<relax::Expr> initial;  // the carried values' starts
  for (size_t j = 0; j < n; ++j) {
    absl::StatusOr<relax::Expr> v = ctx.Input(node, static_cast<int>(2 + j));
    if (!v.ok()) return v.status();
    initial.push_back(*v);
  }
  if (std::any_of(initial.begin(), initial.end(), [](const relax::Expr& v) { return AsSequence(v) != nullptr; }))
    return UnrollLoop(ctx, node, body, std::move(initial));
  plan.has_trip_count = ctx.HasInput(node, 0);
  plan.has_condition = ctx.HasInput(node, 1);
  if (!plan.has_trip_count && !plan.has_condition) {
    return absl::InvalidArgumentError("has neither a trip count nor a condition: it would never end");
  }
  relax::Expr trip_count, condition = Scalar(1, DataType::Bool());
  auto one_element = [&](int input, const char* what, bool integer) -> absl::StatusOr<relax::Expr> {
    absl::StatusOr<relax::Expr> v = ctx.Input(node, input);
    if (!v.ok()) return v.status();
    const relax::TensorStructInfoNode* t = TensorOf(*v);
    bool ok =
        t != nullptr && t->HasKnownShape() && (integer ? t->dtype.is_int() : (t->dtype.is_bool() || t->dtype.is_int()));
    for (const tir::PrimExpr& d : ok ? t->Dims() : std::vector<tir::PrimExpr>())
      ok = ok && tir::AsConstInt(d) && *tir::AsConstInt(d) == 1;
    if (!ok)
      return absl::InvalidArgumentError(absl::StrCat("the ", what, " must be a one-element ",
                                                     integer ? "integer" : "bool", " tensor, not ",
                                                     relax::StructInfoToString((*v)->struct_info())));
    return v;
  };
  if (plan.has_trip_count) {
    absl::StatusOr<relax::Expr> v = one_element(0, "trip count", true);
    if (!v.ok()) return v.status();
    trip_count = *v;
    plan.trip_count_sinfo = trip_count->struct_info();
  }
  if (plan.has_condition) {
    absl::StatusOr<relax::Expr> v = one_element(1, "condition", false);
    if (!v.ok()) return v.status();
    condition = *v;
  }
  plan.condition_sinfo = condition->struct_info();
  for (size_t j = 0; j < n; ++j) {
    const relax::TensorStructInfoNode* t = TensorOf(initial[j]);
    if (t == nullptr || t->ndim < 0)
      return absl::UnimplementedError(absl::StrCat("loop-carried value ", j, " must be a tensor of known rank"));
    plan.free.push_back(std::vector<bool>(t->ndim, !t->HasKnownShape()));
    plan.carried.push_back(t->HasKnownShape() ? initial[j]->struct_info()
                                              : FreeDims(relax::TensorSInfoUnknownShape(t->dtype, t->ndim),
                                                         plan.free.back(), FreePrefix(body, j)));
  }
  const std::string base = SanitizeIdentifier(node.name().empty() ? node.output(0) : node.name());
  plan.test_name = ctx.bb().module().GetUniqueName(base);
  plan.body_name = ctx.bb().module().GetUniqueName(absl::StrCat(base, "_body"));
  for (;;) {
    relax::BlockBuilder sub(ctx.bb().module());
    absl::StatusOr<std::variant<std::vector<std::pair<size_t, std::vector<bool>>>, BuiltLoop>> built =
        BuildLoop(ctx, sub, plan, trip_count);
    if (!built.ok()) return built.status();
    if (const auto* changed = std::get_if<std::vector<std::pair<size_t, std::vector<bool>>>>(&*built)) {
      // Each attempt frees at least one more dimension: the shapes settle.
      for (const auto& [j, differ] : *changed) {
        for (size_t d = 0; d < differ.size(); ++d) plan.free[j][d] = plan.free[j][d] || differ[d];
        plan.carried[j] = FreeDims(plan.carried[j], differ, FreePrefix(body, j));
      }
      continue;
    }
    // The test's definition takes the name (and the signature) it was declared under.
    const std::string definition = plan.DefinitionName();
    const relax::Function defined = sub.module().LookupFunction(definition);
    const relax::StructInfo ret = sub.module().LookupFunction(plan.test_name)->ret_struct_info;
    if (absl::Status s =
            sub.UpdateFunc(definition, relax::MakeFunction(defined->params, defined->body, ret, defined->attrs));
        !s.ok())
      return s;
    if (absl::Status s = MoveFunctions(ctx, sub, {{plan.test_name, ""}, {definition, plan.test_name}}); !s.ok())
      return s;
    std::vector<relax::Expr> args = {Scalar(0, DataType::Int64()), condition};
    args.insert(args.end(), initial.begin(), initial.end());
    const BuiltLoop& loop = std::get<BuiltLoop>(*built);
    args.insert(args.end(), loop.rest.begin(), loop.rest.end());
    absl::StatusOr<relax::Expr> call = ctx.bb().Normalize(relax::MakeCall(relax::MakeGlobalVar(plan.test_name), args));
    if (!call.ok()) return call.status();
    absl::StatusOr<relax::Var> looped = ctx.bb().Emit(*call);
    if (!looped.ok()) return looped.status();
    // Each output in the type the loop gives it: a carried value's own where the body keeps
    // it, else new variables (`<output>_dim<k>`), as results of data-dependent size are.
    std::vector<relax::Expr> values;
    for (int o = 0; o < node.output_size(); ++o) {
      absl::StatusOr<relax::Expr> item = relax::MakeTupleGetItem(*looped, o);
      if (!item.ok()) return item.status();
      absl::StatusOr<relax::Var> bound = ctx.bb().Emit(*item);
      if (!bound.ok()) return bound.status();
      const auto* t = (*bound)->struct_info().as<relax::TensorStructInfoNode>();
      std::vector<tir::PrimExpr> dims(t->ndim);
      if (static_cast<size_t>(o) >= n) {
        dims = loop.scan_dims[o - n];
      } else if (SameDims(plan.carried[o], initial[o]->struct_info())) {
        dims = plan.carried[o].as<relax::TensorStructInfoNode>()->Dims();
      }
      for (int d = 0; d < t->ndim; ++d) {
        if (!dims[d].defined())
          dims[d] = tir::MakeVar(absl::StrCat(SanitizeIdentifier(node.output(o)), "_dim", d), DataType::Int64());
      }
      absl::StatusOr<relax::Expr> named =
          ctx.EmitOp("match_cast", {*bound}, {}, {relax::TensorSInfoOfDims(dims, t->dtype)});
      if (!named.ok()) return named.status();
      values.push_back(*named);
    }
    return values;
  }
}

/*! \brief A Scan over a sequence too long to unroll, or of symbolic length, as the Loop it is:
 *  the trip count the length, the body the Scan's with each scan input's element taken at the
 *  iteration number (counted from the end for a reverse input) in front; the scan outputs come
 *  out stacked on axis 0 in iteration order, then reversed and moved to their axes. */
absl::StatusOr<std::vector<relax::Expr>> ScanAsLoop(OnnxContext& ctx, const std::string& name,
                                                    const onnx::GraphProto& body,
                                                    const std::vector<relax::Expr>& states,
                                                    const std::vector<relax::Expr>& scans, const ScanAxes& a,
                                                    const tir::PrimExpr& length) {
  const std::string prefix = name + "_";  // the values the loop reads from outside
  const size_t n = states.size(), m = scans.size(), k = static_cast<size_t>(body.output_size()) - n;
  absl::StatusOr<relax::Expr> trips = ctx.SizeAsTensor(length);
  if (!trips.ok()) return trips.status();
  if (std::any_of(a.in_reverse.begin(), a.in_reverse.end(), [](int64_t r) { return r != 0; })) {  // read back to front
    absl::StatusOr<relax::Expr> last = ctx.EmitOp("subtract", {*trips, Scalar(1, DataType::Int64())});
    if (!last.ok()) return last.status();
    ctx.SetValue(prefix + "last", *last);
  }
  onnx::NodeProto loop;
  loop.set_op_type("Loop");
  loop.set_name(absl::StrCat(prefix, "loop"));
  ctx.SetValue(prefix + "trips", *trips);
  loop.add_input(prefix + "trips");
  loop.add_input("");
  for (size_t i = 0; i < n; ++i) {
    ctx.SetValue(absl::StrCat(prefix, "state", i), states[i]);
    loop.add_input(absl::StrCat(prefix, "state", i));
  }
  for (size_t o = 0; o < n + k; ++o) loop.add_output(absl::StrCat(prefix, "out", o));
  onnx::GraphProto& g = *AddAttr(&loop, "body", onnx::AttributeProto::GRAPH)->mutable_g();
  g.set_name(body.name());
  *g.mutable_initializer() = body.initializer();
  g.add_input()->set_name(prefix + "i");
  g.add_input()->set_name(prefix + "cond");
  for (size_t i = 0; i < n; ++i) *g.add_input() = body.input(static_cast<int>(i));
  for (size_t j = 0; j < m; ++j) {
    const int64_t rank = TensorOf(scans[j])->ndim, axis = a.in_axes[j] < 0 ? a.in_axes[j] + rank : a.in_axes[j];
    ctx.SetValue(absl::StrCat(prefix, "seq", j), scans[j]);
    std::string index = prefix + "i";
    if (a.in_reverse[j]) AddNode(g, "Sub", {prefix + "last", prefix + "i"}, {index = absl::StrCat(prefix, "back", j)});
    onnx::NodeProto* take =
        AddNode(g, "Gather", {absl::StrCat(prefix, "seq", j), index}, {body.input(static_cast<int>(n + j)).name()});
    AddAttr(take, "axis", onnx::AttributeProto::INT)->set_i(axis);
  }
  for (const onnx::NodeProto& node : body.node()) *g.add_node() = node;
  AddNode(g, "Identity", {prefix + "cond"}, {prefix + "cond_out"});
  g.add_output()->set_name(prefix + "cond_out");
  for (const onnx::ValueInfoProto& out : body.output()) *g.add_output() = out;
  absl::StatusOr<std::vector<relax::Expr>> looped = Loop(ctx, loop);
  if (!looped.ok()) return looped.status();
  std::vector<relax::Expr> results(looped->begin(), looped->begin() + n);
  for (size_t o = 0; o < k; ++o) {
    // One row per step: the stack is as long as the sequence.
    std::vector<tir::PrimExpr> dims = TensorOf((*looped)[n + o])->Dims();
    dims[0] = length;
    absl::StatusOr<relax::Expr> counted = ctx.EmitOp(
        "match_cast", {(*looped)[n + o]}, {}, {relax::TensorSInfoOfDims(dims, TensorOf((*looped)[n + o])->dtype)});
    if (!counted.ok()) return counted.status();
    relax::Expr stacked = *counted;
    const int64_t rank = TensorOf(stacked)->ndim, axis = a.out_axes[o] < 0 ? a.out_axes[o] + rank : a.out_axes[o];
    if (axis < 0 || axis >= rank)
      return absl::InvalidArgumentError(absl::StrCat("scan output ", o, ": axis ", a.out_axes[o], " out of range"));
    if (a.out_reverse[o]) {
      absl::StatusOr<relax::Expr> reversed = ctx.EmitOp("strided_slice", {stacked},
                                                        {{"axes", std::vector<int64_t>{0}},
                                                         {"begin", std::vector<int64_t>{-1}},
                                                         {"end", std::vector<int64_t>{-(int64_t{1} << 40)}},
                                                         {"strides", std::vector<int64_t>{-1}}});
      if (!reversed.ok()) return reversed.status();
      stacked = *reversed;
    }
    if (axis != 0) {
      std::vector<int64_t> order;
      for (int64_t d = 1; d < rank; ++d) order.push_back(d);
      order.insert(order.begin() + axis, 0);
      absl::StatusOr<relax::Expr> moved = ctx.EmitOp("permute_dims", {stacked}, {{"axes", order}});
      if (!moved.ok()) return moved.status();
      stacked = *moved;
    }
    results.push_back(stacked);
  }
  return results;
}

}  // namespace

Outputs ConvertLoop(OnnxContext& ctx, const onnx::NodeProto& node) { return Loop(ctx, node); }

void RegisterControlFlowOnnxConverters(OnnxConverterRegistry& r) {
  r.Register("If", If);
  r.Register("Scan", Scan);
  r.Register("Loop", Loop);
}

}  // namespace onnx_import
}  // namespace mlc
