#include "support/cross_core.h"

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include "gtest/gtest.h"

namespace mlc {
namespace {

cpu_set_t Allowed() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) CPU_ZERO(&allowed);
  return allowed;
}

TEST(CrossCore, MeasuresTheFirstTwoAllowedCpusOrSaysWhyNotAndNeverHangs) {
  auto start = std::chrono::steady_clock::now();
  CrossCoreLink link = MeasureCrossCoreLink();
  // Bounded even when the other CPU is busy (tests run two at a time): 0.3 s of budget, plus
  // slack for a sanitized build.
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
  cpu_set_t allowed = Allowed();
  if (CPU_COUNT(&allowed) < 2) {
    EXPECT_FALSE(link.measured);
    EXPECT_NE(link.Describe().find("fewer than two CPUs"), std::string::npos) << link.Describe();
    return;
  }
  // The probe pins threads of its own: the caller's mask is as it was.
  cpu_set_t after = Allowed();
  EXPECT_TRUE(CPU_EQUAL(&allowed, &after));
  EXPECT_NE(link.cpus[0], link.cpus[1]);
  EXPECT_TRUE(CPU_ISSET(link.cpus[0], &allowed));
  EXPECT_TRUE(CPU_ISSET(link.cpus[1], &allowed));
  if (!link.measured) {  // another process held a CPU past the budget: it must say so
    EXPECT_NE(link.Describe().find("did not answer"), std::string::npos) << link.Describe();
    return;
  }
  // A round trip crosses between two cores twice: more than a few nanoseconds, and far less than
  // a scheduler's time slice.
  EXPECT_GT(link.round_trip_ns, 5);
  EXPECT_LT(link.round_trip_ns, 100000);
  EXPECT_GT(link.read_gb_per_s, 0.1);
  EXPECT_TRUE(std::isfinite(link.read_gb_per_s));
  EXPECT_GT(link.write_over_reads_gb_per_s, 0.1);
  EXPECT_TRUE(std::isfinite(link.write_over_reads_gb_per_s));
  EXPECT_NE(link.Describe().find("writes over its reads"), std::string::npos) << link.Describe();
  EXPECT_NE(link.Describe().find("round trip"), std::string::npos) << link.Describe();
}

TEST(CrossCore, GivesUpInBoundedTimeWhenTheOtherCpuIsBusy) {
  cpu_set_t allowed = Allowed();
  if (CPU_COUNT(&allowed) < 2) GTEST_SKIP() << "needs two CPUs; this process may use " << CPU_COUNT(&allowed);
  int second = -1;
  for (int cpu = 0, found = 0; cpu < CPU_SETSIZE && found < 2; ++cpu) {
    if (CPU_ISSET(cpu, &allowed) && ++found == 2) second = cpu;
  }
  // A thread spinning on the probe's second CPU: every exchange then waits for a time slice.
  std::atomic<bool> stop{false}, spinning{false};
  std::thread busy([&] {
    cpu_set_t mask;
    CPU_ZERO(&mask);
    CPU_SET(second, &mask);
    pthread_setaffinity_np(pthread_self(), sizeof(mask), &mask);
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    spinning.store(true);
    while (!stop.load() && std::chrono::steady_clock::now() < until) {
    }
  });
  while (!spinning.load()) std::this_thread::yield();
  auto start = std::chrono::steady_clock::now();
  CrossCoreLink link = MeasureCrossCoreLink();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("with CPU %d busy: %s (%.3f s)\n", second, link.Describe().c_str(), seconds);
  stop.store(true);
  busy.join();
  EXPECT_LT(seconds, 5.0) << link.Describe();
  if (!link.measured) EXPECT_NE(link.Describe().find("did not answer"), std::string::npos) << link.Describe();
}

}  // namespace
}  // namespace mlc
