/*! \file kernel_library.cc
 *  \brief In-memory loading of the kernel shared object.
 */
#include "vm/kernel_library.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "vm/kernel_abi.h"
#include "vm/thread_pool.h"
#include "vm/workspace_pool.h"

namespace mlc {
namespace vm {

absl::StatusOr<std::unique_ptr<KernelLibrary>> KernelLibrary::Load(const std::string& shared_object) {
  if (shared_object.size() < 4 || shared_object.compare(0, 4,
                                                        "\x7f"
                                                        "ELF") != 0) {
    return absl::DataLossError("the kernel library is not an ELF shared object");
  }
  int fd = memfd_create("mlc_kernels", MFD_CLOEXEC);
  if (fd < 0) return absl::InternalError("memfd_create failed");
  size_t written = 0;
  while (written < shared_object.size()) {
    ssize_t n = write(fd, shared_object.data() + written, shared_object.size() - written);
    if (n <= 0) {
      close(fd);
      return absl::InternalError("cannot stage the kernel library in memory");
    }
    written += static_cast<size_t>(n);
  }
  std::string path = absl::StrCat("/proc/self/fd/", fd);
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    close(fd);
    return absl::DataLossError(absl::StrCat("cannot load the kernel library: ", dlerror()));
  }
  // The runtime services the kernels reach through global pointers (vm/kernel_abi.h).
  auto provide = [handle](const char* symbol, void* fn) {
    if (void* slot = dlsym(handle, symbol)) *static_cast<void**>(slot) = fn;
  };
  provide(kernel_abi::kParallelLaunchSymbol, reinterpret_cast<void*>(&ThreadPool::Launch));
  provide(kernel_abi::kWorkspaceAllocSymbol, reinterpret_cast<void*>(&WorkspacePool::AllocEntry));
  provide(kernel_abi::kWorkspaceFreeSymbol, reinterpret_cast<void*>(&WorkspacePool::FreeEntry));
  return std::unique_ptr<KernelLibrary>(new KernelLibrary(handle, fd));
}

KernelLibrary::~KernelLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
  close(fd_);
}

absl::StatusOr<KernelFunction> KernelLibrary::Lookup(const std::string& symbol) const {
  void* fn = dlsym(handle_, symbol.c_str());
  if (fn == nullptr) return absl::NotFoundError(absl::StrCat("the kernel library has no symbol ", symbol));
  return reinterpret_cast<KernelFunction>(fn);
}

}  // namespace vm
}  // namespace mlc
