/*! \file tensor_data.cc
 *  \brief Host tensor storage.
 */
#include "ir/tensor_data.h"

namespace mlc {

int64_t NumElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

TensorData::TensorData(DataType dtype, std::vector<int64_t> shape)
    : dtype_(dtype),
      shape_(std::move(shape)),
      bytes_(std::make_shared<std::string>(static_cast<size_t>(mlc::NumElements(shape_) * dtype.bytes()), '\0')) {}

TensorData::TensorData(DataType dtype, std::vector<int64_t> shape, std::string bytes)
    : dtype_(dtype), shape_(std::move(shape)), bytes_(std::make_shared<std::string>(std::move(bytes))) {}

int64_t TensorData::NumElements() const { return mlc::NumElements(shape_); }

const std::string& TensorData::bytes() const {
  static const std::string kEmpty;
  return bytes_ ? *bytes_ : kEmpty;
}

}  // namespace mlc
