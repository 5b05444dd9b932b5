/*! \file workspace_pool.cc */
#include "vm/workspace_pool.h"

#include <cstdlib>

#include "support/resource_limits.h"

namespace mlc {
namespace vm {
namespace {
constexpr int64_t kAlign = 64;
// Sizes are rounded up to 4 KB pages.
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
  if (bytes > GetResourceLimits().max_tensor_bytes) {
    failed_bytes_.store(bytes, std::memory_order_relaxed);
    return nullptr;
  }
  int64_t size = Rounded(bytes);
  std::lock_guard<std::mutex> lock(mu_);
  // The smallest free block that fits, if it is not more than twice too large (a larger one
  // is better left for a larger buffer).
  auto it = free_.lower_bound(size);
  if (it != free_.end() && it->first <= 2 * size) {
    void* p = it->second;
    free_.erase(it);
    return p;
  }
  // Free blocks too small for this request would otherwise only accumulate: with a block per
  // distinct size, the pool held the sum of every kernel's workspace (ResNet-18: 38 MB)
  // instead of about the largest.
  for (auto small = free_.begin(); small != free_.end() && small->first < size;) small = ReleaseBlock(small);
  void* p = std::aligned_alloc(kAlign, static_cast<size_t>(size));
  if (p == nullptr) {
    failed_bytes_.store(bytes, std::memory_order_relaxed);
    return nullptr;
  }
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

std::multimap<int64_t, void*>::iterator WorkspacePool::ReleaseBlock(std::multimap<int64_t, void*>::iterator block) {
  size_of_.erase(block->second);
  held_ -= block->first;
  std::free(block->second);
  return free_.erase(block);
}

int64_t WorkspacePool::ReleaseFree() {
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t before = held_;
  for (auto block = free_.begin(); block != free_.end();) block = ReleaseBlock(block);
  return before - held_;
}

void* WorkspacePool::AllocEntry(int64_t bytes) { return Global().Alloc(bytes); }
void WorkspacePool::FreeEntry(void* ptr) { Global().Free(ptr); }

}  // namespace vm
}  // namespace mlc
