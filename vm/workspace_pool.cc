/*! \file workspace_pool.cc */
#include "vm/workspace_pool.h"

#include <cstdlib>

namespace mlc {
namespace vm {
namespace {
constexpr int64_t kAlign = 64;
// Sizes are rounded up to 4 KB pages, so the same buffer of a kernel always finds its block.
int64_t Rounded(int64_t bytes) { return (std::max<int64_t>(bytes, 1) + 4095) / 4096 * 4096; }
}  // namespace

WorkspacePool& WorkspacePool::Global() {
  static WorkspacePool* pool = new WorkspacePool();
  return *pool;
}

WorkspacePool::~WorkspacePool() {
  for (const auto& [p, size] : size_of_) std::free(p);
}

void* WorkspacePool::Alloc(int64_t bytes) {
  int64_t size = Rounded(bytes);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = free_.find(size);
  if (it != free_.end()) {
    void* p = it->second;
    free_.erase(it);
    return p;
  }
  void* p = std::aligned_alloc(kAlign, static_cast<size_t>(size));
  if (p == nullptr) return nullptr;
  size_of_[p] = size;
  held_ += size;
  return p;
}

void WorkspacePool::Free(void* ptr) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = size_of_.find(ptr);
  if (it == size_of_.end()) return;  // not ours; never happens with generated code
  free_.emplace(it->second, ptr);
}

int64_t WorkspacePool::bytes_held() const {
  std::lock_guard<std::mutex> lock(mu_);
  return held_;
}

void* WorkspacePool::AllocEntry(int64_t bytes) { return Global().Alloc(bytes); }
void WorkspacePool::FreeEntry(void* ptr) { Global().Free(ptr); }

}  // namespace vm
}  // namespace mlc
