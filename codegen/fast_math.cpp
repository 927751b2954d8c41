#include "codegen/fast_math.h"

namespace cusched {

namespace {

const FastMathFunction kFunctions[] = {
    {"fast_exp", "__expf", 1},
    {"fast_log", "__logf", 1},
    {"fast_div", "__fdividef", 2},
};

}  // namespace

const FastMathFunction* fast_math_function(const std::string& name) {
  for (const auto& f : kFunctions)
    if (name == f.name) return &f;
  return nullptr;
}

namespace {

// The fast-math call that replaces `x`, or an undefined Expr.
Expr fast_form(const Expr& x) {
  if (x.type() != DType::f32) return {};
  if (x->op == ExprOp::Call && (x->name == "exp" || x->name == "log") && x->args.size() == 1)
    return make_call("fast_" + x->name, x->args, DType::f32);
  if (x->op == ExprOp::Div && x->args.size() == 2) return make_call("fast_div", x->args, DType::f32);
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
