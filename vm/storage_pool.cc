/*! \file storage_pool.cc */
#include "vm/storage_pool.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>

namespace mlc {
namespace vm {

/*! From 2 MiB on, a block starts on a 2 MiB boundary and asks for transparent huge pages (these
 *  machines' setting is `madvise`): a layer that streams megabytes of weights otherwise walks the
 *  page table for each 4 KiB of them (ResNet-18's 7 x 7 layers ran at 86-88% of the FMA peak on
 *  4 KiB pages, 93-94% on huge ones). */
void* AllocateTensorMemory(size_t bytes) {
  constexpr size_t kHugePage = size_t{2} << 20;
  if (bytes < kHugePage) return std::aligned_alloc(64, bytes);
  void* data = nullptr;
  if (posix_memalign(&data, kHugePage, bytes) != 0) return nullptr;
  madvise(data, bytes / kHugePage * kHugePage, MADV_HUGEPAGE);  // a hint: refused, pages stay 4 KiB
  return data;
}

StoragePool::~StoragePool() {
  for (auto& [size, block] : free_) std::free(block.data);
}

void* StoragePool::Allocate(size_t bytes) {
  const size_t size = TensorStorageBytes(bytes);
  {
    std::lock_guard<std::mutex> lock(mu_);
    live_bytes_ += size;
    peak_live_bytes_ = std::max(peak_live_bytes_, live_bytes_);
    auto [first, last] = free_.equal_range(size);
    if (first != last) {
      auto newest = std::prev(last);  // the last released: the likeliest still in cache
      void* data = newest->second.data;
      if (newest->second.released_in_run != kForever) --waiting_one_run_;
      free_.erase(newest);
      ++reused_;
      return data;
    }
    ++allocated_;
    held_bytes_ += size;
  }
  void* data = AllocateTensorMemory(size);
  if (data == nullptr) {  // the caller reports it; the books must not count it
    std::lock_guard<std::mutex> lock(mu_);
    live_bytes_ -= size;
    held_bytes_ -= size;
    --allocated_;
  }
  return data;
}

void StoragePool::Release(void* data, size_t bytes, Reuse reuse) {
  const size_t size = TensorStorageBytes(bytes);
  std::lock_guard<std::mutex> lock(mu_);
  live_bytes_ -= size;
  const bool one_run = reuse == Reuse::kNextRun;
  waiting_one_run_ += one_run;
  free_.emplace(size, FreeBlock{data, one_run ? run_ : kForever});
}

void StoragePool::EndRun() {
  std::lock_guard<std::mutex> lock(mu_);
  if (waiting_one_run_ > 0) {
    for (auto it = free_.begin(); it != free_.end();) {
      if (it->second.released_in_run < run_) {
        std::free(it->second.data);
        held_bytes_ -= it->first;
        --waiting_one_run_;
        it = free_.erase(it);
      } else {
        ++it;
      }
    }
  }
  ++run_;
}

size_t StoragePool::cached_blocks() const {
  std::lock_guard<std::mutex> lock(mu_);
  return free_.size();
}

size_t StoragePool::reused() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reused_;
}

size_t StoragePool::allocated() const {
  std::lock_guard<std::mutex> lock(mu_);
  return allocated_;
}

size_t StoragePool::held_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return held_bytes_;
}

size_t StoragePool::peak_live_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return peak_live_bytes_;
}

}  // namespace vm
}  // namespace mlc
