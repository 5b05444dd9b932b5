/*! \file cross_core.h
 *  \brief How fast two of this process's CPUs exchange data: the yardstick of a multi-thread
 *         measurement, as the FMA peak is of a single-thread one.
 *
 *  On the shared 2-vCPU machines the two vCPUs sometimes sit on cores that share an L3 and
 *  sometimes on cores that do not, for minutes at a time. A Zen 5 host measured both: a round
 *  trip of 130-270 ns and 98-100 GB/s reading a megabyte the other core wrote, or 450-650 ns and
 *  36-38 GB/s. Compute-bound models hardly notice (ResNet-18 on two threads: 9.3-9.7 against
 *  9.8-10.2 ms), but a model of short, memory-bound kernels whose data crosses between the
 *  threads does: MobileNetV2 on two threads ran 2.1-2.3 ms in the first state and 3.5-3.6 ms in
 *  the second. A two-thread figure is read together with this probe, taken in the same run.
 */
#ifndef MLC_SUPPORT_CROSS_CORE_H_
#define MLC_SUPPORT_CROSS_CORE_H_

#include <string>

namespace mlc {

struct CrossCoreLink {
  bool measured = false;     // false: why_not says why
  int cpus[2] = {-1, -1};    // the two CPUs (the first two of the affinity mask)
  double round_trip_ns = 0;  // a cache line written by one and answered by the other, median
  double read_gb_per_s = 0;  // one core reading 1 MB the other just wrote, best of the rounds
  // One core writing 1 MB it wrote before and the other has read since, best of the rounds:
  // each line the other holds shared needs an invalidation first (7-10 GB/s on a Zen 5 in the
  // far state, where writing lines the other core wrote ran 35 and local ones 96-192).
  double write_over_reads_gb_per_s = 0;
  std::string why_not;  // fewer than two CPUs allowed, pinning refused, or a CPU busy
  /*! \brief "cross-core (CPUs 0, 1): round trip 480 ns, reads of the other core's writes 37 GB/s,
   *  writes over its reads 8 GB/s",
   *  or why nothing was measured. */
  std::string Describe() const;
};

/*! \brief Measures the link between the first two CPUs this process may run on, with two
 *  threads pinned one to each; takes a few milliseconds, and gives up (measured false) after
 *  0.3 s when one of the CPUs is busy with other work. */
CrossCoreLink MeasureCrossCoreLink();

}  // namespace mlc

#endif  // MLC_SUPPORT_CROSS_CORE_H_
