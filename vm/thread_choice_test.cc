#include "vm/thread_choice.h"

#include "gtest/gtest.h"

namespace mlc {
namespace vm {
namespace {

/*! \brief Makes `runs` runs as the choice says, each taking pool_seconds or serial_seconds;
 *  returns how many of them ran on one thread. */
int Simulate(ThreadChoice* choice, int64_t runs, double pool_seconds, double serial_seconds) {
  int serial_runs = 0;
  for (int64_t r = 0; r < runs; ++r) {
    const bool serial = choice->NextRunSerial();
    serial_runs += serial;
    choice->Record(serial, serial ? serial_seconds : pool_seconds);
  }
  return serial_runs;
}

constexpr int kProbe = 2 * ThreadChoice::kProbeRunsPerSide;

TEST(ThreadChoice, TheFirstRunUsesThePoolAndIsNotTimed) {
  ThreadChoice choice;
  EXPECT_FALSE(choice.NextRunSerial());
  choice.Record(false, 100.0);  // cold: page faults, first touches
  // The probe: the pool's runs, then one thread's; the pool's 1 s beats one thread's 2 s
  // although the warm-up run took 100 s.
  for (int r = 0; r < kProbe; ++r) {
    EXPECT_TRUE(choice.probing());
    const bool serial = choice.NextRunSerial();
    EXPECT_EQ(serial, r >= ThreadChoice::kProbeRunsPerSide) << "probe run " << r;
    choice.Record(serial, serial ? 2.0 : 1.0);
  }
  EXPECT_FALSE(choice.probing());
  EXPECT_FALSE(choice.serial_chosen());
  EXPECT_EQ(Simulate(&choice, 50, 1.0, 2.0), 0);
}

TEST(ThreadChoice, EachSidesFirstRunIsNotTimed) {
  // Each side's first run finds the data where the other way left it; a fast first run on one
  // thread (0.1 s) does not count, its later runs (1.5 s) lose to the pool's 1 s.
  ThreadChoice choice;
  choice.Record(false, 1.0);
  for (int r = 0; r < kProbe; ++r) {
    const bool serial = choice.NextRunSerial();
    choice.Record(serial, !serial ? 1.0 : r == ThreadChoice::kProbeRunsPerSide ? 0.1 : 1.5);
  }
  EXPECT_FALSE(choice.serial_chosen());
}

TEST(ThreadChoice, OneThreadIsChosenOnlyWhenFasterByTheMargin) {
  ThreadChoice faster;
  Simulate(&faster, 1 + kProbe, 1.0, 0.8);
  EXPECT_TRUE(faster.serial_chosen());
  EXPECT_EQ(Simulate(&faster, 50, 1.0, 0.8), 50);

  ThreadChoice near_tie;  // 5% faster on one thread: within the margin, the pool stays
  Simulate(&near_tie, 1 + kProbe, 1.0, 0.95);
  EXPECT_FALSE(near_tie.serial_chosen());
  EXPECT_EQ(Simulate(&near_tie, 50, 1.0, 0.95), 0);
}

TEST(ThreadChoice, TheFastestRunOfEachSideDecides) {
  // The probe's first pool run is slow (the machine busy for a moment): one thread's 1.5 s
  // beats that 5 s but not the pool's other runs, 1 s each.
  ThreadChoice choice;
  choice.Record(false, 100.0);
  for (int r = 0; r < kProbe; ++r) {
    const bool serial = choice.NextRunSerial();
    choice.Record(serial, serial ? 1.5 : r == 1 ? 5.0 : 1.0);
  }
  EXPECT_FALSE(choice.serial_chosen());
}

TEST(ThreadChoice, TheChoiceIsMeasuredAgainAfterEnoughRuns) {
  // The host moves its vCPUs apart (one thread faster), then back (the pool faster).
  ThreadChoice choice;
  Simulate(&choice, 1 + kProbe, 1.0, 0.7);
  ASSERT_TRUE(choice.serial_chosen());
  EXPECT_EQ(Simulate(&choice, ThreadChoice::kReprobeEvery - 1, 0.5, 0.7), ThreadChoice::kReprobeEvery - 1);
  Simulate(&choice, 1 + kProbe, 0.5, 0.7);
  EXPECT_FALSE(choice.serial_chosen());
  EXPECT_EQ(Simulate(&choice, 50, 0.5, 0.7), 0);
}

}  // namespace
}  // namespace vm
}  // namespace mlc
