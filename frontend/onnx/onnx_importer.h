/*! \file onnx_importer.h
 *  \brief ONNX ModelProto -> IRModule.
 *
 *  Opsets 11-17. Initializers become constants (or function parameters with
 *  `keep_params_in_input`); graph inputs become parameters with their static shapes, a symbolic
 *  dimension being pinned with `dims` ("batch" -> 1) or rejected with a message naming it.
 *  Nodes are converted in order by a registry keyed by op_type (onnx_converters.cc; extend it
 *  with MLC_REGISTER_ONNX_CONVERTER). An unsupported operator is an error naming the node, its
 *  op_type and the supported ones; nothing half-built is returned.
 */
#ifndef MLC_FRONTEND_ONNX_ONNX_IMPORTER_H_
#define MLC_FRONTEND_ONNX_ONNX_IMPORTER_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/graph/block_builder.h"
#include "ir/graph/module.h"
#include "onnx.pb.h"

namespace mlc {
namespace onnx_import {

struct OnnxImportOptions {
  /*! \brief Initializers become parameters of main (after the graph inputs) instead of
   *         constants; their bytes are not read. */
  bool keep_params_in_input = false;
  /*! \brief Where external data locations are relative to (ImportOnnxFile: the model's
   *         directory). */
  std::string external_data_dir;
  /*! \brief Values for symbolic dimensions, by name ("batch" -> 1). */
  std::map<std::string, int64_t> dims;
};

/*! \brief An int64 value of rank 0 or 1 known at import time as shape expressions: the Shape of a
 *         tensor with symbolic dimensions, and the Gather / Concat / arithmetic a graph applies
 *         to it before Reshape (onnx_shape_values.cc). It has no run-time tensor. */
struct ShapeValue {
  std::vector<tir::PrimExpr> elements;
  bool scalar = false;
  bool boolean = false;  // a comparison's result (elements 0 or 1), a bool tensor when constant
};

/*! \brief What a converter sees: the builder, the values of node inputs, attributes. */
class OnnxContext {
 public:
  OnnxContext(relax::BlockBuilder* bb, int64_t opset) : bb_(bb), opset_(opset) {}

  relax::BlockBuilder& bb() { return *bb_; }
  int64_t opset() const { return opset_; }
  /*! \brief Input i of the node ("" inputs, i.e. omitted optional ones, are null); a symbolic
   *         shape value is computed as an int64 tensor (once) for converters that need one. */
  absl::StatusOr<relax::Expr> Input(const onnx::NodeProto& node, int i);
  bool HasInput(const onnx::NodeProto& node, int i) const;
  /*! \brief A value by its ONNX name. */
  absl::StatusOr<relax::Expr> Value(const std::string& name) const;
  /*! \brief The constant tensor behind input i (initializer or Constant node), if it is one. */
  const TensorData* ConstantInput(const onnx::NodeProto& node, int i) const;
  /*! \brief The values of input i, which must be a constant int32 or int64 tensor (shapes, axes,
   *  pads, slice bounds), or an error naming `what`. */
  absl::StatusOr<std::vector<int64_t>> ConstantInts(const onnx::NodeProto& node, int i, const std::string& what) const;

  int64_t IntAttr(const onnx::NodeProto& node, const std::string& name, int64_t fallback) const;
  float FloatAttr(const onnx::NodeProto& node, const std::string& name, float fallback) const;
  std::vector<int64_t> IntsAttr(const onnx::NodeProto& node, const std::string& name) const;
  std::vector<float> FloatsAttr(const onnx::NodeProto& node, const std::string& name) const;
  std::string StringAttr(const onnx::NodeProto& node, const std::string& name, const std::string& fallback) const;
  std::vector<std::string> StringsAttr(const onnx::NodeProto& node, const std::string& name) const;
  bool HasAttr(const onnx::NodeProto& node, const std::string& name) const;

  /*! \brief Emits op(args) and returns its variable; a call whose arguments are all constants
   *  is evaluated instead (ir/ops/constant_eval.h) and returned as a constant. */
  absl::StatusOr<relax::Expr> EmitOp(const std::string& op, std::vector<relax::Expr> args, Attrs attrs = {},
                                     std::vector<relax::StructInfo> sinfo_args = {});
  void SetValue(const std::string& name, relax::Expr value) { values_[name] = std::move(value); }
  /*! \brief The value named `name`, a symbolic shape value computed as an int64 tensor when the
   *         function runs (a graph's or branch's output that is a shape). */
  absl::StatusOr<relax::Expr> MaterializedValue(const std::string& name);
  /*! \brief Every shape value by name (a subgraph's context starts from them). */
  const std::map<std::string, ShapeValue>& shape_values() const { return shape_values_; }

  /*! \brief A symbolic shape value: stored apart from the tensors (Input computes it as a
   *         tensor when a converter asks for one; Value on it is an error that says so). */
  void SetShapeValue(const std::string& name, ShapeValue value) { shape_values_[name] = std::move(value); }
  /*! \brief Input i as a shape value: a symbolic one, or an int constant of rank 0 or 1; nullopt
   *         for anything else. */
  std::optional<ShapeValue> ShapeValueInput(const onnx::NodeProto& node, int i) const;
  /*! \brief Whether input i is a symbolic shape value (not a tensor). */
  bool IsSymbolicShapeValue(const onnx::NodeProto& node, int i) const;
  /*! \brief A size expression of shape variables (`past + 1`) as a 0-d int64 tensor computed when
   *  the function runs, from the values so far (frontend/common/size_value.h). */
  absl::StatusOr<relax::Expr> SizeAsTensor(const tir::PrimExpr& size);
  /*! \brief arange(start, limit, step) of sizes (frontend/common/size_value.h). */
  absl::StatusOr<relax::Expr> SizeRange(const tir::PrimExpr& start, const tir::PrimExpr& limit,
                                        const tir::PrimExpr& step, DataType dtype);

 private:
  relax::BlockBuilder* bb_;
  int64_t opset_;
  std::map<std::string, relax::Expr> values_;
  std::map<std::string, ShapeValue> shape_values_;
};

/*! \brief Shape arithmetic at import time: a node (Gather, Unsqueeze, Squeeze, Concat, Slice, Cast,
 *         Identity, Reshape to 1-D, Add, Sub, Mul, Div, Equal, Less, Greater, Where, ReduceMin/Max, Shape) that
 *         reads a symbolic shape value and otherwise only constants is evaluated on shape
 *         expressions, its output a shape value again (or a constant when every element is
 *         one). Returns false for any other node, which then goes to its converter. */
absl::StatusOr<bool> FoldShapeNode(OnnxContext& ctx, const onnx::NodeProto& node);

/*! \brief Converts `graph`'s nodes in order into ctx's builder, setting each output's value.
 *         Errors name the node as `<scope>node <i> '<name>' (<op>, opset <n>)`; a converter's
 *         failure gets `failure_hint` appended. Subgraphs (If's branches) use it too. */
absl::Status ConvertGraphNodes(OnnxContext& ctx, const onnx::GraphProto& graph, const std::string& scope,
                               const std::string& failure_hint = "");

/*! \brief Returns the node's outputs (usually one). */
using OnnxConverter =
    std::function<absl::StatusOr<std::vector<relax::Expr>>(OnnxContext& ctx, const onnx::NodeProto& node)>;

/*! \brief Converters by operator: the op_type for the default domain (ai.onnx), and
 *  "<domain>.<op_type>" for another (com.microsoft.QLinearAdd: ONNX Runtime's contrib operators). */
class OnnxConverterRegistry {
 public:
  static OnnxConverterRegistry& Global();
  void Register(const std::string& op_type, OnnxConverter converter) { converters_[op_type] = std::move(converter); }
  /*! \brief The key a node's converter is registered under. */
  static std::string KeyOf(const onnx::NodeProto& node);
  const OnnxConverter* Find(const std::string& op_type) const;
  std::vector<std::string> OpTypes() const;

 private:
  std::map<std::string, OnnxConverter> converters_;
};

/*! \brief The oldest opset whose definition of `op_type` is the one in effect at opset 11 (11 when
 *         it changed at 11 or is unknown): a model of an older opset imports when each of its
 *         operators passes this (onnx_opset_floor.cc). */
int OldestOpsetWithSameDefinition(const std::string& op_type);

void RegisterCoreOnnxConverters(OnnxConverterRegistry& registry);
/*! \brief Conv, ConvTranspose, BatchNormalization, MaxPool, AveragePool, Pad, softmaxes, losses,
 *  LayerNormalization (onnx_nn_converters.cc). */
void RegisterNNOnnxConverters(OnnxConverterRegistry& registry);
/*! \brief Shape, Size, ConstantOfShape, Concat, Gather, Unsqueeze, Squeeze, Split, Expand, Where, Cast
 *  (onnx_transform_converters.cc). */
void RegisterTransformOnnxConverters(OnnxConverterRegistry& registry);
/*! \brief Activations and elementwise math composed of library operators (HardSwish, LeakyRelu,
 *         Softplus, Abs, variadic Min/Max/Sum/Mean, ...). */
void RegisterActivationOnnxConverters(OnnxConverterRegistry& registry);

/*! \brief QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger, ConvInteger,
 *         QLinearMatMul, QLinearConv (onnx_quantize_converters.cc). */
void RegisterQuantizeOnnxConverters(OnnxConverterRegistry& registry);

/*! \brief InstanceNormalization, LRN, LpNormalization, MeanVarianceNormalization, GlobalAveragePool,
 *  GlobalMaxPool (onnx_normalization_converters.cc). */
void RegisterNormalizationOnnxConverters(OnnxConverterRegistry& registry);

/*! \brief DepthToSpace, SpaceToDepth, GatherND, ReverseSequence, Compress, EyeLike (onnx_rearrange_converters.cc). */
void RegisterRearrangeOnnxConverters(OnnxConverterRegistry& registry);

/*! \brief Einsum: one or more operands as sums, transposes and batched matmuls (onnx_einsum_converter.cc). */
void RegisterEinsumOnnxConverter(OnnxConverterRegistry& registry);

/*! \brief TopK, ScatterElements, ScatterND as calls of runtime library functions; NonZero, Unique and
 *  NonMaxSuppression, whose results' sizes their inputs' values decide, as calls of functions
 *  that allocate them, their sizes named by R.match_cast (onnx_library_converters.cc). */
void RegisterLibraryOnnxConverters(OnnxConverterRegistry& registry);

/*! \brief Resize: nearest, linear and cubic, every coordinate mode (onnx_resize_converter.cc). */
void RegisterResizeOnnxConverter(OnnxConverterRegistry& registry);

/*! \brief RNN, GRU, LSTM, unrolled over the static sequence length (onnx_recurrent_converters.cc). */
void RegisterRecurrentOnnxConverters(OnnxConverterRegistry& registry);
/*! \brief HannWindow, HammingWindow, BlackmanWindow as constants, DFT, STFT (onnx_signal_converters.cc). */
void RegisterSignalOnnxConverters(OnnxConverterRegistry& registry);
/*! \brief GridSample, composed of coordinate arithmetic and gathers (onnx_sampling_converters.cc). */
void RegisterSamplingOnnxConverters(OnnxConverterRegistry& registry);
/*! \brief Adagrad, Adam and Momentum of ai.onnx.preview.training as elementwise arithmetic
 *  (onnx_training_converters.cc). */
void RegisterTrainingOnnxConverters(OnnxConverterRegistry& registry);
/*! \brief SequenceEmpty, SequenceConstruct, SequenceInsert, SequenceAt, SequenceErase, SequenceLength,
 *  ConcatFromSequence, SplitToSequence, on lists known at import (onnx_sequence_converters.cc). */
void RegisterSequenceOnnxConverters(OnnxConverterRegistry& registry);
/*! \brief If, Loop, Scan (onnx_control_flow_converters.cc). */
void RegisterControlFlowOnnxConverters(OnnxConverterRegistry& registry);
/*! \brief An ONNX name as a Python identifier, so the printed module parses back: a
 *         dim_param as a shape variable's name ("batch size" -> "batch_size", "2d" -> "d_2d"),
 *         an input's name as a parameter's ("past_key_values.0.key" -> "past_key_values_0_key"). */
std::string SanitizeIdentifier(const std::string& name);

/*! \brief TensorProto.DataType -> DataType. */
absl::StatusOr<DataType> DtypeFromOnnx(int32_t elem_type);

/*! \brief TensorProto (raw_data or typed fields) -> TensorData. */
/*! \brief What a TensorProto claims, checked before anything is read: element type, non-negative
 *         dimensions, and the bytes they need (saturating). */
struct DeclaredTensor {
  DataType dtype;
  std::vector<int64_t> shape;
  int64_t bytes = 0;
};
absl::StatusOr<DeclaredTensor> DeclaredTensorOf(const onnx::TensorProto& t);

absl::StatusOr<TensorData> TensorFromOnnx(const onnx::TensorProto& t);
absl::StatusOr<TensorData> TensorFromOnnx(onnx::TensorProto&& t);  // moves raw_data out

absl::StatusOr<IRModule> ImportOnnx(const onnx::ModelProto& model, const OnnxImportOptions& options = {});
/*! \brief The same, moving the initializers' bytes out of `model` instead of copying them. */
absl::StatusOr<IRModule> ImportOnnx(onnx::ModelProto&& model, const OnnxImportOptions& options = {});
absl::StatusOr<IRModule> ImportOnnxFile(const std::string& path, const OnnxImportOptions& options = {});

#define MLC_ONNX_CONCAT_INNER(a, b) a##b
#define MLC_ONNX_CONCAT(a, b) MLC_ONNX_CONCAT_INNER(a, b)
/*! \brief MLC_REGISTER_ONNX_CONVERTER("Gelu", [](OnnxContext& ctx, const onnx::NodeProto& n) {...}); */
#define MLC_REGISTER_ONNX_CONVERTER(op_type, fn)                        \
  static const bool MLC_ONNX_CONCAT(mlc_onnx_converter_, __COUNTER__) = \
      (::mlc::onnx_import::OnnxConverterRegistry::Global().Register(op_type, fn), true)

}  // namespace onnx_import
}  // namespace mlc

#endif  // MLC_FRONTEND_ONNX_ONNX_IMPORTER_H_
