// A reduction's accumulators in registers, initialised, updated by its reduction
// loops (sum, product, max, min, argmax, argmin, logsumexp, variance), combined across the block's threads
// (cross_thread_reduce kind warp or block) and across the blocks of a cluster
// (cross_thread_reduce kind cluster), and written out.
#include "codegen/lowering/kernel_builder.h"
#include "dsl/expr_substitute.h"

namespace cusched::lowering {

// A reduction from its first reduction loop inward: accumulators in registers over
// the pure loops inside, initialised, updated by the reduction loops, combined
// across threads when asked, and written out.
Stmt KernelBuilder::emit_reduction(Ctx& c, const Env& env, const Env& caches, bool in_thread, bool in_serial) {
  if (!c.s.tensor_core_shape.empty()) return emit_tensor_core(c, env, caches, in_thread, in_serial);
  int r0 = first_reduction(c);
  const auto& loops = c.nest.loops;
  ReduceOp op = c.f.body->reduce_op;
  const bool arg = is_arg_reduce(op), pair = reduce_carries_pair(op), lse = op == ReduceOp::LogSumExp;
  const bool triple = reduce_carries_triple(op);
  DType vt = c.f.body->args[0].type();
  if (c.f.body->args[0]->weak) vt = dtype_is_float(vt) ? DType::f32 : DType::i32;
  DType acc_t = arg ? vt : c.f.dtype;
  // A pair reduction's second accumulator: argmin/argmax's index, logsumexp's sum of
  // exp(v - maximum) beside the running maximum in `acc`, variance's sum of squared
  // deviations beside the mean in `acc`; variance's third: the count of values taken.
  // While a thread takes values, variance's accumulators hold shifted sums instead (see
  // the update), turned into the mean and squared deviations before any combine.
  const std::string acc = c.f.name + "_acc", acc2 = c.f.name + (arg      ? "_acc_index"
                                                                : triple ? "_acc_squares"
                                                                         : "_acc_sum");
  const std::string acc3 = c.f.name + "_acc_count";
  const DType acc2_t = arg ? DType::i64 : acc_t;
  const std::string body_value = c.f.name + "_value", shift = c.f.name + "_shift";
  // Accumulator layout: the pure loops inside r0 that are not thread-bound.
  std::vector<const DerivedLoop*> inner_pure;
  for (size_t q = r0; q < loops.size(); ++q)
    if (!loops[q].info.reduction) inner_pure.push_back(&loops[q]);
  Expr acc_index = make_int(0);
  int64_t acc_size = 1;
  for (auto it = inner_pure.rbegin(); it != inner_pure.rend(); ++it) {
    if (is_thread_axis((*it)->info.axis)) continue;
    acc_index = acc_index + make_var((*it)->var) * make_int(acc_size);
    acc_size *= (*it)->info.extent;
  }
  auto over_inner_pure = [&](Stmt leaf) {
    for (auto it = inner_pure.rbegin(); it != inner_pure.rend(); ++it) leaf = make_loop(**it, leaf, false);
    return leaf;
  };
  Expr ident = reduction_identity(op == ReduceOp::ArgMax   ? ReduceOp::Max
                                  : op == ReduceOp::ArgMin ? ReduceOp::Min
                                                           : op,
                                  acc_t);
  std::vector<Stmt> init = {make_store(acc, acc_index, ident)};
  if (pair) init.push_back(make_store(acc2, acc_index, arg ? make_int(0, DType::i64) : make_float(0.0, acc2_t)));
  if (triple) {
    init.push_back(make_store(acc3, acc_index, make_float(0.0, acc_t)));
    init.push_back(make_store(shift, acc_index, make_float(0.0, acc_t)));
  }
  Stmt init_nest = over_inner_pure(make_block(init));

  // The update, inside all loops from r0 inward.
  Expr flat_r;
  {
    int64_t stride = 1;
    const auto& rv = c.f.body->rvars;
    for (int i = static_cast<int>(rv.size()) - 1; i >= 0; --i) {
      Expr term = cast(DType::i64, c.orig.at(rv[i].name)) * make_int(stride, DType::i64);
      flat_r = flat_r.defined() ? flat_r + term : term;
      stride *= eval_int(rv[i].extent_expr, st_.ctx.sizes);
    }
  }
  Stmt main_nest = loops_down_to(
      c, r0, static_cast<int>(loops.size()), env, caches, in_thread, in_serial,
      [&](const Env& e2, const Env& c2) -> Stmt {
        Expr v = lower_value(c.body, e2, c2, c.s);
        Expr cur = make_load(acc, acc_t, {acc_index});
        Stmt upd;
        if (triple) {
          // Sums shifted by the first value the thread takes (k): acc += v - k,
          // squares += (v - k)^2, n += 1. The deviations from k are of the order of the
          // values' spread, so that squares - acc^2 / n loses no more than Welford's
          // update would, without its division per value. The body's value is held in a
          // register.
          Expr x = make_load(body_value, acc_t, {make_int(0)});
          Expr n = make_load(acc3, acc_t, {acc_index});
          Expr k = make_load(shift, acc_t, {acc_index});
          Expr squares = make_load(acc2, acc2_t, {acc_index});
          upd = make_block({make_store(body_value, make_int(0), v),
                            make_store(shift, acc_index, select(n == make_float(0.0, acc_t), x, k)),
                            make_store(acc, acc_index, cur + (x - k)),
                            make_store(acc2, acc_index, squares + (x - k) * (x - k)),
                            make_store(acc3, acc_index, n + make_float(1.0, acc_t))});
        } else if (lse) {
          // (m, s) takes v: m' = max(m, v), s' = s exp(m - m') + exp(v - m'), each factor
          // exactly 1 where its exponent's operands are equal (so -inf and +inf pairs
          // stay finite). The body's value is held in a register, evaluated once.
          Expr x = make_load(body_value, acc_t, {make_int(0)});
          Expr m = max(cur, x);
          Expr s = make_load(acc2, acc2_t, {acc_index});
          Expr one = make_float(1.0, acc_t);
          Expr next = select(cur == m, s, s * exp(cur - m)) + select(x == m, one, exp(x - m));
          upd = make_block({make_store(body_value, make_int(0), v), make_store(acc2, acc_index, next),
                            make_store(acc, acc_index, m)});
        } else if (!arg) {
          Expr nv;
          switch (op) {
            case ReduceOp::Sum:
              nv = cur + v;
              break;
            case ReduceOp::Product:
              nv = cur * v;
              break;
            case ReduceOp::Max:
              nv = max(cur, v);
              break;
            default:
              nv = min(cur, v);
              break;
          }
          upd = make_store(acc, acc_index, nv);
        } else {
          Expr ci = make_load(acc2, DType::i64, {acc_index});
          Expr better = op == ReduceOp::ArgMax ? (v > cur) : (v < cur);
          Expr cond = better || (v == cur && flat_r < ci);
          upd = make_if(cond, make_block({make_store(acc, acc_index, v), make_store(acc2, acc_index, flat_r)}));
        }
        return guarded(c.nest.guards, upd);
      });

  std::vector<Stmt> seq = {init_nest, main_nest};
  if (triple) {
    // The thread's shifted sums as its mean (k + acc / n) and squared deviations
    // (squares - acc^2 / n, at least 0); a thread that took none holds zeros (k, acc and
    // squares start at 0; n counts as 1 in the divisions), as the combines expect.
    Expr n = make_load(acc3, acc_t, {acc_index});
    Expr sum = make_load(acc, acc_t, {acc_index});
    Expr squares = make_load(acc2, acc2_t, {acc_index});
    Expr per = make_float(1.0, acc_t) / max(n, make_float(1.0, acc_t));
    seq.push_back(
        over_inner_pure(make_block({make_store(acc2, acc_index, max(squares - sum * sum * per, make_float(0.0, acc_t))),
                                    make_store(acc, acc_index, make_load(shift, acc_t, {acc_index}) + sum * per)})));
  }
  // The combines: across the block's threads first, then across the cluster's blocks.
  auto loop_named = [&](const std::string& name) -> const DerivedLoop* {
    for (const auto& l : loops)
      if (!name.empty() && l.info.name == name) return &l;
    return nullptr;
  };
  const DerivedLoop* thread_loop = loop_named(c.s.cross_thread_loop);
  const DerivedLoop* cluster_loop = loop_named(c.s.cross_cluster_loop);
  auto combine_across = [&](const DerivedLoop* l, const std::string& kind, const std::string& var,
                            const DerivedLoop* before) {
    seq.push_back(make_for(var, make_int(0), make_int(acc_size), LoopKind::Serial, GpuAxis::None,
                           make_allreduce(acc, pair ? acc2 : "", make_var(var), op, l->info.axis, l->info.extent, kind,
                                          before ? before->info.axis : GpuAxis::None, before ? before->info.extent : 0,
                                          triple ? acc3 : "")));
  };
  // Their loops over the accumulator are named in the generated names' namespace, which no
  // loop of a schedule can take (dsl/names.h).
  if (thread_loop) combine_across(thread_loop, c.s.cross_thread_kind, c.f.name + "_cusched_threads", nullptr);
  if (cluster_loop) combine_across(cluster_loop, "cluster", c.f.name + "_cusched_cluster", thread_loop);
  // Write-out.
  std::vector<Expr> idx;
  for (size_t d = 0; d < c.f.vars.size(); ++d) idx.push_back(c.orig.at(c.f.vars[d]));
  Expr out = make_load(arg ? acc2 : acc, arg ? DType::i64 : acc_t, {acc_index});
  if (lse) out = out + log(make_load(acc2, acc2_t, {acc_index}));
  if (triple) out = make_load(acc2, acc2_t, {acc_index}) / make_load(acc3, acc_t, {acc_index});
  std::vector<Expr> wguards;
  for (const auto& g : c.nest.guards) {
    bool uses_reduction = false;
    std::function<void(const Expr&)> scan = [&](const Expr& e) {
      if (e->op == ExprOp::Var)
        for (const auto& l : loops)
          if (l.var == e->name && l.info.reduction) uses_reduction = true;
      for (const auto& a : e->args) scan(a);
    };
    scan(g);
    if (!uses_reduction) wguards.push_back(g);
  }
  if (thread_loop) wguards.push_back(make_var(gpu_axis_name(thread_loop->info.axis)) == make_int(0));
  // Every block of the cluster holds the total: each writes its own on-chip copy,
  // and only the first writes a global result.
  if (cluster_loop && c.self.scope == MemScope::Global) wguards.push_back(make_var("blockIdx.x") == make_int(0));
  Stmt write = store_result(c, idx, out);
  if (triple)
    write = with_sum_store(c, idx, write, make_load(acc, acc_t, {acc_index}) * make_load(acc3, acc_t, {acc_index}));
  seq.push_back(over_inner_pure(guarded(wguards, write)));
  Stmt body = make_block(seq);
  if (pair) body = make_allocate(acc2, MemScope::Register, acc2_t, acc_size, body);
  if (lse || triple) body = make_allocate(body_value, MemScope::Register, acc_t, 1, body);
  if (triple) {
    body = make_allocate(shift, MemScope::Register, acc_t, acc_size, body);
    body = make_allocate(acc3, MemScope::Register, acc_t, acc_size, body);
  }
  return make_allocate(acc, MemScope::Register, acc_t, acc_size, body);
}

}  // namespace cusched::lowering
