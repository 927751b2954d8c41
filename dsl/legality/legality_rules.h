#pragma once
// What the whole-schedule legality rules share: the state, the way to refuse with the
// step that caused it, and the questions several rules ask (is a stage built, is a
// placement made inside a thread loop). One function per rule family.
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "dsl/primitive.h"
#include "dsl/schedule_state.h"

namespace cusched::legality {

struct Rules {
  const ScheduleState& st;
  const std::vector<StepJson>& steps;

  // Throws the error with `step` (and its op) and phase "schedule".
  [[noreturn]] void refuse(int step, const std::string& code, const std::string& message,
                           const std::string& hint) const;
  // Whether lowering builds the stage: computed at root, or at a loop of a built stage.
  bool built(const std::string& stage) const;
  // When the stage's loop at position `p` runs inside a thread loop (its own loops up to
  // and including p, or those around where the stage is computed): the step that put it
  // there (the later of the binding and the loop order); nullopt otherwise.
  std::optional<int> inside_thread_loop(const std::string& stage, int p) const;
};

// The latest of the steps (-1 when none is known).
int latest(std::initializer_list<int> steps);

void check_kernel_rules(const Rules& r);       // output-not-root, l2-hint-not-root, block-loop-not-outermost, raster-*
void check_placement_rules(const Rules& r);    // producers computed at a loop, shared copies in thread loops
void check_copy_rules(const Rules& r);         // staged copies with registers, pipelines and the bulk engine
void check_output_tile_rules(const Rules& r);  // cache_write scope shared
void check_tensor_core_rules(const Rules& r);  // the tensor-core tile's loops and placements
void check_scan_rules(const Rules& r);         // scan stages: root, their scanned loops innermost and in order
void check_epilogue_rules(const Rules& r);     // fuse_epilogue: what the folded stage reads, and nothing else scheduled
void check_sum_with_variance_rules(const Rules& r);  // sum_with_variance: the same values, kernel order, no own steps

}  // namespace cusched::legality
