/*! \file fx_importer.cc
 *  \brief The FX importer loop and its context.
 */
#include "frontend/torch/fx_importer.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "frontend/common/size_value.h"
#include "frontend/torch/fx_converter_util.h"
#include "ir/graph/op.h"
#include "ir/tir/prim_expr_ops.h"
#include "support/checked_math.h"
#include "support/file_util.h"

namespace mlc {
namespace fx {

FxConverterRegistry& FxConverterRegistry::Global() {
  static FxConverterRegistry* registry = [] {
    auto* r = new FxConverterRegistry();
    RegisterCoreFxConverters(*r);
    RegisterNNFxConverters(*r);
    RegisterTransformerFxConverters(*r);
    RegisterShapeFxConverters(*r);
    RegisterIndexingFxConverters(*r);
    RegisterRecurrentFxConverters(*r);
    RegisterAtenFxConverters(*r);
    return r;
  }();
  return *registry;
}

void FxConverterRegistry::Register(Kind kind, const std::string& key, FxConverter converter) {
  converters_[kind][key] = std::move(converter);
}

const FxConverter* FxConverterRegistry::Find(Kind kind, const std::string& key) const {
  auto it = converters_[kind].find(key);
  return it == converters_[kind].end() ? nullptr : &it->second;
}

std::vector<std::string> FxConverterRegistry::Keys(Kind kind) const {
  std::vector<std::string> keys;
  for (const auto& [k, c] : converters_[kind]) keys.push_back(k);
  return keys;
}

absl::StatusOr<relax::Expr> FxContext::SizeAsTensor(const tir::PrimExpr& size) {
  return frontend::SizeAsTensor(frontend::EmitterOf(*this), values_, size);
}

absl::StatusOr<relax::Expr> FxContext::SizeRange(const tir::PrimExpr& start, const tir::PrimExpr& limit,
                                                 const tir::PrimExpr& step, DataType dtype) {
  return frontend::SizeRange(frontend::EmitterOf(*this), values_, start, limit, step, dtype);
}

absl::StatusOr<relax::Expr> FxContext::Value(const proto::FxArg& arg) const {
  if (arg.value_case() != proto::FxArg::kNode) return absl::InvalidArgumentError("expected a tensor argument");
  auto it = values_.find(arg.node());
  if (it == values_.end()) return absl::InvalidArgumentError(absl::StrCat("node ", arg.node(), " has no value (yet)"));
  return it->second;
}

absl::StatusOr<relax::Expr> FxContext::Arg(const proto::FxNode& node, int i) const {
  if (i >= node.args_size()) return absl::InvalidArgumentError(absl::StrCat("missing argument ", i));
  return Value(node.args(i));
}

absl::StatusOr<relax::Expr> FxContext::Arg(const proto::FxNode& node, int i, const std::string& keyword) const {
  if (i < node.args_size()) return Value(node.args(i));
  auto it = node.kwargs().find(keyword);
  if (it == node.kwargs().end())
    return absl::InvalidArgumentError(absl::StrCat("missing argument ", i, " (", keyword, ")"));
  return Value(it->second);
}

bool FxContext::HasParam(const std::string& name) const { return graph_->parameters().count(name) > 0; }

absl::StatusOr<relax::Expr> FxContext::Param(const std::string& name) const {
  auto cached = params_.find(name);
  if (cached != params_.end()) return cached->second;
  auto it = graph_->parameters().find(name);
  if (it == graph_->parameters().end()) return absl::NotFoundError(absl::StrCat("the module has no parameter ", name));
  const proto::FxTensor& t = it->second;
  absl::StatusOr<DataType> dtype = DataType::Parse(t.dtype());
  if (!dtype.ok()) return absl::DataLossError(absl::StrCat("parameter ", name, ": ", dtype.status().message()));
  std::vector<int64_t> shape(t.shape().begin(), t.shape().end());
  if (static_cast<int64_t>(t.data().size()) != TensorBytes(shape, *dtype)) {
    return absl::DataLossError(absl::StrCat("parameter ", name, " holds ", t.data().size(), " bytes, its shape needs ",
                                            TensorBytes(shape, *dtype)));
  }
  relax::Expr c = relax::MakeConstant(TensorData(*dtype, shape, t.data()));
  params_[name] = c;
  return c;
}

relax::Expr FxContext::Scalar(double value, DataType dtype) { return relax::MakeConstant(ScalarTensor(value, dtype)); }

absl::StatusOr<relax::Expr> FxContext::EmitOp(const std::string& op, std::vector<relax::Expr> args, Attrs attrs) {
  return EmitOp(op, std::move(args), std::move(attrs), {});
}

absl::StatusOr<relax::Expr> FxContext::EmitOp(const std::string& op, std::vector<relax::Expr> args, Attrs attrs,
                                              std::vector<relax::StructInfo> sinfo_args) {
  absl::StatusOr<relax::Op> o = relax::GetOp(op);
  if (!o.ok()) return o.status();
  absl::StatusOr<relax::Var> v =
      bb_->Emit(relax::MakeCall(*o, std::move(args), std::move(attrs), std::move(sinfo_args)));
  if (!v.ok()) return v.status();
  return relax::Expr(*v);
}

namespace {

/*! \brief A placeholder's struct info: its recorded shape, with each named dimension the shape
 *  variable of that name (one per name across the inputs). */
absl::StatusOr<relax::StructInfo> PlaceholderSInfo(const proto::FxNode& node,
                                                   std::map<std::string, tir::Var>* shape_vars) {
  if (node.outputs_size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("input ", node.name(), " has no recorded shape (run shape propagation)"));
  }
  const proto::TensorMeta& meta = node.outputs(0);
  absl::StatusOr<DataType> dtype = DataType::Parse(meta.dtype());
  if (!dtype.ok()) return dtype.status();
  if (meta.dim_names_size() != 0 && meta.dim_names_size() != meta.shape_size()) {
    return absl::DataLossError(absl::StrCat("input ", node.name(), ": ", meta.dim_names_size(), " dimension names for ",
                                            meta.shape_size(), " dimensions"));
  }
  std::vector<tir::PrimExpr> dims;
  for (int d = 0; d < meta.shape_size(); ++d) {
    const std::string name = d < meta.dim_names_size() ? meta.dim_names(d) : "";
    if (name.empty()) {
      dims.push_back(tir::I64(meta.shape(d)));
      continue;
    }
    auto [it, added] = shape_vars->emplace(name, tir::Var());
    if (added) it->second = tir::MakeVar(name, DataType::Int64());
    dims.push_back(it->second);
  }
  return relax::TensorSInfoOfDims(dims, *dtype);
}

absl::StatusOr<relax::Expr> OutputValue(FxContext& ctx, const proto::FxArg& arg) {
  if (arg.value_case() == proto::FxArg::kList) {
    std::vector<relax::Expr> fields;
    for (const proto::FxArg& item : arg.list().items()) {
      absl::StatusOr<relax::Expr> f = OutputValue(ctx, item);
      if (!f.ok()) return f.status();
      fields.push_back(*f);
    }
    return relax::MakeTuple(fields);
  }
  return ctx.Value(arg);
}

}  // namespace

absl::StatusOr<IRModule> ImportFx(const proto::FxGraph& graph) {
  if (graph.magic() != "mlc.fx") return absl::InvalidArgumentError("not an FX graph file (bad magic)");
  if (graph.format_version() != 1) {
    return absl::FailedPreconditionError(
        absl::StrCat("FX graph format version ", graph.format_version(), " is not supported"));
  }
  relax::BlockBuilder bb;
  FxContext ctx(&bb, &graph);
  const FxConverterRegistry& registry = FxConverterRegistry::Global();
  std::vector<relax::Var> params;
  std::map<std::string, tir::Var> shape_vars;
  if (absl::Status s = bb.BeginFunction("main"); !s.ok()) return s;
  if (absl::Status s = bb.BeginDataflow(); !s.ok()) return s;
  relax::Expr result;
  for (const proto::FxNode& node : graph.nodes()) {
    auto error = [&](const std::string& msg) {
      return absl::InvalidArgumentError(
          absl::StrCat("node ", node.name(), " (", node.op(), " ", node.target(), "): ", msg));
    };
    absl::StatusOr<relax::Expr> value;
    if (node.op() == "placeholder") {
      absl::StatusOr<relax::StructInfo> sinfo = PlaceholderSInfo(node, &shape_vars);
      if (!sinfo.ok()) return error(std::string(sinfo.status().message()));
      relax::Var v = relax::MakeVar(node.target(), *sinfo);
      params.push_back(v);
      value = relax::Expr(v);
    } else if (node.op() == "get_attr") {
      value = ctx.Param(node.target());
    } else if (node.op() == "output") {
      if (node.args_size() != 1) return error("output takes one argument");
      absl::StatusOr<relax::Expr> out = OutputValue(ctx, node.args(0));
      if (!out.ok()) return error(std::string(out.status().message()));
      absl::StatusOr<relax::Var> gv = bb.EmitOutput(*out);
      if (!gv.ok()) return error(std::string(gv.status().message()));
      result = *gv;
      continue;
    } else {
      FxConverterRegistry::Kind kind;
      std::string key;
      if (node.op() == "call_function") {
        kind = FxConverterRegistry::kFunction;
        key = node.target();
      } else if (node.op() == "call_module") {
        kind = FxConverterRegistry::kModule;
        key = node.module_type();
      } else if (node.op() == "call_method") {
        kind = FxConverterRegistry::kMethod;
        key = node.target();
      } else {
        return error("unknown node op");
      }
      const FxConverter* converter = registry.Find(kind, key);
      if (converter == nullptr) {
        const char* what = kind == FxConverterRegistry::kFunction ? "function"
                           : kind == FxConverterRegistry::kModule ? "module"
                                                                  : "method";
        return error(absl::StrCat("unsupported ", what, " ", key,
                                  " (supported: ", absl::StrJoin(registry.Keys(kind), ", "),
                                  "; register more with MLC_REGISTER_FX_CONVERTER)"));
      }
      value = (*converter)(ctx, node);
    }
    if (!value.ok()) return error(std::string(value.status().message()));
    ctx.SetValue(node.name(), *value);
  }
  if (!result.defined()) return absl::InvalidArgumentError("the graph has no output node");
  if (absl::Status s = bb.EndDataflow(); !s.ok()) return s;
  absl::StatusOr<relax::GlobalVar> main = bb.EmitFuncOutput(result, params);
  if (!main.ok()) return main.status();
  return bb.Get();
}

absl::StatusOr<IRModule> ImportFxFile(const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  proto::FxGraph graph;
  if (!graph.ParseFromString(*bytes)) return absl::DataLossError(absl::StrCat(path, ": not a valid FX graph file"));
  absl::StatusOr<IRModule> mod = ImportFx(graph);
  if (!mod.ok()) return absl::Status(mod.status().code(), absl::StrCat(path, ": ", mod.status().message()));
  return mod;
}

}  // namespace fx
}  // namespace mlc
