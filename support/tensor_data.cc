/*! \file tensor_data.cc
 *  \brief Host tensor storage.
 */
#include "support/tensor_data.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "support/checked_math.h"

namespace mlc {

int64_t NumElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n = SaturatingMul(n, d);
  return n;
}

int64_t TensorBytes(const std::vector<int64_t>& shape, DataType dtype) {
  return SaturatingMul(NumElements(shape), dtype.bytes());
}

TensorData TensorFromDoubles(DataType dtype, std::vector<int64_t> shape, const std::vector<double>& values) {
  TensorData t(dtype, std::move(shape));
  char* out = static_cast<char*>(t.mutable_data());
  size_t n = std::min(values.size(), static_cast<size_t>(t.NumElements()));
  for (size_t k = 0; k < n; ++k) {
    if (dtype == DataType::Float32()) {
      float f = static_cast<float>(values[k]);
      std::memcpy(out + k * sizeof(f), &f, sizeof(f));
    } else if (dtype == DataType::Float(64)) {
      std::memcpy(out + k * sizeof(double), &values[k], sizeof(double));
    } else {
      int64_t i = SaturatingInt64(values[k]);
      std::memcpy(out + k * dtype.bytes(), &i, dtype.bytes());  // little-endian: the low bytes
    }
  }
  return t;
}

TensorData ScalarTensor(double value, DataType dtype) { return TensorFromDoubles(dtype, {}, {value}); }

namespace {
template <typename T>
std::vector<double> Widen(const TensorData& t) {
  std::vector<double> out(static_cast<size_t>(t.NumElements()));
  const T* d = t.data_as<T>();
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(d[i]);
  return out;
}
}  // namespace

std::optional<std::vector<double>> ValuesAsDouble(const TensorData& t) {
  DataType d = t.dtype();
  if (d == DataType::Float32()) return Widen<float>(t);
  if (d == DataType::Float(64)) return Widen<double>(t);
  if (d.is_int() || d.is_uint() || d.is_bool()) {
    bool s = d.is_int();
    switch (d.bits()) {
      case 1:
      case 8: return s ? Widen<int8_t>(t) : Widen<uint8_t>(t);
      case 16: return s ? Widen<int16_t>(t) : Widen<uint16_t>(t);
      case 32: return s ? Widen<int32_t>(t) : Widen<uint32_t>(t);
      case 64: return s ? Widen<int64_t>(t) : Widen<uint64_t>(t);
    }
  }
  return std::nullopt;
}

TensorData Int64Tensor(const std::vector<int64_t>& values) {
  TensorData t(DataType::Int64(), {static_cast<int64_t>(values.size())});
  if (!values.empty()) std::memcpy(t.mutable_data(), values.data(), values.size() * sizeof(int64_t));
  return t;
}

TensorData::TensorData(DataType dtype, std::vector<int64_t> shape)
    : dtype_(dtype),
      shape_(std::move(shape)),
      bytes_(std::make_shared<std::string>(static_cast<size_t>(TensorBytes(shape_, dtype)), '\0')) {}

TensorData::TensorData(DataType dtype, std::vector<int64_t> shape, std::string bytes)
    : dtype_(dtype), shape_(std::move(shape)), bytes_(std::make_shared<std::string>(std::move(bytes))) {}

int64_t TensorData::NumElements() const { return mlc::NumElements(shape_); }

const std::string& TensorData::bytes() const {
  static const std::string kEmpty;
  return bytes_ ? *bytes_ : kEmpty;
}

TensorData PadAxis(const TensorData& t, size_t axis, int64_t extent, float value) {
  std::vector<int64_t> shape = t.shape();
  if (shape[axis] == extent) return t;
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  const int64_t old_extent = shape[axis];
  shape[axis] = extent;
  TensorData out(DataType::Float32(), shape);
  const float* src = reinterpret_cast<const float*>(t.data());
  float* dst = reinterpret_cast<float*>(out.mutable_data());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t a = 0; a < extent; ++a) {
      float* row = dst + (o * extent + a) * inner;
      if (a < old_extent)
        std::copy(src + (o * old_extent + a) * inner, src + (o * old_extent + a + 1) * inner, row);
      else
        std::fill(row, row + inner, value);
    }
  }
  return out;
}

}  // namespace mlc
