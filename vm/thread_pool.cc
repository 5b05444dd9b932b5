/*! \file thread_pool.cc
 *  \brief A fork-join pool for parallel loops.
 */
#include "vm/thread_pool.h"

#include <cstdlib>

namespace mlc {
namespace vm {
namespace {
thread_local bool in_parallel_body = false;

std::pair<int64_t, int64_t> Chunk(int64_t n, int parts, int index) {
  int64_t base = n / parts, extra = n % parts;
  int64_t begin = index * base + std::min<int64_t>(index, extra);
  return {begin, begin + base + (index < extra ? 1 : 0)};
}
}  // namespace

ThreadPool& ThreadPool::Global() {
  static ThreadPool* pool = [] {
    int n = static_cast<int>(std::thread::hardware_concurrency());
    if (const char* env = std::getenv("MLC_NUM_THREADS")) n = std::atoi(env);
    return new ThreadPool(std::max(1, n));
  }();
  return *pool;
}

ThreadPool::ThreadPool(int num_threads) {
  for (int i = 1; i < num_threads; ++i) workers_.emplace_back([this, i] { WorkerLoop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::WorkerLoop(int index) {
  int64_t seen = 0;
  while (true) {
    ParallelBody body;
    void* closure;
    int64_t n;
    {
      std::unique_lock<std::mutex> lock(mu_);
      work_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      body = body_;
      closure = closure_;
      n = n_;
    }
    auto [begin, end] = Chunk(n, num_threads(), index);
    if (begin < end) {
      worker_chunks_.fetch_add(1);
      in_parallel_body = true;
      body(closure, begin, end);
      in_parallel_body = false;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (--pending_ == 0) done_cv_.notify_one();
    }
  }
}

void ThreadPool::Run(ParallelBody body, void* closure, int64_t n) {
  if (n <= 0) return;
  if (workers_.empty() || in_parallel_body || n == 1) {
    body(closure, 0, n);
    return;
  }
  std::lock_guard<std::mutex> launch(launch_mu_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    body_ = body;
    closure_ = closure;
    n_ = n;
    pending_ = static_cast<int>(workers_.size());
    ++generation_;
  }
  work_cv_.notify_all();
  auto [begin, end] = Chunk(n, num_threads(), 0);
  in_parallel_body = true;
  if (begin < end) body(closure, begin, end);
  in_parallel_body = false;
  std::unique_lock<std::mutex> lock(mu_);
  done_cv_.wait(lock, [&] { return pending_ == 0; });
}

void ThreadPool::Launch(ParallelBody body, void* closure, int64_t n) { Global().Run(body, closure, n); }

}  // namespace vm
}  // namespace mlc
