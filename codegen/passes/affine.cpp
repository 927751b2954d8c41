#include "codegen/passes/affine.h"

namespace cusched {

std::optional<IndexRange> index_range(const Expr& e, const std::map<std::string, int64_t>& sweep) {
  auto a = linear_form(e);
  if (!a) return std::nullopt;
  IndexRange r;
  LinearForm fixed;
  fixed.constant = a->constant;
  int64_t span = 0;
  for (const auto& [v, c] : a->coeff) {
    auto it = sweep.find(v);
    if (it == sweep.end()) {
      if (c) fixed.coeff[v] = c;
      continue;
    }
    int64_t hi = c * (it->second - 1);
    if (hi < 0) fixed.constant += hi;  // negative coefficient: the minimum is at the top
    span += hi < 0 ? -hi : hi;
  }
  r.min_form = fixed;
  r.min = fixed.to_expr();
  r.extent = span + 1;
  return r;
}

}  // namespace cusched
