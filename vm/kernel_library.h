/*! \file kernel_library.h
 *  \brief Loads the kernels' shared object embedded in an executable, from memory (memfd),
 *         and connects it to the runtime (the parallel-loop launcher).
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
  explicit KernelLibrary(void* handle) : handle_(handle) {}
  void* handle_;
};

}  // namespace vm
}  // namespace mlc

#endif  // MLC_VM_KERNEL_LIBRARY_H_
