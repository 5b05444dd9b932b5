/*! \file thread_choice.h
 *  \brief Whether a function's runs use the thread pool or the calling thread alone, decided
 *         by timing both on this machine.
 *
 *  More threads are not always faster. On a 2-vCPU virtual machine whose two vCPUs sit on
 *  distant cores (a Zen 5 host in its "far" state: round trips between the cores of 420-490 ns
 *  against 100-120), every kernel reads what the other core wrote one latency at a time, and a
 *  small network of many short layers runs slower on two threads than on one (ShuffleNetV2:
 *  2.41 ms on one thread, 2.66 on two; ONNX Runtime 2.88 and 3.02). The state is the host's, not
 *  the model's, and can change while a process runs. So a function's runs are timed both ways
 *  (after a first run that warms caches and memory), and the one thread is chosen only where
 *  its fastest run beats the pool's fastest by a margin; the choice is measured again every
 *  kReprobeEvery runs (and afresh by the VM when the pool's size changes). Results do not
 *  depend on it: a parallel loop's iterations compute the same values on any thread.
 */
#ifndef MLC_VM_THREAD_CHOICE_H_
#define MLC_VM_THREAD_CHOICE_H_

#include <cstdint>

namespace mlc {
namespace vm {

class ThreadChoice {
 public:
  /*! \brief Runs per side in a probe: the pool's, then one thread's, each side's first one
   *  untimed. Alternating run by run, each run started with the data where the other way left
   *  it (half of it in the other core's cache after a pool run): ShuffleNetV2 on one thread then
   *  looked as slow as on two, while run after run it was 15% faster. */
  static constexpr int kProbeRunsPerSide = 4;
  /*! \brief Runs between the end of one probe and the start of the next. */
  static constexpr int64_t kReprobeEvery = 500;
  /*! \brief One thread is chosen only when its fastest run takes at most this share of the
   *  pool's fastest: the pool is the default, and a near tie is noise. */
  static constexpr double kMargin = 0.92;

  /*! \brief Whether the next run should use one thread. */
  bool NextRunSerial() const;
  /*! \brief Records the run just made (as NextRunSerial said) and how long it took. */
  void Record(bool serial, double seconds);
  /*! \brief Whether one thread is the current choice (false until a probe chose it). */
  bool serial_chosen() const { return serial_chosen_; }
  /*! \brief The last finished probe's fastest timed run of each side, in seconds (0 before). */
  double pool_seconds() const { return pool_seconds_; }
  double serial_seconds() const { return serial_seconds_; }
  /*! \brief Whether a probe is under way. */
  bool probing() const { return probe_runs_ < 2 * kProbeRunsPerSide; }

 private:
  int64_t runs_ = 0;                              // runs recorded, the warm-up run included
  int probe_runs_ = 0;                            // runs of the current probe; 2 * kProbeRunsPerSide: done
  int64_t since_probe_ = 0;                       // runs since the last probe ended
  double best_pool_ = 0, best_serial_ = 0;        // of the probe under way
  double pool_seconds_ = 0, serial_seconds_ = 0;  // of the last finished one
  bool serial_chosen_ = false;
};

}  // namespace vm
}  // namespace mlc

#endif  // MLC_VM_THREAD_CHOICE_H_
