// The tile that tensor_core takes from a stage's loop nest (both mma.sync and wgmma):
// the three innermost loops, the two factors of the product, the loops that pick a
// warp's tile, and the fragment operands with their tail guards.
#include "dsl/primitives/tensor_core_tile.h"

#include <algorithm>
#include <set>

#include "codegen/expr_loads.h"
#include "codegen/lowering/kernel_builder.h"
#include "dsl/error.h"
#include "dsl/expr_substitute.h"

namespace cusched::lowering {

TensorCoreTile KernelBuilder::tensor_core_tile(const Ctx& c) const {
  const auto& loops = c.nest.loops;
  const std::string& stage = c.f.name;
  TensorCoreTile T;
  T.nl = static_cast<int>(loops.size());
  T.r0 = first_reduction(c);
  const int nl = T.nl, r0 = T.r0;
  std::vector<int> pure;
  for (int q = 0; q < nl; ++q) (loops[q].info.reduction ? T.red : pure).push_back(q);
  T.qm = pure[pure.size() - 2];
  T.qn = pure.back();
  T.qk = T.red.back();
  const int qm = T.qm, qn = T.qn, qk = T.qk;
  T.M = loops[qm].info.extent;
  T.N = loops[qn].info.extent;
  T.K = loops[qk].info.extent;
  require_lowerable_tensor_core_tile(stage, c.s.tensor_core_shape, T.M, T.N, r0 < nl - 3);
  // The two factors of the product: A varies with m, B with n.
  Expr prod = c.body;
  while (prod->op == ExprOp::Cast) prod = prod->args[0];
  T.mv = loops[qm].var;
  T.nv = loops[qn].var;
  T.kv = loops[qk].var;
  T.fa = prod->args[0];
  T.fb = prod->args[1];
  if (mentions_var(T.fb, T.mv)) std::swap(T.fa, T.fb);
  if (mentions_var(T.fb, T.mv) || mentions_var(T.fa, T.nv))
    fail("tensor-core-not-matmul",
         "In stage '" + stage + "', a factor of the product depends on both tile loops '" + loops[qm].info.name +
             "' and '" + loops[qn].info.name + "'.",
         "Use tensor_core on C(i, j) = sum(k, A(i, k) * B(k, j)) with i and j the tile's loops.");
  // Tails of non-dividing splits: a lane's operand outside the domain is zero, and
  // its accumulators there are not written out.
  for (const auto& g : c.nest.guards)
    if (mentions_var(g, T.mv) && mentions_var(g, T.nv))
      fail("tensor-core-not-matmul",
           "Stage '" + stage + "' has a bound that couples its tile loops '" + loops[qm].info.name + "' and '" +
               loops[qn].info.name + "'.",
           "Do not fuse the tile's row and column loops.");
  for (int q = r0; q < nl - 3; ++q)
    if (!loops[q].info.reduction) T.warp_loops.push_back(&loops[q]);
  return T;
}

// `leaf` inside the thread loops that pick a warp's (warpgroup's) tile.
Stmt KernelBuilder::over_warps(const TensorCoreTile& T, Stmt leaf) {
  for (auto it = T.warp_loops.rbegin(); it != T.warp_loops.rend(); ++it) leaf = make_loop(**it, leaf, false);
  return leaf;
}

// A fragment element: its lowered value and the tail guard that zeroes it. Guards that
// mention `skip` (the other tile loop) do not apply. Those of the operand's own tail
// (`own`: A's rows, B's columns) only zero elements whose products reach accumulator
// elements that are never stored; where every load of the value reads a shared copy that
// spans its loops' tails, those elements are defined and the guards are left out. Guards
// of the k tail stay: their products reach stored elements.
TileOperand KernelBuilder::tile_operand(const Ctx& c, const Expr& factor, const std::map<std::string, Expr>& at,
                                        const std::string& skip, const std::string& own, const std::string& kv,
                                        const Env& env, const Env& caches, bool round_operands) {
  Expr value = lower_value(substitute(factor, at), env, caches, c.s, round_operands);
  const auto loads = loads_in(value);
  const bool whole = !loads.empty() && std::all_of(loads.begin(), loads.end(), [&](const ExprNode* l) {
    return std::any_of(caches.begin(), caches.end(),
                       [&](const auto& copy) { return copy.second.buffer == l->name && copy.second.spans_loop_tails; });
  });
  std::vector<Expr> conds;
  for (const auto& g : c.nest.guards)
    if (!mentions_var(g, skip) && !(whole && mentions_var(g, own) && !mentions_var(g, kv)))
      conds.push_back(substitute(g, at));
  return {value, conjunction(conds)};
}

}  // namespace cusched::lowering
