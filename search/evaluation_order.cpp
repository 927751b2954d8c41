#include "search/evaluation_order.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <set>

#include "dsl/primitives/precision_rules.h"

namespace cusched::search {

std::vector<size_t> evaluation_order(const std::vector<double>& estimates, const std::vector<int64_t>& ideas,
                                     double window, const std::vector<Precision>& precisions) {
  const size_t n = estimates.size();
  auto key = [&](size_t i) {
    const double e = estimates[i];
    return e > 0 && std::isfinite(e) ? e : std::numeric_limits<double>::infinity();
  };
  std::vector<size_t> sorted(n);
  std::iota(sorted.begin(), sorted.end(), size_t{0});
  std::stable_sort(sorted.begin(), sorted.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
  std::vector<size_t> order;
  if (n == 0) return order;
  const double cheapest = key(sorted.front());
  auto promising = [&](size_t i) { return std::isfinite(key(i)) && key(i) <= window * cheapest; };
  std::vector<char> taken(n, 0);
  // The cheapest promising candidate not yet taken of each group that `group_of` names.
  auto take_cheapest_of_each = [&](const auto& group_of) {
    std::set<int64_t> seen;
    for (size_t i : sorted)
      if (promising(i) && !taken[i] && seen.insert(group_of(i)).second) {
        order.push_back(i);
        taken[i] = 1;
      }
  };
  if (precisions.size() == n) take_cheapest_of_each([&](size_t i) { return static_cast<int64_t>(precisions[i]); });
  take_cheapest_of_each([&](size_t i) { return ideas[i]; });
  for (size_t i : sorted)
    if (!taken[i]) order.push_back(i);
  return order;
}

std::vector<size_t> preparation_order(const std::vector<int64_t>& ideas) {
  std::vector<int64_t> firsts;                     // the ideas in the order of their first candidate
  std::map<int64_t, std::vector<size_t>> members;  // each idea's candidates in their order
  for (size_t i = 0; i < ideas.size(); ++i) {
    if (members[ideas[i]].empty()) firsts.push_back(ideas[i]);
    members[ideas[i]].push_back(i);
  }
  std::vector<size_t> order;
  for (size_t turn = 0; order.size() < ideas.size(); ++turn)
    for (int64_t idea : firsts)
      if (turn < members[idea].size()) order.push_back(members[idea][turn]);
  return order;
}

void defer_failed_precisions(std::vector<size_t>& order, size_t from, const std::vector<Precision>& precision_of,
                             const std::set<Precision>& failed) {
  auto deferred = [&](size_t i) {
    const Precision p = precision_of[i];
    return failed.count(p) && coarser_than_x3tf32(p);
  };
  if (from >= order.size()) return;
  std::stable_partition(order.begin() + static_cast<std::ptrdiff_t>(from), order.end(),
                        [&](size_t i) { return !deferred(i); });
}

}  // namespace cusched::search
