/*! \file thread_pool.h
 *  \brief The pool that runs parallel loops of generated kernels.
 *
 *  Kernels call `Launch(body, closure, n)` through the pointer the loader stores in the kernel
 *  library (vm/kernel_abi.h): [0, n) is split into one contiguous range per thread, and each
 *  thread runs its own range in units of an eighth of it, front to back. A thread done with its
 *  range takes units from the back of the others' (on a shared machine one vCPU is often slower
 *  than the other for a while, and a static split waits for the slowest), all but the unit each
 *  starts with: every thread runs part of every launch, however late it wakes. While the threads
 *  keep pace, every launch of a loop gives thread t the same iterations, whatever the loop:
 *  what one kernel writes, the next one reads on the core that wrote it (a Zen 5 core reads
 *  data another core wrote at 35-48 GB/s against 55-100 for its own; the split that handed the
 *  second half of every loop out in shared grains ran MobileNetV2, an LSTM and ResNet-50 3-7%
 *  slower on two threads while the host was in its slow stretch, within 1% otherwise). A loop
 *  of fewer than 16 iterations per thread is split statically only: its units would be a few
 *  iterations each, and a thread then runs the same iterations launch after launch, so what
 *  they read stays in its core's cache (a recurrent layer's matrix-vector product over 16
 *  panels of a 1 MB weight: with shared grains, a quarter of the weight moved between the
 *  cores at every step; static, an LSTM ran in 0.977x the time on two threads and a GRU
 *  0.946x, convolutional networks unchanged). The caller runs range 0, and Launch returns when
 *  all are done. Under DescendingLaunches each thread runs the same iterations last to first
 *  (its own range from the back, the others' taken from the front). A launch from inside a
 *  parallel body runs serially. Threads: MLC_NUM_THREADS, else the number of cores;
 *  SetGlobalThreads (Python: mlc.set_num_threads) changes it between runs.
 *
 *  A model launches many short parallel loops back to back (a dense layer at batch 64 takes
 *  about 100 us), so waking a sleeping thread for each (tens of microseconds on a virtual
 *  machine) would cost as much as the loop. Workers therefore spin for a while
 *  (`kSpinMicros`) after each chunk, watching for the next launch, before they sleep on a
 *  condition variable; the caller spins while the workers finish. The scheduler sometimes
 *  places a woken worker on the launcher's CPU (2-vCPU machines: one run in five): two
 *  spinning threads on one CPU would then wait for each other a whole time slice per launch
 *  (a 25 us model took 460 us), so both yield instead of spinning when they share a CPU; and
 *  since the scheduler keeps two cache-hot threads together rather than use the idle CPU (the
 *  chunks then ran one after the other), a worker that finds itself on the launcher's CPU
 *  takes that CPU out of its own affinity mask, which moves it at once.
 */
#ifndef MLC_VM_THREAD_POOL_H_
#define MLC_VM_THREAD_POOL_H_

#include <sched.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "vm/kernel_abi.h"
#include "vm/profiler.h"

namespace mlc {
namespace vm {

using ParallelBody = kernel_abi::ParallelBody;

class ThreadPool {
 public:
  /*! \brief How long an idle worker watches for the next launch before it sleeps. */
  static constexpr int kSpinMicros = 200;

  /*! \brief The pool kernels launch on: MLC_NUM_THREADS threads, else one per core, until
   *  SetGlobalThreads changes it. */
  static ThreadPool& Global();
  /*! \brief Replaces the global pool by one of `num_threads` (at least 1) threads; the old one's
   *  workers are joined. Call it between runs: a kernel running on another thread meanwhile
   *  would launch on the pool being destroyed. */
  static void SetGlobalThreads(int num_threads);
  explicit ThreadPool(int num_threads);
  ~ThreadPool();

  int num_threads() const { return static_cast<int>(workers_.size()) + 1; }
  void Run(ParallelBody body, void* closure, int64_t n);
  /*! \brief While alive, the launches made from this thread run each thread's iterations last
   *  to first (the same iterations per thread as ascending launches: each runs its own range
   *  from its end and takes the others' from their fronts). The VM sets it around a kernel that
   *  reads the same large constant as the kernel before it that read it, ascending: the second
   *  sweep starts with what the first left in cache (see codegen/parallel_order.h). */
  class DescendingLaunches {
   public:
    explicit DescendingLaunches(bool on);
    ~DescendingLaunches();
    DescendingLaunches(const DescendingLaunches&) = delete;
    DescendingLaunches& operator=(const DescendingLaunches&) = delete;

   private:
    bool saved_;
  };
  /*! \brief While alive (and `on`), the launches made from this thread run on it alone, as on a
   *  pool of one thread. The VM sets it around the runs its ThreadChoice gives one thread. */
  class SerialLaunches {
   public:
    explicit SerialLaunches(bool on);
    ~SerialLaunches();
    SerialLaunches(const SerialLaunches&) = delete;
    SerialLaunches& operator=(const SerialLaunches&) = delete;

   private:
    bool saved_;
  };
  /*! \brief The C entry point stored in kernel libraries. */
  static void Launch(ParallelBody body, void* closure, int64_t n);
  /*! \brief Records every chunk of the following launches in `profiler` (nullptr: stop). */
  void SetProfiler(Profiler* profiler) { profiler_.store(profiler, std::memory_order_relaxed); }
  /*! \brief Chunks of parallel loops that worker threads (not the caller) have run. */
  int64_t worker_chunks() const { return worker_chunks_.load(); }

 private:
  void WorkerLoop(int index);
  void RunChunk(int index, int64_t begin, int64_t end);
  /*! \brief Runs participant `index`'s share of the job: its own range, then units taken from
   *  the others' until none is left. Returns how many chunks it ran. */
  int RunShare(int index);
  /*! \brief Takes up to `units` units from the front or the back of thread `owner`'s range:
   *  the iterations [*begin, *end), or false when none is left to this taker (the others
   *  never take the unit the owner starts with). */
  bool Take(int owner, uint32_t units, bool from_front, bool by_owner, int64_t* begin, int64_t* end);
  /*! \brief Whether this worker runs on the CPU the last launch came from. */
  bool SharesLauncherCpu() const;
  /*! \brief Restricts the calling worker to the allowed CPUs but `cpu`, which moves it now. */
  void MoveOffCpu(int cpu);
  /*! \brief Waits until the generation differs from `seen` (or stop); returns the new one. */
  int64_t AwaitLaunch(int64_t seen);

  std::vector<std::thread> workers_;
  std::mutex launch_mu_;  // one launch at a time
  // The current job; written by the launcher before it publishes a new generation.
  ParallelBody body_ = nullptr;
  void* closure_ = nullptr;
  bool steal_ = false;       // whether a thread done with its range takes from the others'
  bool descending_ = false;  // each chunk's iterations last to first
  // Thread t's remaining range of units [begin, end), packed as begin | end << 32 so that its
  // owner (from one end) and the others (from the other) take units with one compare-exchange;
  // one cache line each.
  struct alignas(64) OwnedRange {
    std::atomic<uint64_t> bounds{0};  // units, counted from `first`
    uint32_t owners_first_unit = 0;   // set with the bounds; only the owner runs it
    int64_t first = 0, last = 0;      // the thread's iterations [first, last)
    int64_t unit = 1;                 // iterations per unit (the last one may have fewer)
  };
  std::unique_ptr<OwnedRange[]> ranges_;
  Profiler* job_profiler_ = nullptr;
  std::atomic<int64_t> generation_{0};
  std::atomic<int> pending_{0};  // workers still running the current job
  std::atomic<bool> stop_{false};
  // Sleeping workers wait here; `sleepers_` is guarded by `sleep_mu_`.
  std::mutex sleep_mu_;
  std::condition_variable wake_cv_;
  int sleepers_ = 0;
  std::atomic<int64_t> worker_chunks_{0};
  std::atomic<Profiler*> profiler_{nullptr};
  // Where the launcher and the last worker to run a chunk ran: when the scheduler puts a
  // worker on the launcher's CPU, both must yield rather than spin (see AwaitLaunch, Run).
  std::atomic<int> launcher_cpu_{-1};
  std::atomic<int> last_worker_cpu_{-2};
  cpu_set_t allowed_cpus_;  // the process's CPUs when the pool started
};

/*! \brief fn(begin, end) over [0, n) on the global pool, split as Launch splits a kernel's
 *  loop (what the runtime library's kernels parallelize with). */
template <typename F>
void ParallelFor(int64_t n, const F& fn) {
  ThreadPool::Global().Run(
      [](void* closure, int64_t begin, int64_t end) { (*static_cast<const F*>(closure))(begin, end); },
      const_cast<F*>(&fn), n);
}

}  // namespace vm
}  // namespace mlc

#endif  // MLC_VM_THREAD_POOL_H_
