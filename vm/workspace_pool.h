/*! \file workspace_pool.h
 *  \brief Scratch memory for kernels: buffers a schedule allocates (packed operands, caches)
 *         that are too large for the stack.
 *
 *  A kernel allocates and frees its workspace on every call; fresh heap blocks of a few MB
 *  would cost a page fault per 4 KB page each time (8 MB: 2048 faults, milliseconds). The pool
 *  keeps freed blocks by size and hands them back, so after the first call a kernel touches
 *  only warm pages. A request takes the smallest free block that fits and is at most twice its
 *  size; when none does, the free blocks smaller than the request are released, so the pool
 *  holds about what the largest call needs at once (within a factor of two per size class),
 *  not a block for every distinct size.
 */
#ifndef MLC_VM_WORKSPACE_POOL_H_
#define MLC_VM_WORKSPACE_POOL_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

namespace mlc {
namespace vm {

class WorkspacePool {
 public:
  static WorkspacePool& Global();
  ~WorkspacePool();

  /*! \brief 64-byte aligned, at least `bytes` long; nullptr when the request is over the
   *         max_tensor_bytes limit or the system refuses it. Generated code skips the work that
   *         needed the buffer, and the failure is kept for TakeFailure. */
  void* Alloc(int64_t bytes);
  void Free(void* ptr);
  /*! \brief The size of a request Alloc refused since the last call (0 if none), cleared: the
   *         VM checks it after each kernel, which then failed. */
  int64_t TakeFailure() { return failed_bytes_.exchange(0, std::memory_order_relaxed); }
  /*! \brief Bytes held (in use or cached). */
  int64_t bytes_held() const;
  /*! \brief Returns the cached blocks (not those in use) to the system; the bytes released.
   *         The pool keeps blocks as long as the process lives, so a VM that is destroyed
   *         releases them: one model's large workspace does not stay with the next. */
  int64_t ReleaseFree();

  /*! \brief The C entry points stored in kernel libraries (vm/kernel_abi.h). */
  static void* AllocEntry(int64_t bytes);
  static void FreeEntry(void* ptr);

 private:
  /*! \brief Frees a cached block and forgets it (mu_ held); the next free block. */
  std::multimap<int64_t, void*>::iterator ReleaseBlock(std::multimap<int64_t, void*>::iterator block);

  mutable std::mutex mu_;
  std::multimap<int64_t, void*> free_;  // size -> block
  std::map<void*, int64_t> size_of_;    // every block the pool owns
  int64_t held_ = 0;
  std::atomic<int64_t> failed_bytes_{0};
};

}  // namespace vm
}  // namespace mlc

#endif  // MLC_VM_WORKSPACE_POOL_H_
