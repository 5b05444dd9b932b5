/*! \file ndarray.cc
 *  \brief Runtime tensors.
 */
#include "vm/ndarray.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "support/checked_math.h"
#include "support/resource_limits.h"
#include "support/tensor_data.h"

namespace mlc {
namespace vm {

NDArray::Storage::~Storage() {
  if (pool) {
    pool->Release(data, bytes, reuse);
  } else {
    std::free(data);
  }
}

int DLDataTypeBytes(DLDataType t) { return (t.bits * t.lanes + 7) / 8; }

std::string DLDataTypeName(DLDataType t) {
  switch (t.code) {
    case kDLFloat: return absl::StrCat("float", t.bits);
    case kDLInt: return absl::StrCat("int", t.bits);
    case kDLUInt: return absl::StrCat("uint", t.bits);
    case kDLBfloat: return "bfloat16";
    case kDLBoolCode: return "bool";
    default: return absl::StrCat("dtype(", static_cast<int>(t.code), ",", t.bits, ")");
  }
}

std::string DescribeTensor(const DLDataType& dtype, const std::vector<int64_t>& shape) {
  return absl::StrCat(DLDataTypeName(dtype), " (", absl::StrJoin(shape, ", "), shape.size() == 1 ? ",)" : ")");
}

absl::StatusOr<NDArray> NDArray::View(const NDArray& base, int64_t offset, std::vector<int64_t> shape,
                                      DLDataType dtype) {
  for (int64_t d : shape) {
    if (d < 0)
      return absl::InvalidArgumentError(
          absl::StrCat("tensor ", DescribeTensor(dtype, shape), " has a negative dimension"));
  }
  const int64_t bytes = SaturatingMul(mlc::NumElements(shape), DLDataTypeBytes(dtype));
  const int64_t held = base.defined() ? static_cast<int64_t>(base.c_->storage->bytes) : 0;
  if (offset < 0 || offset % 64 != 0 || offset > held || bytes > held - offset) {
    return absl::InvalidArgumentError(absl::StrCat("tensor ", DescribeTensor(dtype, shape), " at byte ", offset,
                                                   " does not fit in ", HumanBytes(held)));
  }
  return Over(base.c_->storage, offset, std::move(shape), dtype);
}

NDArray NDArray::Over(std::shared_ptr<Storage> storage, int64_t offset, std::vector<int64_t> shape, DLDataType dtype) {
  NDArray a;
  a.c_ = std::make_shared<Container>();
  a.c_->shape = std::move(shape);
  a.c_->storage = std::move(storage);
  DLTensor& t = a.c_->tensor;
  t.data = static_cast<char*>(a.c_->storage->data) + offset;
  t.device = {kDLCPU, 0};
  t.ndim = static_cast<int32_t>(a.c_->shape.size());
  t.dtype = dtype;
  t.shape = a.c_->shape.data();
  t.strides = nullptr;
  t.byte_offset = 0;
  return a;
}

absl::StatusOr<NDArray> NDArray::Allocate(std::vector<int64_t> shape, DLDataType dtype,
                                          std::shared_ptr<StoragePool> pool, StoragePool::Reuse reuse) {
  for (int64_t d : shape) {
    if (d < 0)
      return absl::InvalidArgumentError(
          absl::StrCat("tensor ", DescribeTensor(dtype, shape), " has a negative dimension"));
  }
  const int64_t bytes = SaturatingMul(mlc::NumElements(shape), DLDataTypeBytes(dtype));
  if (bytes > GetResourceLimits().max_tensor_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat("tensor ", DescribeTensor(dtype, shape), " needs ",
                                                     HumanBytes(bytes), " (", LimitHint("max_tensor_bytes"), ")"));
  }
  auto storage = std::make_shared<Storage>();
  storage->bytes = static_cast<size_t>(bytes);
  storage->data = pool ? pool->Allocate(storage->bytes) : AllocateTensorMemory(TensorStorageBytes(storage->bytes));
  if (storage->data == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("out of memory allocating ", HumanBytes(bytes), " for tensor ", DescribeTensor(dtype, shape)));
  }
  storage->pool = pool;
  storage->reuse = reuse;
  return Over(std::move(storage), 0, std::move(shape), dtype);
}

absl::StatusOr<NDArray> NDArray::AllocateWithCapacity(std::vector<int64_t> shape, DLDataType dtype,
                                                      int64_t capacity_bytes) {
  const int64_t bytes = SaturatingMul(mlc::NumElements(shape), DLDataTypeBytes(dtype));
  // Allocate the capacity as a byte tensor, then view the shape at its start.
  absl::StatusOr<NDArray> store = Allocate({std::max(bytes, capacity_bytes)}, DLDataType{kDLUInt, 8, 1});
  if (!store.ok()) return store.status();
  store->c_->storage->appended.store(static_cast<size_t>(bytes));
  return Over(store->c_->storage, 0, std::move(shape), dtype);
}

absl::StatusOr<NDArray> NDArray::AppendRows(const NDArray& base, const NDArray& rows, int axis, bool* in_place) {
  *in_place = false;
  const std::vector<int64_t>&bs = base.shape(), &rs = rows.shape();
  bool ok = base.dtype().code == rows.dtype().code && base.dtype().bits == rows.dtype().bits &&
            bs.size() == rs.size() && axis >= 0 && axis < static_cast<int>(bs.size());
  for (int d = 0; ok && d < static_cast<int>(bs.size()); ++d)
    ok = d == axis || (bs[d] == rs[d] && (d > axis || bs[d] == 1));
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat("cannot append ", DescribeTensor(rows.dtype(), rs), " to ",
                                                   DescribeTensor(base.dtype(), bs), " along axis ", axis,
                                                   " (the other axes must agree, the ones before it be 1)"));
  }
  std::vector<int64_t> shape = bs;
  shape[axis] += rs[axis];
  const size_t base_bytes = base.NumBytes(), row_bytes = rows.NumBytes();
  Storage& storage = *base.c_->storage;
  const size_t offset = static_cast<size_t>(static_cast<char*>(base.data()) - static_cast<char*>(storage.data));
  size_t end = offset + base_bytes;
  if (end + row_bytes <= storage.bytes && storage.appended.compare_exchange_strong(end, end + row_bytes)) {
    std::memcpy(static_cast<char*>(storage.data) + offset + base_bytes, rows.data(), row_bytes);
    *in_place = true;
    return Over(base.c_->storage, static_cast<int64_t>(offset), std::move(shape), base.dtype());
  }
  absl::StatusOr<NDArray> grown =
      AllocateWithCapacity(shape, base.dtype(), 2 * static_cast<int64_t>(base_bytes + row_bytes));
  if (!grown.ok()) return grown.status();
  std::memcpy(grown->data(), base.data(), base_bytes);
  std::memcpy(static_cast<char*>(grown->data()) + base_bytes, rows.data(), row_bytes);
  return grown;
}

NDArray NDArray::Empty(std::vector<int64_t> shape, DLDataType dtype, std::shared_ptr<StoragePool> pool) {
  absl::StatusOr<NDArray> a = Allocate(std::move(shape), dtype, std::move(pool));
  if (!a.ok()) {
    std::fprintf(stderr, "NDArray::Empty: %s\n", std::string(a.status().message()).c_str());
    std::abort();
  }
  return *std::move(a);
}

absl::StatusOr<NDArray> NDArray::FromBytes(std::vector<int64_t> shape, DLDataType dtype, const std::string& bytes) {
  absl::StatusOr<NDArray> a = Allocate(std::move(shape), dtype);
  if (!a.ok()) return a.status();
  if (absl::Status s = a->CopyFromBytes(bytes); !s.ok()) return s;
  return a;
}

absl::Status NDArray::CopyFromBytes(absl::string_view bytes) const {
  if (bytes.size() != NumBytes()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor ", DescribeTensor(dtype(), shape()), " needs ", NumBytes(), " bytes, got ", bytes.size()));
  }
  std::memcpy(data(), bytes.data(), bytes.size());
  return absl::OkStatus();
}

int64_t NDArray::NumElements() const {
  int64_t n = 1;
  for (int64_t d : c_->shape) n *= d;
  return n;
}

size_t NDArray::NumBytes() const { return static_cast<size_t>(NumElements()) * DLDataTypeBytes(dtype()); }

}  // namespace vm
}  // namespace mlc
