#include "codegen/fast_math.h"

#include "dsl/math_function.h"

namespace cusched {

const std::vector<FastMathFunction>& fast_math_functions() {
  // The device library (cusched_math.cuh) builds the composite forms from __expf,
  // __logf and __fdividef.
  static const std::vector<FastMathFunction> fns = {
      {"fast_exp", "__expf", "exp", 1, 2},
      {"fast_log", "__logf", "log", 1, 2},
      {"fast_div", "__fdividef", "", 2, 2},
      {"fast_sigmoid", "cusched::fast_sigmoid", "sigmoid", 1, 5},
      {"fast_softplus", "cusched::fast_softplus", "softplus", 1, 6},
      {"fast_log1p", "cusched::fast_log1p", "log1p", 1, 4},
      {"fast_expm1", "cusched::fast_expm1", "expm1", 1, 4},
      {"fast_sin", "__sinf", "sin", 1, 2},
      {"fast_cos", "__cosf", "cos", 1, 2},
      {"fast_tanh", "cusched::fast_tanh", "tanh", 1, 1},
  };
  return fns;
}

const FastMathFunction* fast_math_function(const std::string& name) {
  for (const auto& f : fast_math_functions())
    if (name == f.name) return &f;
  return nullptr;
}

Expr exact_form(const FastMathFunction& f, const std::vector<Expr>& args) {
  if (f.exact[0] == '\0') return args.at(0) / args.at(1);
  return math_call(f.exact, args);
}

namespace {

// The fast-math call that replaces `x`, or an undefined Expr.
Expr fast_form(const Expr& x) {
  if (x.type() != DType::f32) return {};
  if (x->op == ExprOp::Div && x->args.size() == 2) return make_call("fast_div", x->args, DType::f32);
  if (x->op != ExprOp::Call) return {};
  for (const auto& f : fast_math_functions())
    if (x->name == f.exact && static_cast<int>(x->args.size()) == f.arity)
      return make_call(f.name, x->args, DType::f32);
  return {};
}

}  // namespace

Expr with_fast_math(const Expr& value) {
  return rewrite(value, [](const Expr& x) -> Expr {
    Expr f = fast_form(x);
    return f.defined() ? f : x;
  });
}

bool has_fast_math_operation(const Expr& value) {
  if (!value.defined()) return false;
  if (fast_form(value).defined()) return true;
  for (const auto& a : value->args)
    if (has_fast_math_operation(a)) return true;
  return false;
}

}  // namespace cusched
