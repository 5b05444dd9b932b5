/*! \file tensor_data.h
 *  \brief Host tensor storage for graph-level constants: dtype, shape and bytes, shared and
 *         immutable once built (copying a Constant never copies its data).
 */
#ifndef MLC_SUPPORT_TENSOR_DATA_H_
#define MLC_SUPPORT_TENSOR_DATA_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/dtype.h"

namespace mlc {

class TensorData {
 public:
  TensorData() = default;
  /*! \brief A zero-filled tensor. */
  TensorData(DataType dtype, std::vector<int64_t> shape);
  /*! \brief Takes `bytes`, which must hold exactly NumElements() * dtype.bytes() bytes. */
  TensorData(DataType dtype, std::vector<int64_t> shape, std::string bytes);

  DataType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t NumElements() const;
  size_t NumBytes() const { return bytes_ ? bytes_->size() : 0; }
  const void* data() const { return bytes_ ? bytes_->data() : nullptr; }
  /*! \brief Writable access; only for the code that fills a freshly made tensor. */
  void* mutable_data() { return bytes_ ? &(*bytes_)[0] : nullptr; }
  const std::string& bytes() const;

  template <typename T>
  const T* data_as() const {
    return static_cast<const T*>(data());
  }

 private:
  DataType dtype_;
  std::vector<int64_t> shape_;
  std::shared_ptr<std::string> bytes_;
};

int64_t NumElements(const std::vector<int64_t>& shape);
/*! \brief Bytes of a tensor of `shape` and `dtype`; saturates, so a claim too large to hold
 *         compares as too large instead of wrapping. */
int64_t TensorBytes(const std::vector<int64_t>& shape, DataType dtype);

/*! \brief A tensor of `dtype` (float32, float64, else an integer type) holding `values`, converted
 *  element by element (integers saturate); elements past the end of `values` stay zero. */
TensorData TensorFromDoubles(DataType dtype, std::vector<int64_t> shape, const std::vector<double>& values);
/*! \brief A 0-d tensor holding `value` as `dtype`. */
TensorData ScalarTensor(double value, DataType dtype);
/*! \brief The elements as doubles (float32/64, signed and unsigned 8- to 64-bit integers, bool);
 *  nullopt for other dtypes. */
std::optional<std::vector<double>> ValuesAsDouble(const TensorData& t);
/*! \brief A 1-d int64 tensor of `values` (shapes, axes). */
TensorData Int64Tensor(const std::vector<int64_t>& values);
/*! \brief A float32 tensor with axis `axis` extended to `extent`, the new entries `value` (weights
 *  padded to whole vectors with zero filters or columns). */
TensorData PadAxis(const TensorData& t, size_t axis, int64_t extent, float value);

}  // namespace mlc

#endif  // MLC_SUPPORT_TENSOR_DATA_H_
