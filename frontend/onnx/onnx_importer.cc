/*! \file onnx_importer.cc
 *  \brief The ONNX import loop, tensors and the converter context.
 */
#include "frontend/onnx/onnx_importer.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "frontend/onnx/onnx_external_data.h"
#include "ir/graph/branch_blocks.h"
#include "ir/graph/op.h"
#include "ir/graph/shape_util.h"
#include "ir/ops/constant_eval.h"
#include "ir/tir/prim_expr_ops.h"
#include "support/checked_math.h"
#include "support/file_util.h"
#include "support/resource_limits.h"

namespace mlc {
namespace onnx_import {

OnnxConverterRegistry& OnnxConverterRegistry::Global() {
  static OnnxConverterRegistry* registry = [] {
    auto* r = new OnnxConverterRegistry();
    RegisterCoreOnnxConverters(*r);
    RegisterNNOnnxConverters(*r);
    RegisterTransformOnnxConverters(*r);
    RegisterActivationOnnxConverters(*r);
    RegisterQuantizeOnnxConverters(*r);
    RegisterResizeOnnxConverter(*r);
    RegisterNormalizationOnnxConverters(*r);
    RegisterRearrangeOnnxConverters(*r);
    RegisterEinsumOnnxConverter(*r);
    RegisterLibraryOnnxConverters(*r);
    RegisterRecurrentOnnxConverters(*r);
    RegisterSignalOnnxConverters(*r);
    RegisterSamplingOnnxConverters(*r);
    RegisterTrainingOnnxConverters(*r);
    RegisterControlFlowOnnxConverters(*r);
    RegisterSequenceOnnxConverters(*r);
    return r;
  }();
  return *registry;
}

std::string OnnxConverterRegistry::KeyOf(const onnx::NodeProto& node) {
  if (node.domain().empty() || node.domain() == "ai.onnx") return node.op_type();
  return absl::StrCat(node.domain(), ".", node.op_type());
}

const OnnxConverter* OnnxConverterRegistry::Find(const std::string& op_type) const {
  auto it = converters_.find(op_type);
  return it == converters_.end() ? nullptr : &it->second;
}

std::vector<std::string> OnnxConverterRegistry::OpTypes() const {
  std::vector<std::string> types;
  for (const auto& [t, c] : converters_) types.push_back(t);
  return types;
}

absl::StatusOr<DataType> DtypeFromOnnx(int32_t elem_type) {
  switch (elem_type) {
    case onnx::TensorProto::FLOAT: return DataType::Float32();
    case onnx::TensorProto::DOUBLE: return DataType::Float(64);
    case onnx::TensorProto::FLOAT16: return DataType::Float(16);
    case onnx::TensorProto::INT64: return DataType::Int64();
    case onnx::TensorProto::INT32: return DataType::Int32();
    case onnx::TensorProto::INT8: return DataType::Int(8);
    case onnx::TensorProto::UINT8: return DataType::UInt(8);
    case onnx::TensorProto::INT16: return DataType::Int(16);
    case onnx::TensorProto::UINT16: return DataType::UInt(16);
    case onnx::TensorProto::UINT32: return DataType::UInt(32);
    case onnx::TensorProto::UINT64: return DataType::UInt(64);
    case onnx::TensorProto::BOOL: return DataType::Bool();
    default: return absl::InvalidArgumentError(absl::StrCat("unsupported ONNX element type ", elem_type));
  }
}

absl::StatusOr<DeclaredTensor> DeclaredTensorOf(const onnx::TensorProto& t) {
  absl::StatusOr<DataType> dtype = DtypeFromOnnx(t.data_type());
  if (!dtype.ok()) return dtype.status();
  std::vector<int64_t> shape(t.dims().begin(), t.dims().end());
  for (int64_t d : shape) {
    if (d < 0) return absl::DataLossError(absl::StrCat("tensor ", t.name(), " has a negative dimension ", d));
  }
  const int64_t bytes = TensorBytes(shape, *dtype);
  return DeclaredTensor{*dtype, std::move(shape), bytes};
}

// With `owned` (t itself, movable), raw data is moved out of it instead of copied.
static absl::StatusOr<TensorData> TensorFromOnnx(const onnx::TensorProto& t, onnx::TensorProto* owned);

absl::StatusOr<TensorData> TensorFromOnnx(const onnx::TensorProto& t) { return TensorFromOnnx(t, nullptr); }

absl::StatusOr<TensorData> TensorFromOnnx(onnx::TensorProto&& t) { return TensorFromOnnx(t, &t); }

static absl::StatusOr<TensorData> TensorFromOnnx(const onnx::TensorProto& t, onnx::TensorProto* owned) {
  absl::StatusOr<DeclaredTensor> declared = DeclaredTensorOf(t);
  if (!declared.ok()) return declared.status();
  const DataType* dtype = &declared->dtype;
  const std::vector<int64_t>& shape = declared->shape;
  int64_t n = NumElements(shape);  // saturates: a shape the data cannot fill fails below
  if (IsExternal(t)) {
    return absl::UnimplementedError(
        absl::StrCat("tensor ", t.name(), " uses external data, which only initializers may"));
  }
  // The data must be there before anything is allocated for it: the shape alone is a claim.
  const int64_t bytes = declared->bytes;
  int64_t held = 0;
  switch (t.has_raw_data() ? -1 : t.data_type()) {
    case -1: held = static_cast<int64_t>(t.raw_data().size()) / std::max(1, dtype->bytes()); break;
    case onnx::TensorProto::FLOAT: held = t.float_data_size(); break;
    case onnx::TensorProto::DOUBLE: held = t.double_data_size(); break;
    case onnx::TensorProto::INT64: held = t.int64_data_size(); break;
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT64: held = t.uint64_data_size(); break;
    default: held = t.int32_data_size(); break;
  }
  if (held != n || (t.has_raw_data() && static_cast<int64_t>(t.raw_data().size()) != bytes)) {
    return absl::DataLossError(absl::StrCat("tensor ", t.name(), " of shape ", relax::ShapeToString(shape), " holds ",
                                            t.has_raw_data() ? t.raw_data().size() : held,
                                            t.has_raw_data() ? " bytes" : " values", ", needs ",
                                            t.has_raw_data() ? bytes : n));
  }
  if (t.has_raw_data() && owned != nullptr) return TensorData(*dtype, shape, std::move(*owned->mutable_raw_data()));
  TensorData out(*dtype, shape);
  if (t.has_raw_data()) {
    std::memcpy(out.mutable_data(), t.raw_data().data(), static_cast<size_t>(bytes));
    return out;
  }
  auto fill = [&](const auto& values, auto cast) -> absl::Status {
    if (values.size() != n) {
      return absl::DataLossError(absl::StrCat("tensor ", t.name(), " holds ", values.size(), " values, needs ", n));
    }
    for (int64_t i = 0; i < n; ++i) cast(i, values[i]);
    return absl::OkStatus();
  };
  char* p = static_cast<char*>(out.mutable_data());
  absl::Status s;
  switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
      s = fill(t.float_data(), [&](int64_t i, float v) { std::memcpy(p + 4 * i, &v, 4); });
      break;
    case onnx::TensorProto::DOUBLE:
      s = fill(t.double_data(), [&](int64_t i, double v) { std::memcpy(p + 8 * i, &v, 8); });
      break;
    case onnx::TensorProto::INT64:
      s = fill(t.int64_data(), [&](int64_t i, int64_t v) { std::memcpy(p + 8 * i, &v, 8); });
      break;
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT64:  // both in uint64_data
      s = fill(t.uint64_data(),
               [&](int64_t i, uint64_t v) { std::memcpy(p + dtype->bytes() * i, &v, dtype->bytes()); });
      break;
    default:  // int32_data: int32, and the narrower integers, bool and float16's bits
      s = fill(t.int32_data(), [&](int64_t i, int32_t v) {
        int64_t wide = v;
        std::memcpy(p + dtype->bytes() * i, &wide, dtype->bytes());
      });
  }
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<relax::Expr> OnnxContext::Value(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) {
    if (shape_values_.count(name)) {
      return absl::UnimplementedError(absl::StrCat("value ", name, " is a shape computed from symbolic dimensions, ",
                                                   "which this operator cannot take as a tensor"));
    }
    return absl::InvalidArgumentError(absl::StrCat("value ", name, " is not defined"));
  }
  return it->second;
}

absl::StatusOr<relax::Expr> OnnxContext::Input(const onnx::NodeProto& node, int i) {
  if (i >= node.input_size() || node.input(i).empty()) {
    return absl::InvalidArgumentError(absl::StrCat("input ", i, " is missing"));
  }
  return MaterializedValue(node.input(i));
}

bool OnnxContext::HasInput(const onnx::NodeProto& node, int i) const {
  return i < node.input_size() && !node.input(i).empty();
}

const TensorData* OnnxContext::ConstantInput(const onnx::NodeProto& node, int i) const {
  if (!HasInput(node, i)) return nullptr;
  auto it = values_.find(node.input(i));
  if (it == values_.end()) return nullptr;
  const auto* c = it->second.as<relax::ConstantNode>();
  return c ? &c->data : nullptr;
}

absl::StatusOr<std::vector<int64_t>> OnnxContext::ConstantInts(const onnx::NodeProto& node, int i,
                                                               const std::string& what) const {
  const TensorData* t = ConstantInput(node, i);
  if (t == nullptr)
    return absl::UnimplementedError(absl::StrCat(what, " must be a constant (an initializer or a Constant node)"));
  // Any integer or bool element type: exporters write axes as int64, pads as int32, a bool
  // training_mode, a uint8 flag.
  const DataType dtype = t->dtype();
  if (dtype == DataType::Int64()) {  // exactly, beyond 2^53 (INT64_MAX as "to the end" in Slice)
    return std::vector<int64_t>(t->data_as<int64_t>(), t->data_as<int64_t>() + t->NumElements());
  }
  const bool integral = dtype.is_bool() || ((dtype.is_int() || dtype.is_uint()) && dtype.bits() <= 64);
  std::optional<std::vector<double>> values = integral ? ValuesAsDouble(*t) : std::nullopt;
  if (!values)
    return absl::UnimplementedError(absl::StrCat(what, " must be an integer or bool tensor, not ", dtype.ToString()));
  std::vector<int64_t> v;
  for (double d : *values) v.push_back(static_cast<int64_t>(d));
  return v;
}

std::string SanitizeIdentifier(const std::string& name) {
  std::string out;
  for (char c : name) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "d_" + out;
  return out;
}

namespace {

const onnx::AttributeProto* FindAttr(const onnx::NodeProto& node, const std::string& name) {
  for (const onnx::AttributeProto& a : node.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}
}  // namespace

bool OnnxContext::HasAttr(const onnx::NodeProto& node, const std::string& name) const {
  return FindAttr(node, name) != nullptr;
}
int64_t OnnxContext::IntAttr(const onnx::NodeProto& node, const std::string& name, int64_t fallback) const {
  const onnx::AttributeProto* a = FindAttr(node, name);
  return a && a->has_i() ? a->i() : fallback;
}
float OnnxContext::FloatAttr(const onnx::NodeProto& node, const std::string& name, float fallback) const {
  const onnx::AttributeProto* a = FindAttr(node, name);
  return a && a->has_f() ? a->f() : fallback;
}
std::vector<int64_t> OnnxContext::IntsAttr(const onnx::NodeProto& node, const std::string& name) const {
  const onnx::AttributeProto* a = FindAttr(node, name);
  return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : std::vector<int64_t>{};
}

std::vector<float> OnnxContext::FloatsAttr(const onnx::NodeProto& node, const std::string& name) const {
  const onnx::AttributeProto* a = FindAttr(node, name);
  return a ? std::vector<float>(a->floats().begin(), a->floats().end()) : std::vector<float>{};
}

std::string OnnxContext::StringAttr(const onnx::NodeProto& node, const std::string& name,
                                    const std::string& fallback) const {
  const onnx::AttributeProto* a = FindAttr(node, name);
  return a ? a->s() : fallback;
}

std::vector<std::string> OnnxContext::StringsAttr(const onnx::NodeProto& node, const std::string& name) const {
  const onnx::AttributeProto* a = FindAttr(node, name);
  return a ? std::vector<std::string>(a->strings().begin(), a->strings().end()) : std::vector<std::string>{};
}

absl::StatusOr<relax::Expr> OnnxContext::EmitOp(const std::string& op, std::vector<relax::Expr> args, Attrs attrs,
                                                std::vector<relax::StructInfo> sinfo_args) {
  absl::StatusOr<relax::Op> o = relax::GetOp(op);
  if (!o.ok()) return o.status();
  absl::StatusOr<relax::Expr> call =
      bb_->Normalize(relax::MakeCall(*o, std::move(args), std::move(attrs), std::move(sinfo_args)));
  if (!call.ok()) return call.status();
  // Shape computations (Shape -> Gather -> Concat -> Reshape) and other calls on constants are
  // evaluated now, by the same evaluator as fold-constant, so converters see their values.
  // Not those whose folding loses information (dequantize of int8 weights).
  bool fold = !(*o)->info().keep_on_import;
  for (const relax::Expr& a : call->as<relax::CallNode>()->args) fold &= a->kind() == NodeKind::kConstant;
  if (fold) {
    absl::StatusOr<TensorData> value = relax::EvaluateConstantCall(*call->as<relax::CallNode>(), &bb_->module());
    if (value.ok()) return relax::MakeConstant(*value);
  }
  absl::StatusOr<relax::Var> v = bb_->Emit(*call);
  if (!v.ok()) return v.status();
  return relax::Expr(*v);
}

// With `owned` (model itself, movable), the initializers' bytes are moved out of it.
static absl::StatusOr<IRModule> ImportOnnx(const onnx::ModelProto& model, onnx::ModelProto* owned,
                                           const OnnxImportOptions& options);

absl::StatusOr<IRModule> ImportOnnx(const onnx::ModelProto& model, const OnnxImportOptions& options) {
  return ImportOnnx(model, nullptr, options);
}

absl::StatusOr<IRModule> ImportOnnx(onnx::ModelProto&& model, const OnnxImportOptions& options) {
  return ImportOnnx(model, &model, options);
}

absl::Status ConvertGraphNodes(OnnxContext& ctx, const onnx::GraphProto& graph, const std::string& scope,
                               const std::string& failure_hint) {
  const OnnxConverterRegistry& registry = OnnxConverterRegistry::Global();
  const int64_t opset = ctx.opset();
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& node = graph.node(i);
    std::string where = absl::StrCat(scope, "node ", i, node.name().empty() ? "" : absl::StrCat(" '", node.name(), "'"),
                                     " (", node.op_type(), ", opset ", opset, ")");
    const std::string key = OnnxConverterRegistry::KeyOf(node);
    if (key == node.op_type()) {  // shape subgraphs are of the default domain
      absl::StatusOr<bool> folded = FoldShapeNode(ctx, node);
      if (!folded.ok())
        return absl::Status(folded.status().code(), absl::StrCat(where, ": ", folded.status().message()));
      if (*folded) continue;
    }
    const OnnxConverter* converter = registry.Find(key);
    if (converter == nullptr) {
      return absl::UnimplementedError(absl::StrCat(where, ": unsupported operator ", key,
                                                   " (supported: ", absl::StrJoin(registry.OpTypes(), ", "),
                                                   "; docs/importer_operators.md)"));
    }
    absl::StatusOr<std::vector<relax::Expr>> outs = (*converter)(ctx, node);
    if (!outs.ok())
      return absl::Status(outs.status().code(), absl::StrCat(where, ": ", outs.status().message(), failure_hint));
    for (int o = 0; o < node.output_size() && o < static_cast<int>(outs->size()); ++o) {
      if (!node.output(o).empty()) ctx.SetValue(node.output(o), (*outs)[o]);
    }
  }
  return absl::OkStatus();
}

static absl::StatusOr<IRModule> ImportOnnx(const onnx::ModelProto& model, onnx::ModelProto* owned,
                                           const OnnxImportOptions& options) {
  int64_t opset = 0;
  for (const onnx::OperatorSetIdProto& o : model.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
  }
  // A graph of other domains' operators only (ai.onnx.preview.training) need not import the
  // default one; its converters read no opset.
  bool default_domain = false;
  for (const onnx::NodeProto& node : model.graph().node())
    default_domain |= node.domain().empty() || node.domain() == "ai.onnx";
  if (opset == 0 && !default_domain) opset = 17;
  if (opset < 1 || opset > 17) {
    return absl::UnimplementedError(absl::StrCat("opset ", opset,
                                                 " is not supported (11 to 17 are, and older ones whose "
                                                 "operators have not changed since)"));
  }
  const onnx::GraphProto& graph = model.graph();
  if (opset < 11) {
    for (int i = 0; i < graph.node_size(); ++i) {
      const onnx::NodeProto& node = graph.node(i);
      // An operator without a converter is reported as unsupported when its turn comes.
      const std::string key = OnnxConverterRegistry::KeyOf(node);
      if (key == node.op_type() && OnnxConverterRegistry::Global().Find(key) != nullptr &&
          OldestOpsetWithSameDefinition(node.op_type()) > opset) {
        return absl::UnimplementedError(
            absl::StrCat("node ", i, " (", node.op_type(), "): its opset-", opset,
                         " definition differs from the opset-11 one this importer implements; "
                         "re-export the model with opset 11 to 17"));
      }
    }
  }
  relax::BlockBuilder bb;
  OnnxContext ctx(&bb, opset);
  std::vector<relax::Var> params;
  std::set<std::string> initializer_names;
  int64_t constant_bytes = 0;
  for (int index = 0; index < graph.initializer_size(); ++index) {
    const onnx::TensorProto& init = graph.initializer(index);
    auto fail = [&init](const absl::Status& s) {
      return absl::Status(s.code(), absl::StrCat("initializer ", init.name(), ": ", s.message()));
    };
    absl::StatusOr<DeclaredTensor> declared = DeclaredTensorOf(init);
    if (!declared.ok()) return fail(declared.status());
    const int64_t bytes = declared->bytes;
    initializer_names.insert(init.name());
    if (options.keep_params_in_input) {  // its values come with each call: nothing is read
      relax::Var v =
          relax::MakeVar(SanitizeIdentifier(init.name()), relax::TensorSInfo(declared->shape, declared->dtype));
      params.push_back(v);
      ctx.SetValue(init.name(), v);
      continue;
    }
    // What the shapes claim is checked before anything is read or allocated.
    if (bytes > GetResourceLimits().max_tensor_bytes) {
      return fail(absl::ResourceExhaustedError(
          absl::StrCat("needs ", HumanBytes(bytes), " (", LimitHint("max_tensor_bytes"), ")")));
    }
    constant_bytes = SaturatingAdd(constant_bytes, bytes);
    if (constant_bytes > GetResourceLimits().max_constant_bytes) {
      return fail(absl::ResourceExhaustedError(absl::StrCat(
          "the initializers up to this one need ", HumanBytes(constant_bytes), " (", LimitHint("max_constant_bytes"),
          "); import with --keep_params_in_input to make them parameters of main instead of constants")));
    }
    absl::StatusOr<TensorData> data =
        IsExternal(init)   ? ReadExternalTensor(init, *declared, options.external_data_dir)
        : owned != nullptr ? TensorFromOnnx(std::move(*owned->mutable_graph()->mutable_initializer(index)))
                           : TensorFromOnnx(init);
    if (!data.ok()) return fail(data.status());
    ctx.SetValue(init.name(), relax::MakeConstant(*data));
  }
  std::vector<relax::Var> inputs;
  // A dim_param is a shape variable of main (one per name, shared by the inputs that use it),
  // unless `dims` pins it; a dimension with neither value nor name gets a variable of its own.
  std::map<std::string, tir::Var> shape_vars;
  for (const onnx::ValueInfoProto& in : graph.input()) {
    if (initializer_names.count(in.name())) continue;
    const onnx::TypeProto::Tensor& t = in.type().tensor_type();
    absl::StatusOr<DataType> dtype = DtypeFromOnnx(t.elem_type());
    if (!dtype.ok())
      return absl::InvalidArgumentError(absl::StrCat("input ", in.name(), ": ", dtype.status().message()));
    std::vector<tir::PrimExpr> shape;
    for (int k = 0; k < t.shape().dim_size(); ++k) {
      const onnx::TensorShapeProto::Dimension& d = t.shape().dim(k);
      if (d.has_dim_value()) {
        if (d.dim_value() < 0)
          return absl::InvalidArgumentError(absl::StrCat("input ", in.name(), " dimension ", k, " is negative"));
        shape.push_back(tir::I64(d.dim_value()));
        continue;
      }
      if (auto pinned = options.dims.find(d.dim_param()); pinned != options.dims.end()) {
        shape.push_back(tir::I64(pinned->second));
        continue;
      }
      std::string name = d.dim_param().empty() ? absl::StrCat(in.name(), "_dim", k) : d.dim_param();
      auto [it, added] = shape_vars.emplace(name, tir::Var());
      if (added) it->second = tir::MakeVar(SanitizeIdentifier(name), DataType::Int64());
      shape.push_back(it->second);
    }
    relax::Var v = relax::MakeVar(SanitizeIdentifier(in.name()), relax::TensorSInfoOfDims(shape, *dtype));
    inputs.push_back(v);
    ctx.SetValue(in.name(), v);
  }
  inputs.insert(inputs.end(), params.begin(), params.end());
  if (absl::Status s = bb.BeginFunction("main", inputs); !s.ok()) return s;
  if (absl::Status s = bb.BeginDataflow(); !s.ok()) return s;
  std::string hint;
  if (!shape_vars.empty()) {
    std::vector<std::string> pins;
    for (const auto& [name, var] : shape_vars) pins.push_back(absl::StrCat(name, "=<size>"));
    hint = absl::StrCat(
        " (the inputs have symbolic dimensions; where an operator needs static shapes, pin them with --dim ",
        absl::StrJoin(pins, ","), ")");
  }
  if (absl::Status s = ConvertGraphNodes(ctx, graph, "", hint); !s.ok()) return s;
  std::vector<relax::Expr> results;
  for (const onnx::ValueInfoProto& out : graph.output()) {
    absl::StatusOr<relax::Expr> v = ctx.MaterializedValue(out.name());
    if (!v.ok()) return absl::InvalidArgumentError(absl::StrCat("graph output ", out.name(), " is not computed"));
    results.push_back(*v);
  }
  if (results.empty()) return absl::InvalidArgumentError("the graph has no outputs");
  relax::Expr result = results.size() == 1 ? results[0] : relax::MakeTuple(results);
  absl::StatusOr<relax::Var> gv = bb.EmitOutput(result);
  if (!gv.ok()) return gv.status();
  if (absl::Status s = bb.EndDataflow(); !s.ok()) return s;
  absl::StatusOr<relax::GlobalVar> main = bb.EmitFuncOutput(*gv);
  if (!main.ok()) return main.status();
  IRModule mod = bb.Get();
  for (const auto& [name, func] : bb.module().functions()) {
    const auto* f = func.as<relax::FunctionNode>();
    if (f == nullptr) continue;
    absl::StatusOr<relax::Function> moved = relax::MoveBranchesOutOfDataflow(relax::Function(f), bb.module());
    if (!moved.ok()) return moved.status();
    mod.Add(name, *moved);
  }
  return mod;
}

absl::StatusOr<IRModule> ImportOnnxFile(const std::string& path, const OnnxImportOptions& options) {
  absl::StatusOr<std::string> bytes = ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  onnx::ModelProto model;
  if (!model.ParseFromString(*bytes)) {
    if (bytes->size() > size_t{INT32_MAX}) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": ", HumanBytes(static_cast<int64_t>(bytes->size())),
                       " is more than one Protobuf message holds (2 GiB); save the weights as "
                       "external data (onnx.save_model(..., save_as_external_data=True))"));
    }
    return absl::DataLossError(absl::StrCat(path, ": not a valid ONNX model"));
  }
  OnnxImportOptions with_dir = options;
  if (with_dir.external_data_dir.empty())
    with_dir.external_data_dir = std::filesystem::path(path).parent_path().string();
  absl::StatusOr<IRModule> mod = ImportOnnx(std::move(model), with_dir);
  if (!mod.ok()) return absl::Status(mod.status().code(), absl::StrCat(path, ": ", mod.status().message()));
  return mod;
}

}  // namespace onnx_import
}  // namespace mlc
