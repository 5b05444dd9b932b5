/*! \file ndarray.h
 *  \brief Runtime tensors: a DLPack DLTensor over owned, 64-byte-aligned storage.
 *
 *  Storage comes from a StoragePool (storage_pool.h) when one is given: freed storage goes back
 *  to the pool and a later allocation of the same size reuses it. That is how the VM reuses the
 *  memory of intermediates whose lifetime ended. Copies of an NDArray share storage.
 */
#ifndef MLC_VM_NDARRAY_H_
#define MLC_VM_NDARRAY_H_

#include <dlpack/dlpack.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "vm/storage_pool.h"

namespace mlc {
namespace vm {

/*! \brief DLPack 0.6 (Debian's) predates kDLBool; newer versions use this code for bool. */
inline constexpr uint8_t kDLBoolCode = 6;

class NDArray {
 public:
  NDArray() = default;

  /*! \brief Uninitialized storage; from `pool` when given (back to it, to wait as `reuse` says,
   *         when the last copy dies), else freshly allocated. A shape over the max_tensor_bytes
   *         limit (support/resource_limits.h) or an allocation the system refuses is an error
   *         naming the tensor's size, not a crash. */
  static absl::StatusOr<NDArray> Allocate(std::vector<int64_t> shape, DLDataType dtype,
                                          std::shared_ptr<StoragePool> pool = nullptr,
                                          StoragePool::Reuse reuse = StoragePool::Reuse::kAlways);
  /*! \brief Allocate for a size the caller chose itself (tests, benchmarks); aborts with the
   *         error where Allocate would return one. */
  static NDArray Empty(std::vector<int64_t> shape, DLDataType dtype, std::shared_ptr<StoragePool> pool = nullptr);
  /*! \brief A tensor of `shape` in `base`'s storage from byte `offset` on (64-byte aligned),
   *         sharing it; an error when it does not fit. */
  static absl::StatusOr<NDArray> View(const NDArray& base, int64_t offset, std::vector<int64_t> shape,
                                      DLDataType dtype);
  /*! \brief `shape` in storage of `capacity_bytes` (at least the shape's bytes): a tensor that
   *  AppendRows grows in place, such as a key/value cache allocated for a whole generation. */
  static absl::StatusOr<NDArray> AllocateWithCapacity(std::vector<int64_t> shape, DLDataType dtype,
                                                      int64_t capacity_bytes);
  /*! \brief concat([base, rows], axis) when every axis of both before `axis` is 1, so that the
   *  rows' bytes go right after base's. When base ends where the last append into its storage
   *  ended and the storage has room, `rows` alone is copied there and the result shares base's
   *  storage (base still reads as before: the bytes it covers do not change); otherwise both are
   *  copied into new storage with room for as many rows again. `*in_place` says which; an error
   *  names mismatched shapes or dtypes. */
  static absl::StatusOr<NDArray> AppendRows(const NDArray& base, const NDArray& rows, int axis, bool* in_place);
  /*! \brief A copy of `bytes` (row-major), which must hold the shape's bytes. */
  static absl::StatusOr<NDArray> FromBytes(std::vector<int64_t> shape, DLDataType dtype, const std::string& bytes);
  /*! \brief Copies `bytes` (row-major) in; an error, copying nothing, unless they are exactly the
   *  tensor's bytes. */
  absl::Status CopyFromBytes(absl::string_view bytes) const;

  bool defined() const { return c_ != nullptr; }
  DLTensor* dl() const { return &c_->tensor; }
  const std::vector<int64_t>& shape() const { return c_->shape; }
  DLDataType dtype() const { return c_->tensor.dtype; }
  void* data() const { return c_->tensor.data; }
  int64_t NumElements() const;
  size_t NumBytes() const;
  std::string Bytes() const { return std::string(static_cast<const char*>(data()), NumBytes()); }
  /*! \brief Whether two arrays share storage. */
  bool SameStorage(const NDArray& other) const { return c_ && other.c_ && c_->storage == other.c_->storage; }

 private:
  struct Storage {
    void* data = nullptr;
    size_t bytes = 0;
    // Where the bytes AppendRows has written end; a tensor ending there may grow in place.
    // Storage that was not made for appending counts as full.
    std::atomic<size_t> appended{SIZE_MAX};
    std::shared_ptr<StoragePool> pool;
    StoragePool::Reuse reuse = StoragePool::Reuse::kAlways;
    ~Storage();
  };
  struct Container {
    DLTensor tensor;
    std::vector<int64_t> shape;
    std::shared_ptr<Storage> storage;
  };
  /*! \brief A tensor of `shape` at byte `offset` of `storage` (which the caller checked holds it). */
  static NDArray Over(std::shared_ptr<Storage> storage, int64_t offset, std::vector<int64_t> shape, DLDataType dtype);

  std::shared_ptr<Container> c_;
};

/*! \brief "float32", "int64", "bool"... */
std::string DLDataTypeName(DLDataType t);
int DLDataTypeBytes(DLDataType t);
/*! \brief "float32 (1, 784)". */
std::string DescribeTensor(const DLDataType& dtype, const std::vector<int64_t>& shape);

}  // namespace vm
}  // namespace mlc

#endif  // MLC_VM_NDARRAY_H_
