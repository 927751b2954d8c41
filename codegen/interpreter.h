#pragma once
// The CPU interpreter of the loop IR. It runs a LoweredProgram with the GPU's
// semantics at barrier granularity: one environment per thread, shared arrays per
// block, register arrays per thread, values rounded to their types exactly as the GPU
// rounds them. It reports what a GPU would only show as a wrong answer: races on
// shared (and global) memory, barriers that not every thread reaches, reads of
// uninitialized shared or register elements, out-of-bounds accesses.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "codegen/ir.h"
#include "dsl/reference_eval.h"  // HostBuffers

namespace cusched {

struct InterpOptions {
  bool detect_races = true;           // shared-memory-race and global-memory-race
  int64_t max_steps = 2'000'000'000;  // loop iterations + stores, over all threads
};

struct InterpStats {
  int64_t blocks = 0, threads = 0, barriers = 0, allreduces = 0;
  int64_t steps = 0;  // what max_steps limits
};

// Runs every kernel of `program` in order over `buffers`. Inputs must be present and
// filled; outputs and scratch may be present (their size must match) or absent (then
// they are created, filled with NaN so that unwritten elements show). Buffers marked
// zero_before_launch are zeroed first, as the runtime does. Every store rounds to the
// buffer's dtype. Throws cusched::UserError with codes out-of-bounds,
// divergent-barrier, shared-memory-race, global-memory-race, uninitialized-read,
// interp-step-limit, async-copy-not-waited, async-copy-misaligned, bulk-copy-alignment,
// mbarrier-not-initialized, mbarrier-tx-mismatch, mbarrier-wait-not-complete (a thread
// reaches a wait whose phase has not completed: the interpreter runs threads one after
// another between barriers, so a phase must be complete when its first waiter arrives),
// and malformed-ir / unknown-buffer / ... for IR it cannot run.
InterpStats interpret(const LoweredProgram& program, HostBuffers& buffers, const InterpOptions& options = {});

}  // namespace cusched
