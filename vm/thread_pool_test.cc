/*! \file thread_pool_test.cc
 *  \brief The pool's split of a parallel loop: every iteration exactly once, whatever n, and a
 *         thread held up in its static chunk leaves the shared tail to the others.
 */
#include "vm/thread_pool.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace mlc {
namespace vm {
namespace {

struct Recorder {
  std::vector<std::atomic<int>> runs;
  std::mutex mu;
  std::vector<std::thread::id> by;  // the thread that ran each iteration
  std::chrono::milliseconds slow_for{0};
  int64_t slow_below = 0;  // iterations [0, slow_below) sleep `slow_for` each
  explicit Recorder(int64_t n) : runs(n), by(n) {}
};

void Body(void* closure, int64_t begin, int64_t end) {
  auto* r = static_cast<Recorder*>(closure);
  for (int64_t i = begin; i < end; ++i) {
    if (i < r->slow_below) std::this_thread::sleep_for(r->slow_for);
    r->runs[i].fetch_add(1);
    std::lock_guard<std::mutex> lock(r->mu);
    r->by[i] = std::this_thread::get_id();
  }
}

TEST(ThreadPool, RunsEveryIterationExactlyOnce) {
  ThreadPool pool(2);
  for (int64_t n : {1, 2, 3, 7, 8, 9, 64, 1001}) {
    Recorder r(n);
    pool.Run(Body, &r, n);
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(r.runs[i].load(), 1) << "iteration " << i << " of " << n;
  }
}

// 64 iterations on 2 threads: [0, 16) and [16, 32) are the threads' static chunks, [32, 64) the
// shared tail. The caller's chunk sleeps 5 ms per iteration, so the worker, done with its own
// chunk long before, takes the tail: the caller runs fewer than the 32 iterations a static
// split would have given it.
TEST(ThreadPool, AThreadHeldUpInItsChunkLeavesTheSharedTailToTheOthers) {
  ThreadPool pool(2);
  Recorder r(64);
  r.slow_below = 16;
  r.slow_for = std::chrono::milliseconds(5);
  pool.Run(Body, &r, 64);
  const std::thread::id caller = std::this_thread::get_id();
  int64_t by_caller = 0;
  for (int64_t i = 0; i < 64; ++i) {
    EXPECT_EQ(r.runs[i].load(), 1) << "iteration " << i;
    by_caller += r.by[i] == caller;
  }
  EXPECT_GE(by_caller, 16);  // its own chunk
  EXPECT_LT(by_caller, 32) << "the worker should have taken the tail while the caller slept";
}

TEST(ThreadPool, SetGlobalThreadsDecidesHowManyThreadsRunALaunch) {
  const int before = ThreadPool::Global().num_threads();
  ThreadPool::SetGlobalThreads(3);
  EXPECT_EQ(ThreadPool::Global().num_threads(), 3);
  // Iterations that sleep 1 ms each: every thread runs its static chunk, so three take part.
  Recorder wide(300);
  wide.slow_below = 300;
  wide.slow_for = std::chrono::milliseconds(1);
  ThreadPool::Launch(Body, &wide, 300);
  std::set<std::thread::id> threads(wide.by.begin(), wide.by.end());
  EXPECT_EQ(threads.size(), 3u);
  ThreadPool::SetGlobalThreads(1);
  EXPECT_EQ(ThreadPool::Global().num_threads(), 1);
  Recorder alone(300);
  ThreadPool::Launch(Body, &alone, 300);
  for (int64_t i = 0; i < 300; ++i) EXPECT_EQ(alone.by[i], std::this_thread::get_id()) << "iteration " << i;
  ThreadPool::SetGlobalThreads(0);  // at least one
  EXPECT_EQ(ThreadPool::Global().num_threads(), 1);
  ThreadPool::SetGlobalThreads(before);
}

}  // namespace
}  // namespace vm
}  // namespace mlc
