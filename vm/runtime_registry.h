/*! \file runtime_registry.h
 *  \brief Runtime functions by name (what R.call_dps_packed("env.linear", ...) calls).
 *
 *  From C++, one line registers a function in the process:
 *
 *    absl::Status MyRelu(absl::Span<DLTensor* const> args);   // inputs..., outputs...
 *    MLC_REGISTER_RUNTIME_FUNC("my.relu", MyRelu);
 *
 *  (the library holding it needs `alwayslink = True`). Shared libraries of functions are
 *  loaded at run time with LoadPlugin (C ABI, see plugin_api.h).
 */
#ifndef MLC_VM_RUNTIME_REGISTRY_H_
#define MLC_VM_RUNTIME_REGISTRY_H_

#include <dlpack/dlpack.h>

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace mlc {
namespace vm {

using RuntimeFunction = std::function<absl::Status(absl::Span<DLTensor* const> args)>;

class RuntimeRegistry {
 public:
  static RuntimeRegistry& Global();

  /*! \brief Registers `fn` as `name`; an existing name is an error unless `override`. */
  absl::Status Register(const std::string& name, RuntimeFunction fn, bool override = false);
  /*! \brief The function, or nullptr. */
  const RuntimeFunction* Find(const std::string& name) const;
  std::vector<std::string> ListNames() const;
  /*! \brief dlopen()s a plug-in and registers what its mlc_plugin_init registers. */
  absl::Status LoadPlugin(const std::string& path);

 private:
  mutable std::mutex mu_;
  std::map<std::string, RuntimeFunction> functions_;
};

namespace detail {
struct RuntimeFunctionRegistrar {
  RuntimeFunctionRegistrar(const std::string& name, RuntimeFunction fn);
};
}  // namespace detail

#define MLC_RT_CONCAT_INNER(a, b) a##b
#define MLC_RT_CONCAT(a, b) MLC_RT_CONCAT_INNER(a, b)
#define MLC_REGISTER_RUNTIME_FUNC(name, fn) \
  static ::mlc::vm::detail::RuntimeFunctionRegistrar MLC_RT_CONCAT(mlc_runtime_func_, __COUNTER__)(name, fn)

}  // namespace vm
}  // namespace mlc

#endif  // MLC_VM_RUNTIME_REGISTRY_H_
