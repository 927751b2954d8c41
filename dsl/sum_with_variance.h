#pragma once
// A sum computed with a variance (sum_with_variance): a sum stage and a variance stage
// over the same values (the same pure domain, the same reduction domain, the same body)
// take one pass over them. The variance's Welford accumulators carry the mean and the
// count, so its kernel also stores the sum (mean x count), and the sum stage has no kernel
// of its own. The conditions are the primitive's and the legality rule's.
#include <optional>
#include <string>

#include "dsl/error.h"
#include "dsl/schedule_state.h"

namespace cusched {

// Why `sum` cannot be stored by `variance`'s kernel, or nullopt when it can: `sum` a sum
// reduction and `variance` a variance reduction of the same body over the same pure and
// reduction extents (variables matched by position), both computed at root, the
// variance's values stored in global memory (no shared output tile), and, with
// `kernel_order`, every kernel that reads the sum (through inlined and computed-at
// stages) built after the variance's (a condition of the final state: a later step that
// inlines a reader can meet it).
std::optional<Refusal> sum_with_variance_refusal(const ScheduleState& st, const std::string& sum,
                                                 const std::string& variance, bool kernel_order);

// The variance stage that `sum` could be stored by (the first stage in order for which
// sum_with_variance_refusal's structural conditions hold), "" when none.
std::string variance_partner(const ScheduleState& st, const std::string& sum);

}  // namespace cusched
