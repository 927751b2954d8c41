// The region of a tensor that a body reads while some loops sweep: what a producer
// computed at a loop (compute_at) and a staged copy (cache_read) hold.
#include <algorithm>

#include "codegen/expr_loads.h"
#include "codegen/lowering/kernel_builder.h"
#include "codegen/passes/affine.h"
#include "dsl/error.h"
#include "dsl/expr_substitute.h"
#include "dsl/padded_load.h"

namespace cusched::lowering {

// The region of `name` that `body` reads while the loops in `sweep` run. A dimension
// whose region would reach the tensor's extent is the whole dimension, unless
// `whole_tile` asks for the loops' full range (tails beyond the tensor included) or
// `body` reads `name` through padded loads (the range read, padding included).
// `spans_loops`, where given, tells whether every dimension took the loops' full range.
bool KernelBuilder::region_of(const Expr& body, const std::string& name, const std::map<std::string, Expr>& orig,
                              const std::map<std::string, int64_t>& sweep, const std::vector<int64_t>& full,
                              std::vector<Expr>& min, std::vector<int64_t>& extent, bool whole_tile,
                              bool* spans_loops) {
  std::vector<std::vector<Expr>> loads;  // the index tuples with which `body` loads `name`
  bool padded = false;                   // some of them may leave the source (padded loads)
  for (const ExprNode* l : loads_in(body))
    if (l->name == name) {
      loads.push_back(l->args);
      padded |= is_padded_load(*l);
    }
  min.assign(full.size(), make_int(0));
  extent = full;
  if (spans_loops) *spans_loops = false;
  if (loads.empty()) return false;
  bool spans = true;
  for (size_t d = 0; d < full.size(); ++d) {
    std::optional<LinearForm> lo;
    int64_t hi_off = 0;
    bool ok = true;
    for (const auto& args : loads) {
      auto r = index_range(substitute(args[d], orig), sweep);
      if (!r) {
        ok = false;
        break;
      }
      if (!lo) {
        lo = r->min_form;
        hi_off = r->extent - 1;
        continue;
      }
      // Union: the mins must differ by a constant.
      LinearForm diff = r->min_form;
      for (const auto& [v, c] : lo->coeff) diff.coeff[v] -= c;
      diff.constant -= lo->constant;
      bool constant = true;
      for (const auto& [v, c] : diff.coeff) constant &= c == 0;
      if (!constant) {
        ok = false;
        break;
      }
      int64_t shift = diff.constant;
      int64_t new_hi = std::max(hi_off, shift + r->extent - 1);
      if (shift < 0) {
        lo->constant += shift;
        new_hi -= shift;
        hi_off -= shift;
      }
      hi_off = std::max(hi_off, new_hi);
    }
    spans = spans && ok && (whole_tile || padded);
    if (ok && (hi_off + 1 < full[d] || whole_tile || padded)) {
      min[d] = lo->to_expr();
      extent[d] = hi_off + 1;
    } else if (!ok && padded) {
      fail("padded-region-unbounded",
           "'" + name + "' is read through a padded load whose index along its dimension " + std::to_string(d) +
               " has no bound the lowering can derive over the loops of its copy or producer region, so the "
               "region (padding included) is not known.",
           "Stage or compute it at an inner loop, or do not fuse the loops that index that dimension.");
    }
  }
  if (spans_loops) *spans_loops = spans;
  return true;
}

}  // namespace cusched::lowering
