/*! \file dltensor_view.h
 *  \brief What the library functions that take any element type share: a DLTensor's dims and
 *         data, row-major strides, and a dispatch from its dtype to a C++ type.
 */
#ifndef MLC_VM_LIBRARY_DLTENSOR_VIEW_H_
#define MLC_VM_LIBRARY_DLTENSOR_VIEW_H_

#include <dlpack/dlpack.h>

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "vm/ndarray.h"

namespace mlc {
namespace vm {

inline char* DataOf(const DLTensor* t) { return static_cast<char*>(t->data) + t->byte_offset; }
inline std::vector<int64_t> DimsOf(const DLTensor* t) { return std::vector<int64_t>(t->shape, t->shape + t->ndim); }
inline int64_t CountOf(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}
/*! \brief Row-major strides in elements. */
inline std::vector<int64_t> StridesOf(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int64_t d = static_cast<int64_t>(dims.size()) - 2; d >= 0; --d) s[d] = s[d + 1] * dims[d + 1];
  return s;
}
/*! \brief Whether t's elements are scalars of type (code, bits). */
inline bool HasDtype(const DLTensor* t, uint8_t code, uint8_t bits) {
  return t->dtype.code == code && t->dtype.bits == bits && t->dtype.lanes == 1;
}
/*! \brief Ok when every tensor is contiguous (the library's functions index row-major), else an
 *  error naming `func`. */
inline absl::Status CheckContiguous(absl::Span<DLTensor* const> args, const char* func) {
  for (const DLTensor* t : args) {
    if (t->strides != nullptr) return absl::InvalidArgumentError(absl::StrCat(func, ": tensors must be contiguous"));
  }
  return absl::OkStatus();
}
/*! \brief Ok when `func` got exactly `n` tensors, all contiguous. */
inline absl::Status CheckTensorArgs(absl::Span<DLTensor* const> args, size_t n, const char* func) {
  if (args.size() != n)
    return absl::InvalidArgumentError(absl::StrCat(func, " takes ", n, " tensors, got ", args.size()));
  return CheckContiguous(args, func);
}
inline bool IsInt64Vector(const DLTensor* t, int64_t n) {
  return t->dtype.code == kDLInt && t->dtype.bits == 64 && t->ndim == 1 && t->shape[0] == n;
}

/*! \brief Calls fn(T{}) with T the C++ type of `dtype` (float32/64, int8/32/64, uint8, bool), or
 *  returns an error naming `func`. */
template <typename F>
absl::Status DispatchByDtype(DLDataType dtype, const char* func, F&& fn) {
  if (dtype.lanes == 1) {
    if (dtype.code == kDLFloat && dtype.bits == 32) return fn(float{});
    if (dtype.code == kDLFloat && dtype.bits == 64) return fn(double{});
    if (dtype.code == kDLInt && dtype.bits == 64) return fn(int64_t{});
    if (dtype.code == kDLInt && dtype.bits == 32) return fn(int32_t{});
    if (dtype.code == kDLInt && dtype.bits == 8) return fn(int8_t{});
    if ((dtype.code == kDLUInt || dtype.code == kDLBoolCode) && dtype.bits == 8) return fn(uint8_t{});
  }
  return absl::InvalidArgumentError(
      absl::StrCat(func, ": unsupported element type (code ", dtype.code, ", ", dtype.bits, " bits)"));
}

}  // namespace vm
}  // namespace mlc

#endif  // MLC_VM_LIBRARY_DLTENSOR_VIEW_H_
