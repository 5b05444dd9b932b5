/*! \file progress_test.cc
 *  \brief Progress lines: nothing for short work, then updates no more often than the interval,
 *         the last count and a newline at the end; counts from several threads all arrive.
 */
#include "support/progress.h"

#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace mlc {
namespace {

struct FakeSink {
  std::vector<std::string> lines;
  double now = 100;
  Progress::Sink sink() {
    return {[this](const std::string& s) { lines.push_back(s); }, [this] { return now; }, /*in_place=*/false};
  }
};

TEST(Progress, WorkDoneWithinTheDelayShowsNothing) {
  FakeSink fake;
  {
    Progress p("opt: passes", 3, fake.sink());
    for (int i = 0; i < 3; ++i) {
      fake.now += 0.5;
      p.Advance(1, "fuse-ops");
    }
  }
  EXPECT_TRUE(fake.lines.empty());
}

TEST(Progress, LongWorkShowsCountsAtMostTenTimesASecondThenTheEnd) {
  FakeSink fake;
  {
    Progress p("build: compiling kernels", 96, fake.sink());
    for (int i = 0; i < 96; ++i) {
      fake.now += 0.0625;  // 6 s in all (steps exact in binary): shown from 2 s on
      p.Advance();
    }
  }
  // From 2 s on, every second step is 0.1 s or more after the last shown: 33 updates, the last
  // of them the final count (not written twice).
  ASSERT_EQ(fake.lines.size(), 33u);
  EXPECT_EQ(fake.lines.front(), "build: compiling kernels 32/96, 2.0 s\n");
  EXPECT_EQ(fake.lines[1], "build: compiling kernels 34/96, 2.1 s\n");
  EXPECT_EQ(fake.lines.back(), "build: compiling kernels 96/96, 6.0 s\n");
}

TEST(Progress, InPlaceLinesRewriteOneLine) {
  FakeSink fake;
  Progress::Sink sink = fake.sink();
  sink.in_place = true;
  {
    Progress p("tune", 2, sink);
    fake.now += 3;
    p.Advance(1, "conv2d");
  }
  ASSERT_EQ(fake.lines.size(), 2u);
  EXPECT_EQ(fake.lines[0].substr(0, 21), "\rtune 1/2 conv2d, 3.0");
  EXPECT_EQ(fake.lines[0].size(), 80u);  // padded to cover a longer line before it
  EXPECT_EQ(fake.lines[1], "\rtune 1/2 conv2d, 3.0 s\n");
}

TEST(Progress, CountsFromManyThreadsAllArrive) {
  FakeSink fake;
  fake.now = 1000;
  {
    Progress p("work", 4000, fake.sink());
    fake.now += 10;  // shown at once; the clock stands still, so only the first update prints
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&p] {
        for (int i = 0; i < 1000; ++i) p.Advance();
      });
    }
    for (std::thread& t : threads) t.join();
  }
  ASSERT_EQ(fake.lines.size(), 2u);  // the first count, and the last at the end
  EXPECT_EQ(fake.lines.back(), "work 4000/4000, 10.0 s\n");
}

}  // namespace
}  // namespace mlc
