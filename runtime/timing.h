#pragma once
// Device-event timing of launch sequences on one stream, with the L2 cache
// flushed before each timed run, and the measured copy bandwidth.
#include <functional>
#include <vector>

#include "runtime/evaluation.h"
#include "runtime/gpu_context.h"
#include "runtime/performance_floor.h"

namespace cusched::runtime {

// The device's memory rates, measured once per process and device, then reused, on
// 512 MiB buffers after about 50 ms of copying (so that clocks have ramped up):
// copy = bytes read plus written per second, the best of 10 runs each of
// cuMemcpyDtoDAsync and of a 16-byte grid-stride copy kernel; read = bytes read per
// second by a 16-byte grid-stride read-only kernel, the best of 10 runs.
MemoryBandwidth memory_bandwidth(const GpuContext& ctx);

// Runs `enqueue` config.warmup times, then config.repeats times between two
// events, each preceded (outside the events) by a write of 2x the L2 size when
// config.flush_l2. Returns the milliseconds of each timed run. `progress`, if
// set, is called after each run.
std::vector<double> time_launch_sequence(const GpuContext& ctx, const std::function<void()>& enqueue,
                                         const TimingConfig& config, double watchdog_s,
                                         const std::function<void()>& progress = {});

// What one run of a timed series does besides the timed launches: `prepare(run)`
// before the L2 flush (outside the events; runs count warm-ups first), `enqueue(run)`
// between the events, and `check(run)` after each timed run has finished, whose
// false ends the series there.
struct TimedRunHooks {
  std::function<void(int run)> prepare;
  std::function<void(int run)> enqueue;
  std::function<bool(int run)> check;
};

// As time_launch_sequence, with the hooks; returns the times of the runs that ran: one
// only when config.cut_ms > 0 and the first timed run took longer.
std::vector<double> time_runs(const GpuContext& ctx, const TimedRunHooks& hooks, const TimingConfig& config,
                              double watchdog_s, const std::function<void()>& progress = {});

}  // namespace cusched::runtime
