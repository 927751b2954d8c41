#include "codegen/passes/simplify.h"

#include "codegen/linear_form.h"
#include "dsl/expr_substitute.h"


namespace cusched {


static bool is_int(const Expr& e, int64_t v) {
  int64_t x;
  return is_const_int(e, &x) && x == v;
}

Expr simplify(const Expr& e) {
  return rewrite(e, [](const Expr& x) -> Expr {
    const ExprNode& n = *x;
    if (dtype_is_float(n.type) || n.type == DType::boolean) return x;
    int64_t a, b;
    bool ca = n.args.size() > 0 && is_const_int(n.args[0], &a);
    bool cb = n.args.size() > 1 && is_const_int(n.args[1], &b);
    DType t = n.type;
    switch (n.op) {
      case ExprOp::Add:
        if (ca && cb) return make_int(a + b, t);
        if (is_int(n.args[0], 0)) return n.args[1];
        if (is_int(n.args[1], 0)) return n.args[0];
        break;
      case ExprOp::Sub:
        if (ca && cb) return make_int(a - b, t);
        if (is_int(n.args[1], 0)) return n.args[0];
        break;
      case ExprOp::Mul:
        if (ca && cb) return make_int(a * b, t);
        if (is_int(n.args[0], 1)) return n.args[1];
        if (is_int(n.args[1], 1)) return n.args[0];
        if (is_int(n.args[0], 0) || is_int(n.args[1], 0)) return make_int(0, t);
        break;
      case ExprOp::Div:
        if (ca && cb && b != 0) return make_int(a / b, t);
        if (is_int(n.args[1], 1)) return n.args[0];
        break;
      case ExprOp::Mod:
        if (ca && cb && b != 0) return make_int(a % b, t);
        if (is_int(n.args[1], 1)) return make_int(0, t);
        break;
      case ExprOp::BitXor:
        if (ca && cb) return make_int(a ^ b, t);
        break;
      default: break;
    }
    // Collect sums into one canonical linear form over variables and opaque terms
    // (divisions, moduli, loads), so that (a + t) - a becomes t.
    if (n.op == ExprOp::Add || n.op == ExprOp::Sub || n.op == ExprOp::Mul) {
      if (auto f = linear_form(x, true)) {
        Expr c = f->to_expr();
        if (c.type() == x.type()) return c;
      }
    }
    return x;
  });
}

}  // namespace cusched
