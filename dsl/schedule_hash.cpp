// schedule_hash (declared in dsl/schedule.h) on its own, so that code which keys on
// schedules (the search store) links it without the schedule language.
#include "dsl/fnv_hash.h"
#include "dsl/schedule.h"

namespace cusched {

std::string schedule_hash(const nlohmann::json& steps) { return fnv1a_hex(steps.dump(), kScheduleHashBasis); }

}  // namespace cusched
