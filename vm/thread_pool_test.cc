/*! \file thread_pool_test.cc
 *  \brief The pool's split of a parallel loop: every iteration exactly once, whatever n, each
 *         thread starts its own range at every launch, the ranges as even as n allows, a thread
 *         held up in its range has its end taken by the others, and descending launches keep
 *         each thread's iterations, last to first.
 */
#include "vm/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
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

// 64 iterations on 2 threads: [0, 32) is the caller's range and [32, 64) the worker's, run in
// units of 4. The caller's first 16 iterations sleep 5 ms each, so the worker, done with its own
// range long before, takes units from the back of the caller's: the caller runs fewer than the
// 32 iterations a static split would have given it, and at least its first unit.
TEST(ThreadPool, AThreadHeldUpInItsRangeHasItsEndTakenByTheOthers) {
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
  EXPECT_GE(by_caller, 4);  // its first unit
  EXPECT_EQ(r.by[0], caller);
  EXPECT_LT(by_caller, 32) << "the worker should have taken the end of the caller's range while it slept";
  EXPECT_NE(r.by[31], caller);
}

// What a kernel writes, the next reads on the same core: every launch of a loop, of any length,
// starts each thread at the front of its own range (iteration 0 on the caller, n / 2 on the
// worker), however the threads' speeds left the end of the last launch. The iterations take
// 1 ms each, so neither thread finishes its range before the other has started.
TEST(ThreadPool, EveryLaunchStartsEachThreadAtItsOwnRange) {
  ThreadPool pool(2);
  const std::thread::id caller = std::this_thread::get_id();
  for (int64_t n : {32, 64, 96, 128}) {
    Recorder r(n);
    r.slow_below = n;
    r.slow_for = std::chrono::milliseconds(1);
    pool.Run(Body, &r, n);
    EXPECT_EQ(r.by[0], caller) << n << " iterations";
    EXPECT_NE(r.by[n / 2], caller) << n << " iterations: the worker's range starts at " << n / 2;
  }
}

/*! \brief The first chunk each thread ran. */
struct FirstChunks {
  std::mutex mu;
  std::map<std::thread::id, std::pair<int64_t, int64_t>> first;
};

void RecordFirstChunk(void* closure, int64_t begin, int64_t end) {
  auto* r = static_cast<FirstChunks*>(closure);
  std::lock_guard<std::mutex> lock(r->mu);
  r->first.insert({std::this_thread::get_id(), {begin, end}});
}

// The iterations split evenly between the threads before each range is cut into eighths: 182
// iterations (13 channel blocks x 14 rows) give the worker [91, 182) in units of 12, so its
// first chunk is [91, 103) (cut into units of the whole loop first, it was [99, 110), and the
// caller's range 99 iterations to the worker's 83).
TEST(ThreadPool, EachThreadsRangeIsAsEvenAsTheIterationsAllow) {
  ThreadPool pool(2);
  const std::thread::id caller = std::this_thread::get_id();
  for (int64_t n : {182, 100, 33}) {
    FirstChunks r;
    pool.Run(RecordFirstChunk, &r, n);
    const int64_t half = (n + 1) / 2, unit = (n / 2 + 7) / 8;
    ASSERT_EQ(r.first.size(), 2u) << n << " iterations";
    for (const auto& [thread, chunk] : r.first) {
      if (thread == caller) {
        EXPECT_EQ(chunk, std::make_pair(int64_t{0}, (half + 7) / 8)) << n << " iterations, the caller";
      } else {
        EXPECT_EQ(chunk, std::make_pair(half, half + unit)) << n << " iterations, the worker";
      }
    }
  }
}

/*! \brief The order in which one thread ran iterations, per thread. */
struct OrderRecorder {
  std::mutex mu;
  std::map<std::thread::id, std::vector<int64_t>> order;
};

void RecordOrder(void* closure, int64_t begin, int64_t end) {
  auto* r = static_cast<OrderRecorder*>(closure);
  std::lock_guard<std::mutex> lock(r->mu);
  for (int64_t i = begin; i < end; ++i) r->order[std::this_thread::get_id()].push_back(i);
}

// Under DescendingLaunches a single thread runs [0, n) last to first, and on two threads each
// runs the iterations an ascending launch gives it (static ranges: 10 iterations, fewer than
// 16 per thread), last to first. Every iteration still runs once, with units taken between
// the threads too.
TEST(ThreadPool, DescendingLaunchesRunEachThreadsIterationsLastToFirst) {
  {
    ThreadPool pool(1);
    OrderRecorder r;
    {
      ThreadPool::DescendingLaunches descending(true);
      pool.Run(RecordOrder, &r, 5);
    }
    EXPECT_EQ(r.order.begin()->second, (std::vector<int64_t>{4, 3, 2, 1, 0}));
    OrderRecorder after;
    pool.Run(RecordOrder, &after, 3);  // the scope has ended: ascending again
    EXPECT_EQ(after.order.begin()->second, (std::vector<int64_t>{0, 1, 2}));
  }
  ThreadPool pool(2);
  OrderRecorder up, down;
  pool.Run(RecordOrder, &up, 10);
  {
    ThreadPool::DescendingLaunches descending(true);
    pool.Run(RecordOrder, &down, 10);
  }
  for (auto& [thread, order] : down.order) {
    ASSERT_TRUE(std::is_sorted(order.rbegin(), order.rend())) << "not last to first";
    std::vector<int64_t> ascending(order.rbegin(), order.rend());
    // The same iterations as the ascending launch gave the thread that ran the lowest of them.
    std::vector<int64_t> same;
    for (auto& [t, o] : up.order) {
      if (std::find(o.begin(), o.end(), ascending.front()) != o.end()) same = o;
    }
    EXPECT_EQ(ascending, same);
  }
  for (const int64_t n : {7, 64, 1001}) {
    Recorder r(n);
    ThreadPool::DescendingLaunches descending(true);
    pool.Run(Body, &r, n);
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(r.runs[i].load(), 1) << "iteration " << i << " of " << n;
  }
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

// Under SerialLaunches the caller runs every iteration, even of a loop whose iterations sleep
// (which the worker would otherwise take part in); once the guard ends, both threads run again.
TEST(ThreadPool, SerialLaunchesRunOnTheCallingThreadAlone) {
  ThreadPool pool(2);
  {
    ThreadPool::SerialLaunches one_thread(true);
    Recorder r(64);
    r.slow_below = 64;
    r.slow_for = std::chrono::milliseconds(1);
    const int64_t chunks_before = pool.worker_chunks();
    pool.Run(Body, &r, 64);
    EXPECT_EQ(pool.worker_chunks(), chunks_before);
    for (int64_t i = 0; i < 64; ++i) EXPECT_EQ(r.by[i], std::this_thread::get_id()) << "iteration " << i;
  }
  Recorder r(64);
  r.slow_below = 64;
  r.slow_for = std::chrono::milliseconds(1);
  pool.Run(Body, &r, 64);
  std::set<std::thread::id> threads(r.by.begin(), r.by.end());
  EXPECT_EQ(threads.size(), 2u);
}

}  // namespace
}  // namespace vm
}  // namespace mlc
