/*! \file storage_pool.h
 *  \brief Tensor memory, and the pool through which the VM reuses it across a run and across runs.
 *
 *  Freed blocks go on free lists by size and a later request of the same size takes one back,
 *  warm: a fresh block of megabytes costs a page fault per page at every run. What a block is
 *  for decides how long it waits. A block of a size fixed at compile time (the memory plan's
 *  arena, a fixed-shape result) will be asked for again at the next run, so it waits until the
 *  pool dies. A block whose size came from a symbolic shape (an intermediate of a batch or prompt
 *  length the plan had no bound for) may never be asked for again; left waiting, every length a
 *  server ever saw would keep its blocks. It waits one run: EndRun frees those that no request
 *  took since the previous EndRun. The same length call after call reuses its blocks; a new one
 *  holds at most two runs' worth.
 */
#ifndef MLC_VM_STORAGE_POOL_H_
#define MLC_VM_STORAGE_POOL_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

namespace mlc {
namespace vm {

/*! \brief Tensor memory of `bytes` (a multiple of 64), 64-byte aligned; from 2 MiB on, on huge
 *         pages where the system grants them. Null when the system refuses. Freed with std::free. */
void* AllocateTensorMemory(size_t bytes);

/*! \brief `bytes` rounded up to whole 64-byte lines, at least one: what a tensor's storage takes. */
inline size_t TensorStorageBytes(size_t bytes) { return ((bytes > 0 ? bytes : 1) + 63) / 64 * 64; }

/*! \brief Size-bucketed free lists of aligned blocks. Thread-safe. */
class StoragePool {
 public:
  /*! \brief How long a released block waits on the free lists for a request of its size. */
  enum class Reuse {
    kAlways,   // until the pool dies: a size every run asks for
    kNextRun,  // until the end of the next run: a size from a symbolic shape
  };

  ~StoragePool();
  /*! \brief Null when the system refuses the memory. */
  void* Allocate(size_t bytes);
  void Release(void* data, size_t bytes, Reuse reuse);
  /*! \brief Ends a run (the VM calls it when an Invoke returns): frees the kNextRun blocks
   *         released before the previous EndRun that no request took since. */
  void EndRun();

  /*! \brief Blocks currently held for reuse, and allocations served from the free lists. */
  size_t cached_blocks() const;
  size_t reused() const;
  size_t allocated() const;
  /*! \brief Bytes the pool holds: handed out, and waiting on its free lists. */
  size_t held_bytes() const;
  /*! \brief The most bytes handed out and not yet released at any one time. */
  size_t peak_live_bytes() const;

 private:
  struct FreeBlock {
    void* data;
    int64_t released_in_run;  // kForever for Reuse::kAlways
  };
  static constexpr int64_t kForever = INT64_MAX;

  mutable std::mutex mu_;
  std::multimap<size_t, FreeBlock> free_;
  int64_t run_ = 0;             // how many runs have ended
  size_t waiting_one_run_ = 0;  // the kNextRun blocks on free_
  size_t reused_ = 0;
  size_t allocated_ = 0;
  size_t held_bytes_ = 0;
  size_t live_bytes_ = 0;
  size_t peak_live_bytes_ = 0;
};

}  // namespace vm
}  // namespace mlc

#endif  // MLC_VM_STORAGE_POOL_H_
