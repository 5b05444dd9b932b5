/*! \file kernel_library.h
 *  \brief Loads the kernels' shared object embedded in an executable, from memory (memfd),
 *         and connects it to the runtime (parallel launch, workspace; vm/kernel_abi.h).
 */
#ifndef MLC_VM_KERNEL_LIBRARY_H_
#define MLC_VM_KERNEL_LIBRARY_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace mlc {
namespace vm {

using KernelFunction = int32_t (*)(void* const* args);

class KernelLibrary {
 public:
  static absl::StatusOr<std::unique_ptr<KernelLibrary>> Load(const std::string& shared_object);
  ~KernelLibrary();
  /*! \brief The kernel exported as `symbol`, or an error naming it. */
  absl::StatusOr<KernelFunction> Lookup(const std::string& symbol) const;

 private:
  KernelLibrary(void* handle, int fd) : handle_(handle), fd_(fd) {}
  void* handle_;
  // The memfd stays open while the library is loaded: dlopen recognizes an already loaded
  // library by its path, and a reused fd number would hand back another executable's kernels.
  int fd_;
};

}  // namespace vm
}  // namespace mlc

#endif  // MLC_VM_KERNEL_LIBRARY_H_
