#include "support/cross_core.h"

#include <sched.h>

#include <cmath>

#include "gtest/gtest.h"

namespace mlc {
namespace {

cpu_set_t Allowed() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) CPU_ZERO(&allowed);
  return allowed;
}

TEST(CrossCore, MeasuresTheFirstTwoAllowedCpusOrSaysWhyNot) {
  CrossCoreLink link = MeasureCrossCoreLink();
  cpu_set_t allowed = Allowed();
  if (CPU_COUNT(&allowed) < 2) {
    EXPECT_FALSE(link.measured);
    EXPECT_NE(link.Describe().find("not measured"), std::string::npos) << link.Describe();
    return;
  }
  ASSERT_TRUE(link.measured);
  EXPECT_NE(link.cpus[0], link.cpus[1]);
  EXPECT_TRUE(CPU_ISSET(link.cpus[0], &allowed));
  EXPECT_TRUE(CPU_ISSET(link.cpus[1], &allowed));
  // The probe pins threads of its own: the caller's mask is as it was.
  cpu_set_t after = Allowed();
  EXPECT_TRUE(CPU_EQUAL(&allowed, &after));
  // A round trip crosses between two cores twice: more than a few nanoseconds, and far less than
  // a scheduler's time slice (which two threads spinning on one CPU would take).
  EXPECT_GT(link.round_trip_ns, 5);
  EXPECT_LT(link.round_trip_ns, 100000);
  EXPECT_GT(link.read_gb_per_s, 0.1);
  EXPECT_TRUE(std::isfinite(link.read_gb_per_s));
  EXPECT_NE(link.Describe().find("round trip"), std::string::npos) << link.Describe();
}

}  // namespace
}  // namespace mlc
