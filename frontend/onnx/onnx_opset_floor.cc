/*! \file onnx_opset_floor.cc
 *  \brief Which models older than opset 11 the importer takes: the converters implement the
 *         operator definitions of opsets 11 to 17, so a model of opset N < 11 imports when each
 *         of its operators has had the same definition since N.
 */
#include <map>
#include <string>

#include "frontend/onnx/onnx_importer.h"

namespace mlc {
namespace onnx_import {

int OldestOpsetWithSameDefinition(const std::string& op_type) {
  // The `since_version` of each operator's definition in effect at opset 11, from the onnx
  // package: onnx.defs.get_schema(op, 11).since_version. Operators not listed changed at 11
  // (Clip, Slice, Pad, Concat, Gemm, the reductions, ...) or are newer.
  static const std::map<std::string, int> kSince = {
      {"Abs", 6},
      {"Add", 7},
      {"BatchNormalization", 9},
      {"Cast", 9},
      {"ConstantOfShape", 9},
      {"Div", 7},
      {"Elu", 6},
      {"Erf", 9},
      {"Exp", 6},
      {"Expand", 8},
      {"GlobalAveragePool", 1},
      {"HardSigmoid", 6},
      {"Identity", 1},
      {"LeakyRelu", 6},
      {"Log", 6},
      {"MatMul", 9},
      {"Max", 8},
      {"Mean", 8},
      {"Min", 8},
      {"Mul", 7},
      {"Neg", 6},
      {"PRelu", 9},
      {"Pow", 7},
      {"Reciprocal", 6},
      {"Relu", 6},
      {"Reshape", 5},
      {"Selu", 6},
      {"Shape", 1},
      {"Sigmoid", 6},
      {"Size", 1},
      {"Softplus", 1},
      {"Softsign", 1},
      {"Sqrt", 6},
      {"Sub", 7},
      {"Sum", 8},
      {"Tanh", 6},
      {"Transpose", 1},
      {"Where", 9},
      {"Less", 9},
      {"Greater", 9},
      {"Not", 1},
      {"And", 7},
      {"Or", 7},
      {"Xor", 7},
      {"Floor", 6},
      {"Ceil", 6},
      {"Sign", 9},
      {"Sin", 7},
      {"Cos", 7},
      {"Tan", 7},
      {"Asin", 7},
      {"Acos", 7},
      {"Atan", 7},
      {"Sinh", 9},
      {"Cosh", 9},
      {"Asinh", 9},
      {"Acosh", 9},
      {"Atanh", 9},
      {"Mod", 10},
      {"IsNaN", 9},
      {"IsInf", 10},
      {"ThresholdedRelu", 10},
      {"MatMulInteger", 10},
      {"ConvInteger", 10},
      {"QLinearMatMul", 10},
      {"QLinearConv", 10},
      {"QuantizeLinear", 10},
      {"DequantizeLinear", 10},
      {"GlobalMaxPool", 1},
      {"InstanceNormalization", 6},
      {"LRN", 1},
      {"LpNormalization", 1},
      {"MeanVarianceNormalization", 9},
      {"Shrink", 9},
      {"SpaceToDepth", 1},
      {"EyeLike", 9},
      {"Scatter", 9},
      {"Upsample", 9},
      {"ReverseSequence", 10},
      {"LSTM", 7},
      {"GRU", 7},
      {"RNN", 7},
      {"Scan", 8},  // not one definition since 8: the converter reads opset 8's batched form and 9's itself
  };
  auto it = kSince.find(op_type);
  return it == kSince.end() ? 11 : it->second;
}

}  // namespace onnx_import
}  // namespace mlc
