#pragma once
// Reviews of candidates: a person approves or rejects one with a note. Stored with
// the reviewer and the time (search/engineer_tables.h); a candidate's standing is its
// latest review. `cusched export --require-approved` exports only approved ones.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "search/store.h"

namespace cusched::search {

struct Review {
  int64_t id = 0, candidate = 0;
  bool approved = false;
  std::string note, reviewer, created;  // created: UTC, filled by the store
  nlohmann::json to_json() const;
};

int64_t add_review(Store& store, const Review& review);
// Every review of the run's candidates, oldest first.
std::vector<Review> reviews_of_run(const Store& store, int64_t run);
std::optional<Review> latest_review(const Store& store, int64_t candidate);

}  // namespace cusched::search
