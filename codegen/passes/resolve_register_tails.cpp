// Reads of a shared copy whose last copy steps stay in registers (cache_read registers).
// Lowering reads element f of such a copy as
//   f < start ? shared[f] : registers[(f / (threads * lanes) - start / (threads * lanes)) * lanes + f % lanes],
// which is right only when the reading thread is the one that copied f. This pass proves
// that, and rewrites the read so that the compiler sees constants where the loops are
// unrolled. With every loop bound to a hardware index replaced by that index (loops
// bound to the same axis name the same value, the cluster rank is blockIdx.x) and every
// loop of one iteration by 0, f must be
//   f = threads * lanes * q + lanes * threadIdx.x + r,   0 <= r < lanes,
// on a one-dimensional block of `threads` threads, with q and r made of constants and the
// variables of unrolled or vectorized loops. Then element f was copied by thread
// threadIdx.x in step q, and the read becomes
//   q < start / (threads * lanes) ? shared[f] : registers[(q - start / (threads * lanes)) * lanes + r].
#include <map>

#include "codegen/linear_form.h"
#include "codegen/passes/passes.h"
#include "dsl/error.h"
#include "dsl/expr_substitute.h"

namespace cusched {

namespace {

struct LoopFacts {
  int64_t extent = 0;  // 0 when not a constant
  LoopKind kind = LoopKind::Serial;
};

struct Context {
  std::map<std::string, Expr> values;  // loop variable -> its axis's index (bound loops), or 0 (loops of one iteration)
  std::map<std::string, LoopFacts> loops;
};

class TailReads {
 public:
  explicit TailReads(const Kernel& k) : k_(k) {
    for (const auto& t : k.register_tails) tails_[t.registers] = &t;
  }

  Stmt resolve(const Stmt& s, Context ctx) {
    auto n = std::make_shared<StmtNode>(*s);
    auto own = [&](Expr& e) {
      if (e.defined()) e = rewrite(e, [&](const Expr& x) { return read(x, ctx); });
    };
    own(n->min);
    own(n->extent);
    own(n->index);
    own(n->value);
    own(n->cond);
    for (auto& o : n->operands) own(o);
    if (n->kind == StmtKind::For) {
      if (n->axis != GpuAxis::None) {
        const std::string name = n->axis == GpuAxis::ClusterX ? "blockIdx.x" : gpu_axis_name(n->axis);
        ctx.values[n->var] = make_var(name);
      } else {
        int64_t lo = -1, extent = 0;
        LoopFacts f;
        f.kind = n->loop_kind;
        if (is_const_int(n->min, &lo) && lo == 0 && is_const_int(n->extent, &extent)) f.extent = extent;
        if (f.extent == 1)
          ctx.values[n->var] = make_int(0);
        else
          ctx.loops[n->var] = f;
      }
    }
    for (auto& c : n->body) c = resolve(c, ctx);
    return n;
  }

 private:
  [[noreturn]] void refuse(const RegisterTail& t, const std::string& why) const {
    fail("register-tail-read",
         "Kernel '" + k_.name + "' reads the shared copy '" + t.shared +
             "', whose last copy steps stay in registers (cache_read registers), " + why,
         "Read the copy with the threads and the lane order that copied it (the same split and bind of the copied "
         "dimension as the copy, the step loop unrolled), or drop registers.");
  }

  Expr read(const Expr& x, const Context& ctx) {
    if (x->op != ExprOp::Select || x->args[2]->op != ExprOp::Load) return x;
    auto it = tails_.find(x->args[2]->name);
    if (it == tails_.end()) return x;
    const RegisterTail& t = *it->second;
    const Expr shared = x->args[1];
    if (shared->op != ExprOp::Load || shared->name != t.shared || shared->args.size() != 1)
      refuse(t, "in a form lowering did not make.");
    if (k_.block[0] != t.threads || k_.block[1] != 1 || k_.block[2] != 1)
      refuse(t, "but the copy was laid out for a one-dimensional block of " + std::to_string(t.threads) +
                    " threads and the kernel's block is (" + std::to_string(k_.block[0]) + ", " +
                    std::to_string(k_.block[1]) + ", " + std::to_string(k_.block[2]) + ").");
    std::map<std::string, Expr> values = ctx.values;
    values["tid"] = make_var("threadIdx.x");
    auto f = linear_form(substitute(shared->args[0], values));
    if (!f) refuse(t, "at an index that is not affine in the loop variables.");
    const int64_t step = t.threads * t.lanes, kept = t.start / step;
    LinearForm q, r;
    q.constant = (f->constant >= 0 ? f->constant : f->constant - step + 1) / step;
    r.constant = f->constant - q.constant * step;
    int64_t r_max = r.constant;
    bool by_thread = false;
    for (const auto& [var, c] : f->coeff) {
      if (c == 0) continue;
      if (var == "threadIdx.x") {
        if (c != t.lanes)
          refuse(t, "with threadIdx.x at stride " + std::to_string(c) + " where the copy puts consecutive threads " +
                        std::to_string(t.lanes) + " elements apart, so another thread holds the element.");
        by_thread = true;
        continue;
      }
      auto loop = ctx.loops.find(var);
      if (loop == ctx.loops.end())
        refuse(t,
               "with an index that depends on '" + var +
                   "', a hardware index other than the thread's, so the element's place is not known when compiling.");
      if (loop->second.kind == LoopKind::Serial)
        refuse(
            t,
            "inside loop '" + var +
                "', which is not unrolled, so the register that holds an element would not be known when compiling.");
      if (c % step == 0) {
        q.coeff[var] = c / step;
        continue;
      }
      if (c < 0 || loop->second.extent <= 0)
        refuse(t, "with loop '" + var + "' moving the index backwards or over an unknown extent.");
      r.coeff[var] = c;
      r_max += c * (loop->second.extent - 1);
    }
    if (!by_thread)
      refuse(t, "at an index that does not depend on the thread, so one thread reads other threads' elements.");
    if (r_max >= t.lanes)
      refuse(t, "with an index whose part below the thread's stride spans " + std::to_string(r_max + 1) +
                    " elements, more than the " + std::to_string(t.lanes) + " that one copy step of a thread holds.");
    const Expr qe = q.to_expr(), re = r.to_expr();
    const Expr reg = make_load(t.registers, x->args[2]->type, {(qe - make_int(kept)) * make_int(t.lanes) + re});
    return select(qe < make_int(kept), shared, reg);
  }

  const Kernel& k_;
  std::map<std::string, const RegisterTail*> tails_;
};

}  // namespace

void resolve_register_tails(Kernel& k) {
  if (k.register_tails.empty()) return;
  TailReads reads(k);
  k.body = reads.resolve(k.body, Context{});
}

}  // namespace cusched
