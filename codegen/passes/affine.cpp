#include "codegen/passes/affine.h"

#include "dsl/expr_substitute.h"

namespace cusched {

std::optional<IndexRange> index_range(const Expr& e, const std::map<std::string, int64_t>& sweep) {
  // Non-affine subterms (a division or modulus of a fused loop, say) that no sweeping
  // variable reaches are fixed values while the sweep runs: symbols of the minimum.
  auto a = linear_form(e);
  if (!a) a = linear_form(e, true);
  if (!a) return std::nullopt;
  for (const auto& [key, atom] : a->atoms)
    for (const auto& [v, extent] : sweep)
      if (a->coeff.count(key) && a->coeff.at(key) != 0 && mentions_var(atom, v)) return std::nullopt;
  IndexRange r;
  LinearForm fixed;
  fixed.constant = a->constant;
  fixed.atoms = a->atoms;
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
