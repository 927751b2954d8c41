#include "dsl/math_function.h"

#include <cmath>

#include "dsl/error.h"

namespace cusched {

namespace {

double exact_sigmoid(const double* a) { return 1.0 / (1.0 + std::exp(-a[0])); }
// PyTorch's softplus with beta 1 and threshold 20: linear above the threshold.
double exact_softplus(const double* a) { return a[0] > 20.0 ? a[0] : std::log1p(std::exp(a[0])); }
// torch.sign: -1, 0 or +1 ((0 < x) - (x < 0), so a NaN gives 0).
double exact_sign(const double* a) { return (0.0 < a[0] ? 1.0 : 0.0) - (a[0] < 0.0 ? 1.0 : 0.0); }
// torch.clamp: max(x, lo) then min(., hi); a NaN x stays NaN, lo > hi gives hi.
double exact_clamp(const double* a) {
  double r = a[0] < a[1] ? a[1] : a[0];
  return r > a[2] ? a[2] : r;
}

}  // namespace

const std::vector<MathFunction>& math_functions() {
  static const std::vector<MathFunction> fns = {
      {"exp", {"x"}, MathResult::Float, [](const double* a) { return std::exp(a[0]); }, "e^x", 8},
      {"log", {"x"}, MathResult::Float, [](const double* a) { return std::log(a[0]); }, "natural logarithm", 14},
      {"sqrt", {"x"}, MathResult::Float, [](const double* a) { return std::sqrt(a[0]); }, "square root", 8},
      {"rsqrt", {"x"}, MathResult::Float, [](const double* a) { return 1.0 / std::sqrt(a[0]); }, "1 / sqrt(x)", 2},
      {"tanh", {"x"}, MathResult::Float, [](const double* a) { return std::tanh(a[0]); }, "hyperbolic tangent", 16},
      {"erf", {"x"}, MathResult::Float, [](const double* a) { return std::erf(a[0]); }, "error function", 20},
      {"abs", {"x"}, MathResult::Operand, [](const double* a) { return std::fabs(a[0]); }, "absolute value", 1},
      {"sigmoid", {"x"}, MathResult::Float, exact_sigmoid, "1 / (1 + exp(-x)) (torch.sigmoid)", 18},
      {"softplus",
       {"x"},
       MathResult::Float,
       exact_softplus,
       "x > 20 ? x : log1p(exp(x)) (torch.nn.functional.softplus, beta 1, threshold 20)",
       40},
      {"log1p", {"x"}, MathResult::Float, [](const double* a) { return std::log1p(a[0]); }, "log(1 + x)", 28},
      {"expm1", {"x"}, MathResult::Float, [](const double* a) { return std::expm1(a[0]); }, "exp(x) - 1", 16},
      {"floor",
       {"x"},
       MathResult::Operand,
       [](const double* a) { return std::floor(a[0]); },
       "largest integer <= x",
       1},
      {"ceil", {"x"}, MathResult::Operand, [](const double* a) { return std::ceil(a[0]); }, "smallest integer >= x", 1},
      {"round",
       {"x"},
       MathResult::Operand,
       [](const double* a) { return std::nearbyint(a[0]); },
       "nearest integer, halves to even (torch.round: round(2.5) = 2)",
       1},
      {"sign", {"x"}, MathResult::Operand, exact_sign, "-1, 0 or +1 (torch.sign; sign(0) = 0, a NaN gives 0)", 2},
      {"sin", {"x"}, MathResult::Float, [](const double* a) { return std::sin(a[0]); }, "sine (radians)", 20},
      {"cos", {"x"}, MathResult::Float, [](const double* a) { return std::cos(a[0]); }, "cosine (radians)", 20},
      {"clamp",
       {"x", "lo", "hi"},
       MathResult::Promoted,
       exact_clamp,
       "min(max(x, lo), hi) (torch.clamp, hardtanh); a NaN x stays NaN",
       2},
  };
  return fns;
}

const MathFunction* math_function(const std::string& name) {
  for (const auto& f : math_functions())
    if (name == f.name) return &f;
  return nullptr;
}

std::string math_signature(const MathFunction& f) {
  std::string s = std::string(f.name) + "(";
  for (size_t i = 0; i < f.params.size(); ++i) s += (i ? ", " : "") + std::string(f.params[i]);
  return s + ")";
}

Expr math_call(const std::string& name, std::vector<Expr> args) {
  const MathFunction* f = math_function(name);
  if (!f) {
    std::string known;
    for (const auto& m : math_functions()) known += (known.empty() ? "" : ", ") + std::string(m.name);
    fail("unknown-function", "'" + name + "' is not a math function of the language.", "Use one of " + known + ".");
  }
  if (args.size() != f->params.size())
    fail("wrong-argument-count",
         "'" + name + "' takes " + std::to_string(f->params.size()) + " argument(s), not " +
             std::to_string(args.size()) + ".",
         "Call it as " + math_signature(*f) + ".");
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].defined())
      fail("undefined-expr", "An argument of " + name + " is undefined.", "Define every Expr before using it.");
    if (args[i].type() == DType::boolean)
      fail("type-error",
           "The argument " + std::string(f->params[i]) + " of " + name + " is a condition (" + to_string(args[i]) +
               "), not a number.",
           "Pass a number; turn a condition into one with select(cond, 1.0f, 0.0f) or a cast such as f32(cond).");
  }
  DType t = args[0].type();
  bool weak = false;
  switch (f->result) {
    case MathResult::Float:
      t = dtype_is_float(t) && !args[0]->weak ? t : DType::f32;
      break;
    case MathResult::Operand:
      break;
    case MathResult::Promoted: {
      Expr common = args[0];
      for (size_t i = 1; i < args.size(); ++i) common = make_binary(ExprOp::Max, common, args[i]);
      t = common.type();
      weak = common->weak;
      break;
    }
  }
  Expr call = make_call(name, std::move(args), t);
  if (!weak) return call;
  ExprNode n = *call;
  n.weak = true;
  return make_node(std::move(n));
}

}  // namespace cusched
