/*! \file thread_pool.h
 *  \brief The pool that runs parallel loops of generated kernels.
 *
 *  Kernels call `Launch(body, closure, n)` through the pointer the loader stores in the kernel
 *  library's `__mlc_parallel_launch`: [0, n) is split into one contiguous chunk per thread,
 *  the caller runs the first, and Launch returns when all are done. A launch from inside a
 *  parallel body runs serially. Threads: MLC_NUM_THREADS, else the number of cores.
 */
#ifndef MLC_VM_THREAD_POOL_H_
#define MLC_VM_THREAD_POOL_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "vm/kernel_abi.h"

namespace mlc {
namespace vm {

using ParallelBody = kernel_abi::ParallelBody;

class ThreadPool {
 public:
  static ThreadPool& Global();
  explicit ThreadPool(int num_threads);
  ~ThreadPool();

  int num_threads() const { return static_cast<int>(workers_.size()) + 1; }
  void Run(ParallelBody body, void* closure, int64_t n);
  /*! \brief Chunks of parallel loops that worker threads (not the caller) have run. */
  int64_t worker_chunks() const { return worker_chunks_.load(); }
  /*! \brief The C entry point stored in kernel libraries. */
  static void Launch(ParallelBody body, void* closure, int64_t n);

 private:
  void WorkerLoop(int index);

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::mutex launch_mu_;  // one launch at a time
  std::condition_variable work_cv_, done_cv_;
  ParallelBody body_ = nullptr;
  void* closure_ = nullptr;
  int64_t n_ = 0;
  int64_t generation_ = 0;
  int pending_ = 0;
  bool stop_ = false;
  std::atomic<int64_t> worker_chunks_{0};
};

}  // namespace vm
}  // namespace mlc

#endif  // MLC_VM_THREAD_POOL_H_
