/*! \file storage_pool_test.cc
 *  \brief The storage pool: a released block serves the next request of its size, the most
 *         recently released first; blocks of fixed sizes wait for as long as the pool lives;
 *         blocks of symbolic sizes wait one run and then go back to the system, so a stream of
 *         new sizes holds the last run's blocks between runs, not a block per size ever served.
 */
#include "vm/storage_pool.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace mlc {
namespace vm {
namespace {

using Reuse = StoragePool::Reuse;

TEST(StoragePool, AReleasedBlockServesTheNextRequestOfItsSizeNewestFirst) {
  StoragePool pool;
  void* a = pool.Allocate(1000);
  void* b = pool.Allocate(1000);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  pool.Release(a, 1000, Reuse::kAlways);
  pool.Release(b, 1000, Reuse::kAlways);
  EXPECT_EQ(pool.Allocate(990), b) << "990 bytes round up to the same 1024: the last released block";
  EXPECT_EQ(pool.Allocate(1000), a);
  void* c = pool.Allocate(2000);
  EXPECT_NE(c, a);
  EXPECT_EQ(pool.reused(), 2u);
  EXPECT_EQ(pool.allocated(), 3u);
  EXPECT_EQ(pool.held_bytes(), 1024u + 1024u + 2048u);
  EXPECT_EQ(pool.peak_live_bytes(), 1024u + 1024u + 2048u);
  pool.Release(a, 1000, Reuse::kAlways);
  pool.Release(b, 1000, Reuse::kAlways);
  pool.Release(c, 2000, Reuse::kAlways);
}

TEST(StoragePool, FixedSizesWaitForeverSymbolicSizesOneRun) {
  StoragePool pool;
  void* fixed = pool.Allocate(4096);
  void* symbolic = pool.Allocate(8192);
  pool.Release(fixed, 4096, Reuse::kAlways);
  pool.Release(symbolic, 8192, Reuse::kNextRun);
  pool.EndRun();  // the run that released them: both wait
  EXPECT_EQ(pool.cached_blocks(), 2u);
  EXPECT_EQ(pool.held_bytes(), 4096u + 8192u);
  pool.EndRun();  // a run that asked for neither: the symbolic one goes
  EXPECT_EQ(pool.cached_blocks(), 1u);
  EXPECT_EQ(pool.held_bytes(), 4096u);
  for (int run = 0; run < 5; ++run) pool.EndRun();
  EXPECT_EQ(pool.Allocate(4096), fixed) << "a fixed size waits however many runs pass";
  pool.Release(fixed, 4096, Reuse::kAlways);
}

TEST(StoragePool, ASymbolicSizeAskedForEveryRunIsReusedEveryRun) {
  StoragePool pool;
  void* block = pool.Allocate(8192);
  pool.Release(block, 8192, Reuse::kNextRun);
  pool.EndRun();
  for (int run = 0; run < 5; ++run) {
    void* again = pool.Allocate(8192);
    EXPECT_EQ(again, block) << "run " << run;
    pool.Release(again, 8192, Reuse::kNextRun);
    pool.EndRun();
  }
  EXPECT_EQ(pool.allocated(), 1u);
}

TEST(StoragePool, AStreamOfNewSymbolicSizesHoldsOnlyTheLastRunsBlocks) {
  StoragePool pool;
  for (size_t n = 1; n <= 100; ++n) {
    // One run: two intermediates of this run's length, alive one after the other.
    for (size_t tensor = 0; tensor < 2; ++tensor) {
      void* p = pool.Allocate(n * 640 + tensor * 64);
      ASSERT_NE(p, nullptr);
      pool.Release(p, n * 640 + tensor * 64, Reuse::kNextRun);
    }
    pool.EndRun();
    EXPECT_EQ(pool.held_bytes(), 2 * n * 640 + 64) << "after run " << n << ": the previous run's blocks went";
  }
  EXPECT_EQ(pool.allocated(), 200u) << "every size was new";
}

}  // namespace
}  // namespace vm
}  // namespace mlc
