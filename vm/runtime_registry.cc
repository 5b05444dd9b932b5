/*! \file runtime_registry.cc
 *  \brief Runtime function registry and plug-in loading.
 */
#include "vm/runtime_registry.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "vm/plugin_api.h"

namespace mlc {
namespace vm {

RuntimeRegistry& RuntimeRegistry::Global() {
  static RuntimeRegistry* registry = new RuntimeRegistry();
  return *registry;
}

absl::Status RuntimeRegistry::Register(const std::string& name, RuntimeFunction fn, bool override) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!override && (functions_.count(name) || allocating_.count(name))) {
    return absl::AlreadyExistsError(absl::StrCat("runtime function ", name, " is already registered"));
  }
  allocating_.erase(name);
  functions_[name] = std::move(fn);
  return absl::OkStatus();
}

absl::Status RuntimeRegistry::RegisterAllocating(const std::string& name, AllocatingRuntimeFunction fn, bool override) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!override && (functions_.count(name) || allocating_.count(name))) {
    return absl::AlreadyExistsError(absl::StrCat("runtime function ", name, " is already registered"));
  }
  functions_.erase(name);
  allocating_[name] = std::move(fn);
  return absl::OkStatus();
}

const AllocatingRuntimeFunction* RuntimeRegistry::FindAllocating(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = allocating_.find(name);
  return it == allocating_.end() ? nullptr : &it->second;
}

void RuntimeRegistry::RegisterOperationCount(const std::string& name, OperationCount count) {
  std::lock_guard<std::mutex> lock(mu_);
  operation_counts_[name] = std::move(count);
}

const OperationCount* RuntimeRegistry::FindOperationCount(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = operation_counts_.find(name);
  return it == operation_counts_.end() ? nullptr : &it->second;
}

const RuntimeFunction* RuntimeRegistry::Find(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : &it->second;
}

std::vector<std::string> RuntimeRegistry::ListNames() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> names;
  for (const auto& [name, fn] : functions_) names.push_back(name);
  for (const auto& [name, fn] : allocating_) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

struct PluginContext {
  RuntimeRegistry* registry;
  std::string path;
  absl::Status status;
};

void RegisterFromPlugin(void* ctx, const char* name, MlcRuntimeFunction fn) {
  auto* plugin = static_cast<PluginContext*>(ctx);
  std::string fname = name;
  RuntimeFunction wrapped = [fn, fname](absl::Span<DLTensor* const> args) -> absl::Status {
    char error[512] = {0};
    int rc = fn(const_cast<DLTensor**>(args.data()), static_cast<int>(args.size()), error, sizeof(error));
    if (rc != 0) return absl::InternalError(absl::StrCat(fname, ": ", error[0] ? error : "failed"));
    return absl::OkStatus();
  };
  absl::Status s = plugin->registry->Register(fname, std::move(wrapped), /*override=*/true);
  if (!s.ok() && plugin->status.ok()) plugin->status = s;
}

}  // namespace

absl::Status RuntimeRegistry::LoadPlugin(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return absl::NotFoundError(absl::StrCat("cannot load plug-in ", path, ": ", dlerror()));
  auto init = reinterpret_cast<MlcPluginInit>(dlsym(handle, MLC_PLUGIN_INIT_SYMBOL));
  if (init == nullptr) {
    dlclose(handle);
    return absl::InvalidArgumentError(
        absl::StrCat(path, " is not a runtime plug-in: it does not export ", MLC_PLUGIN_INIT_SYMBOL));
  }
  PluginContext ctx{this, path, absl::OkStatus()};
  init(&RegisterFromPlugin, &ctx);
  // The handle stays open: the registered functions live in it.
  return ctx.status;
}

namespace detail {
OperationCountRegistrar::OperationCountRegistrar(const std::string& name, OperationCount count) {
  RuntimeRegistry::Global().RegisterOperationCount(name, std::move(count));
}
RuntimeFunctionRegistrar::RuntimeFunctionRegistrar(const std::string& name, RuntimeFunction fn) {
  absl::Status s = RuntimeRegistry::Global().Register(name, std::move(fn));
  if (!s.ok()) {
    std::cerr << s.message() << "\n";
    std::abort();
  }
}
RuntimeFunctionRegistrar::RuntimeFunctionRegistrar(const std::string& name, AllocatingRuntimeFunction fn) {
  absl::Status s = RuntimeRegistry::Global().RegisterAllocating(name, std::move(fn));
  if (!s.ok()) {
    std::cerr << s.message() << "\n";
    std::abort();
  }
}
}  // namespace detail

}  // namespace vm
}  // namespace mlc
