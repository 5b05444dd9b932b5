/*! \file thread_pool.cc
 *  \brief A fork-join pool for parallel loops, spinning briefly between launches.
 */
#include "vm/thread_pool.h"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>

namespace mlc {
namespace vm {
namespace {
thread_local bool in_parallel_body = false;
thread_local bool launch_descending = false;  // this thread's launches (DescendingLaunches)
thread_local bool launch_serial = false;      // this thread's launches (SerialLaunches)

/*! \brief body(closure, i, i + 1) for i from end - 1 down to begin. */
void RunDescending(ParallelBody body, void* closure, int64_t begin, int64_t end) {
  for (int64_t i = end - 1; i >= begin; --i) body(closure, i, i + 1);
}

std::pair<int64_t, int64_t> Chunk(int64_t n, int parts, int index) {
  int64_t base = n / parts, extra = n % parts;
  int64_t begin = index * base + std::min<int64_t>(index, extra);
  return {begin, begin + base + (index < extra ? 1 : 0)};
}

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}
}  // namespace

namespace {
// The global pool: read on every launch (one atomic load), replaced under the mutex.
std::atomic<ThreadPool*> global_pool{nullptr};
std::mutex global_pool_mu;
}  // namespace

ThreadPool& ThreadPool::Global() {
  if (ThreadPool* p = global_pool.load(std::memory_order_acquire)) return *p;
  std::lock_guard<std::mutex> lock(global_pool_mu);
  if (ThreadPool* p = global_pool.load(std::memory_order_relaxed)) return *p;
  int n = static_cast<int>(std::thread::hardware_concurrency());
  if (const char* env = std::getenv("MLC_NUM_THREADS")) n = std::atoi(env);
  auto* pool = new ThreadPool(std::max(1, n));
  global_pool.store(pool, std::memory_order_release);
  return *pool;
}

void ThreadPool::SetGlobalThreads(int num_threads) {
  std::lock_guard<std::mutex> lock(global_pool_mu);
  ThreadPool* old = global_pool.exchange(new ThreadPool(std::max(1, num_threads)), std::memory_order_acq_rel);
  delete old;
}

ThreadPool::ThreadPool(int num_threads) : ranges_(new OwnedRange[std::max(1, num_threads)]) {
  CPU_ZERO(&allowed_cpus_);
  if (sched_getaffinity(0, sizeof(allowed_cpus_), &allowed_cpus_) != 0) CPU_ZERO(&allowed_cpus_);
  for (int i = 1; i < num_threads; ++i) workers_.emplace_back([this, i] { WorkerLoop(i); });
}

ThreadPool::~ThreadPool() {
  stop_.store(true);
  { std::lock_guard<std::mutex> lock(sleep_mu_); }
  wake_cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

int64_t ThreadPool::AwaitLaunch(int64_t seen) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(kSpinMicros);
  for (int i = 0;; ++i) {
    int64_t g = generation_.load(std::memory_order_acquire);
    if (g != seen || stop_.load(std::memory_order_relaxed)) return g;
    if ((i & 63) == 63) {
      if (std::chrono::steady_clock::now() > deadline) break;
      // Sharing a CPU with the launcher, spinning would hold it for a whole time slice
      // (milliseconds) while the launcher waits for us; give it back instead.
      if (SharesLauncherCpu()) std::this_thread::yield();
    }
    CpuRelax();
  }
  std::unique_lock<std::mutex> lock(sleep_mu_);
  ++sleepers_;
  wake_cv_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen || stop_.load(); });
  --sleepers_;
  return generation_.load(std::memory_order_acquire);
}

void ThreadPool::WorkerLoop(int index) {
  int64_t seen = 0;
  while (true) {
    seen = AwaitLaunch(seen);
    if (stop_.load()) return;
    if (int chunks = RunShare(index); chunks > 0) worker_chunks_.fetch_add(chunks, std::memory_order_relaxed);
    pending_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

int ThreadPool::RunShare(int index) {
  int chunks = 0;
  int64_t begin, end;
  // Ascending, the owner runs its range from the front and the others take from the back;
  // descending, the other way round, so each thread's iterations stay its own either way.
  // Small loops (no stealing) run their range whole.
  const uint32_t own_units = steal_ ? 1 : UINT32_MAX;
  while (Take(index, own_units, /*from_front=*/!descending_, /*by_owner=*/true, &begin, &end)) {
    RunChunk(index, begin, end);
    ++chunks;
  }
  if (!steal_) return chunks;
  const int threads = num_threads();
  for (int k = 1; k < threads; ++k) {
    const int owner = (index + k) % threads;
    while (Take(owner, 1, /*from_front=*/descending_, /*by_owner=*/false, &begin, &end)) {
      RunChunk(index, begin, end);
      ++chunks;
    }
  }
  return chunks;
}

bool ThreadPool::Take(int owner, uint32_t units, bool from_front, bool by_owner, int64_t* begin, int64_t* end) {
  OwnedRange& range = ranges_[owner];
  uint64_t packed = range.bounds.load(std::memory_order_relaxed);
  while (true) {
    const uint32_t lo = static_cast<uint32_t>(packed), hi = static_cast<uint32_t>(packed >> 32);
    // The others leave the owner the unit it starts with, however late it starts.
    uint32_t first = lo, last = hi;
    if (!by_owner && from_front) last = std::min(hi, range.owners_first_unit);
    if (!by_owner && !from_front) first = std::max(lo, range.owners_first_unit + 1);
    if (first >= last) return false;
    const uint32_t take = std::min(units, last - first);
    const uint32_t taken = from_front ? first : last - take;
    const uint32_t new_lo = from_front ? lo + take : lo, new_hi = from_front ? hi : hi - take;
    if (range.bounds.compare_exchange_weak(packed, new_lo | static_cast<uint64_t>(new_hi) << 32,
                                           std::memory_order_relaxed)) {
      *begin = range.first + static_cast<int64_t>(taken) * range.unit;
      *end = std::min(range.last, range.first + static_cast<int64_t>(taken + take) * range.unit);
      return true;
    }
  }
}

bool ThreadPool::SharesLauncherCpu() const { return sched_getcpu() == launcher_cpu_.load(std::memory_order_relaxed); }

void ThreadPool::MoveOffCpu(int cpu) {
  // Only this worker's own mask changes; with no other CPU allowed it stays (and yields).
  cpu_set_t mask = allowed_cpus_;
  CPU_CLR(cpu, &mask);
  if (CPU_COUNT(&mask) > 0) sched_setaffinity(0, sizeof(mask), &mask);
}

void ThreadPool::RunChunk(int index, int64_t begin, int64_t end) {
  if (index > 0) {
    int cpu = sched_getcpu();
    if (cpu == launcher_cpu_.load(std::memory_order_relaxed)) {
      MoveOffCpu(cpu);
      cpu = sched_getcpu();
    }
    last_worker_cpu_.store(cpu, std::memory_order_relaxed);
  }
  in_parallel_body = true;
  auto run = [&] {
    if (descending_)
      RunDescending(body_, closure_, begin, end);
    else
      body_(closure_, begin, end);
  };
  if (job_profiler_ == nullptr) {
    run();
  } else {
    int64_t start = job_profiler_->Now();
    run();
    job_profiler_->RecordChunk(index, start, job_profiler_->Now());
  }
  in_parallel_body = false;
}

void ThreadPool::Run(ParallelBody body, void* closure, int64_t n) {
  if (n <= 0) return;
  if (workers_.empty() || in_parallel_body || launch_serial || n == 1) {
    if (launch_descending && !in_parallel_body)
      RunDescending(body, closure, 0, n);
    else
      body(closure, 0, n);
    return;
  }
  std::lock_guard<std::mutex> launch(launch_mu_);
  body_ = body;
  closure_ = closure;
  descending_ = launch_descending;
  // One range of iterations per thread, as even as the count allows, each in units of an eighth
  // of it; small loops static, each range taken whole (see thread_pool.h). Split into units of
  // the whole loop first, 182 iterations (13 channel blocks x 14 rows) went 99 and 83.
  const int threads = num_threads();
  steal_ = n >= 16 * threads;
  for (int t = 0; t < threads; ++t) {
    auto [first, last] = Chunk(n, threads, t);
    OwnedRange& range = ranges_[t];
    range.first = first;
    range.last = last;
    range.unit = std::max<int64_t>(1, steal_ ? (last - first + 7) / 8 : last - first);
    const uint64_t units = static_cast<uint64_t>((last - first + range.unit - 1) / range.unit);
    range.bounds.store(units << 32, std::memory_order_relaxed);
    range.owners_first_unit = static_cast<uint32_t>(descending_ && units > 0 ? units - 1 : 0);
  }
  job_profiler_ = profiler_.load(std::memory_order_relaxed);
  launcher_cpu_.store(sched_getcpu(), std::memory_order_relaxed);
  pending_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  {
    // Under the lock: a worker about to sleep either sees the new generation or is counted.
    std::lock_guard<std::mutex> lock(sleep_mu_);
    if (sleepers_ > 0) wake_cv_.notify_all();
  }
  RunShare(0);
  // Spin while the workers finish on their own CPUs; yield when one of them shares ours (it
  // cannot run while we spin) or after a long wait.
  for (int i = 0; pending_.load(std::memory_order_acquire) > 0; ++i) {
    if (i >= (1 << 16) || ((i & 63) == 63 && launcher_cpu_.load(std::memory_order_relaxed) ==
                                                 last_worker_cpu_.load(std::memory_order_relaxed))) {
      std::this_thread::yield();
    } else {
      CpuRelax();
    }
  }
}

void ThreadPool::Launch(ParallelBody body, void* closure, int64_t n) { Global().Run(body, closure, n); }

ThreadPool::DescendingLaunches::DescendingLaunches(bool on) : saved_(launch_descending) { launch_descending = on; }

ThreadPool::DescendingLaunches::~DescendingLaunches() { launch_descending = saved_; }

ThreadPool::SerialLaunches::SerialLaunches(bool on) : saved_(launch_serial) { launch_serial = on; }

ThreadPool::SerialLaunches::~SerialLaunches() { launch_serial = saved_; }

}  // namespace vm
}  // namespace mlc
