// The tile that tensor_core takes from a stage's loop nest (both mma.sync and wgmma):
// the three innermost loops, the two factors of the product, the loops that pick a
// warp's tile, and the fragment operands with their tail guards.
#include "dsl/primitives/tensor_core_tile.h"

#include <set>

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

// A fragment element: its lowered value with the tail guard that zeroes it (guards
// that mention `skip`, the other tile loop, do not apply).
Expr KernelBuilder::tile_operand(const Ctx& c, const Expr& factor, const std::map<std::string, Expr>& at,
                                 const std::string& skip, const Env& env, const Env& caches, bool round_operands) {
  std::vector<Expr> conds;
  for (const auto& g : c.nest.guards)
    if (!mentions_var(g, skip)) conds.push_back(substitute(g, at));
  Expr v = lower_value(substitute(factor, at), env, caches, c.s, round_operands);
  Expr cond = conjunction(conds);
  return cond.defined() ? select(cond, v, make_float(0.0)) : v;
}

}  // namespace cusched::lowering
