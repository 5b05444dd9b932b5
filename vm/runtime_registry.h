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
 *
 *  A function whose results' shapes the values of its inputs decide (NonZero, Unique,
 *  NonMaxSuppression) allocates and returns them instead; R.call_pure_packed calls it:
 *
 *    absl::StatusOr<std::vector<NDArray>> NonZero(absl::Span<const NDArray> inputs);
 *    MLC_REGISTER_ALLOCATING_RUNTIME_FUNC("mlc.nonzero", NonZero);
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
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "vm/ndarray.h"

namespace mlc {
namespace vm {

using RuntimeFunction = std::function<absl::Status(absl::Span<DLTensor* const> args)>;
using AllocatingRuntimeFunction = std::function<absl::StatusOr<std::vector<NDArray>>(absl::Span<const NDArray> inputs)>;
/*! \brief The arithmetic operations one call of a runtime function does, from its arguments (a
 *  multiply-add counts two): what the profiler's GFLOP/s and % of peak of the function count. */
using OperationCount = std::function<int64_t(absl::Span<DLTensor* const> args)>;

class RuntimeRegistry {
 public:
  static RuntimeRegistry& Global();

  /*! \brief Registers `fn` as `name`; an existing name is an error unless `override`. */
  absl::Status Register(const std::string& name, RuntimeFunction fn, bool override = false);
  /*! \brief The same for a function that allocates its results. One name is one function of
   *  either kind. */
  absl::Status RegisterAllocating(const std::string& name, AllocatingRuntimeFunction fn, bool override = false);
  /*! \brief The function, or nullptr. */
  const RuntimeFunction* Find(const std::string& name) const;
  const AllocatingRuntimeFunction* FindAllocating(const std::string& name) const;
  /*! \brief Registers how many operations a call of `name` does (the profiler asks). */
  void RegisterOperationCount(const std::string& name, OperationCount count);
  /*! \brief The count of `name`, or nullptr when none is registered (its GFLOP/s unknown). */
  const OperationCount* FindOperationCount(const std::string& name) const;
  std::vector<std::string> ListNames() const;
  /*! \brief dlopen()s a plug-in and registers what its mlc_plugin_init registers. */
  absl::Status LoadPlugin(const std::string& path);

 private:
  mutable std::mutex mu_;
  std::map<std::string, RuntimeFunction> functions_;
  std::map<std::string, AllocatingRuntimeFunction> allocating_;
  std::map<std::string, OperationCount> operation_counts_;
};

namespace detail {
struct RuntimeFunctionRegistrar {
  RuntimeFunctionRegistrar(const std::string& name, RuntimeFunction fn);
  RuntimeFunctionRegistrar(const std::string& name, AllocatingRuntimeFunction fn);
};
struct OperationCountRegistrar {
  OperationCountRegistrar(const std::string& name, OperationCount count);
};
}  // namespace detail

#define MLC_RT_CONCAT_INNER(a, b) a##b
#define MLC_RT_CONCAT(a, b) MLC_RT_CONCAT_INNER(a, b)
#define MLC_REGISTER_RUNTIME_FUNC(name, fn) \
  static ::mlc::vm::detail::RuntimeFunctionRegistrar MLC_RT_CONCAT(mlc_runtime_func_, __COUNTER__)(name, fn)
#define MLC_REGISTER_ALLOCATING_RUNTIME_FUNC(name, fn)                                              \
  static ::mlc::vm::detail::RuntimeFunctionRegistrar MLC_RT_CONCAT(mlc_runtime_func_, __COUNTER__)( \
      name, ::mlc::vm::AllocatingRuntimeFunction(fn))
#define MLC_REGISTER_RUNTIME_FUNC_OPERATIONS(name, count) \
  static ::mlc::vm::detail::OperationCountRegistrar MLC_RT_CONCAT(mlc_runtime_ops_, __COUNTER__)(name, count)

}  // namespace vm
}  // namespace mlc

#endif  // MLC_VM_RUNTIME_REGISTRY_H_
