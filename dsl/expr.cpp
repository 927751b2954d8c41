#include "dsl/expr.h"

#include <cmath>
#include <map>
#include <sstream>

#include "dsl/error.h"
#include "dsl/math_function.h"
#include "dsl/padded_load.h"
#include "dsl/var.h"

namespace cusched {

namespace {

int int_rank(DType t) {
  switch (t) {
    case DType::boolean:
      return 1;
    case DType::i32:
      return 2;
    case DType::i64:
      return 3;
    default:
      return 0;
  }
}

// The type both operands of an arithmetic operator are converted to.
DType promote(const Expr& a, const Expr& b, bool* weak) {
  DType ta = a.type(), tb = b.type();
  bool wa = a->weak, wb = b->weak;
  *weak = wa && wb;
  if (wa && !wb) {
    if (dtype_is_float(ta) && !dtype_is_float(tb)) return DType::f32;
    return tb;
  }
  if (wb && !wa) {
    if (dtype_is_float(tb) && !dtype_is_float(ta)) return DType::f32;
    return ta;
  }
  bool fa = dtype_is_float(ta), fb = dtype_is_float(tb);
  if (fa && fb) {
    if (ta == tb) return ta;
    if (float_rank(ta) == 1 && float_rank(tb) == 1) return DType::f32;
    return float_rank(ta) >= float_rank(tb) ? ta : tb;
  }
  if (fa) return ta;
  if (fb) return tb;
  DType t = int_rank(ta) >= int_rank(tb) ? ta : tb;
  return t == DType::boolean ? DType::i32 : t;
}

void require_defined(const Expr& e, const char* builder) {
  if (!e.defined())
    fail("undefined-expr", std::string("An operand of ") + builder + " is undefined.",
         "Define every Expr before using it.");
}

bool is_comparison(ExprOp op) {
  return op == ExprOp::EQ || op == ExprOp::NE || op == ExprOp::LT || op == ExprOp::LE || op == ExprOp::GT ||
         op == ExprOp::GE;
}

}  // namespace

Expr::Expr(int v) : Expr(make_int(v)) { std::const_pointer_cast<ExprNode>(node_)->weak = true; }
Expr::Expr(int64_t v) : Expr(make_int(v, DType::i64)) {}
Expr::Expr(double v) : Expr(make_float(v)) { std::const_pointer_cast<ExprNode>(node_)->weak = true; }
Expr::Expr(float v) : Expr(make_float(v)) {}

DType Expr::type() const { return node_ ? node_->type : DType::i32; }

Expr make_node(ExprNode n) { return Expr(std::make_shared<const ExprNode>(std::move(n))); }

Expr make_int(int64_t v, DType t) {
  ExprNode n;
  n.op = ExprOp::IntImm;
  n.type = t;
  n.ival = v;
  return make_node(std::move(n));
}

Expr make_float(double v, DType t) {
  ExprNode n;
  n.op = ExprOp::FloatImm;
  n.type = t;
  n.fval = v;
  return make_node(std::move(n));
}

Expr make_bool(bool v) {
  ExprNode n;
  n.op = ExprOp::BoolImm;
  n.type = DType::boolean;
  n.ival = v ? 1 : 0;
  return make_node(std::move(n));
}

Expr make_var(const std::string& name, bool reduction) {
  ExprNode n;
  n.op = ExprOp::Var;
  n.type = DType::i32;
  n.name = name;
  n.is_reduction_var = reduction;
  return make_node(std::move(n));
}

Expr make_binary(ExprOp op, Expr a, Expr b) {
  if (!a.defined() || !b.defined())
    fail("undefined-expr", "An operand of an arithmetic expression is undefined.",
         "Define every Expr before using it.");
  ExprNode n;
  n.op = op;
  bool weak = false;
  DType t = promote(a, b, &weak);
  if (op == ExprOp::And || op == ExprOp::Or) {
    n.type = DType::boolean;
  } else if (is_comparison(op)) {
    n.type = DType::boolean;
  } else {
    n.type = t;
    n.weak = weak;
  }
  n.args = {std::move(a), std::move(b)};
  return make_node(std::move(n));
}

Expr make_unary(ExprOp op, Expr a) {
  require_defined(a, "a unary operator");
  ExprNode n;
  n.op = op;
  n.type = op == ExprOp::Not ? DType::boolean : a.type();
  n.weak = op == ExprOp::Neg && a->weak;
  n.args = {std::move(a)};
  return make_node(std::move(n));
}

Expr make_call(const std::string& fn, std::vector<Expr> args, DType t) {
  ExprNode n;
  n.op = ExprOp::Call;
  n.name = fn;
  n.type = t;
  n.args = std::move(args);
  return make_node(std::move(n));
}

Expr make_load(const std::string& target, DType t, std::vector<Expr> indices) {
  ExprNode n;
  n.op = ExprOp::Load;
  n.name = target;
  n.type = t;
  n.args = std::move(indices);
  return make_node(std::move(n));
}

Expr operator+(Expr a, Expr b) { return make_binary(ExprOp::Add, std::move(a), std::move(b)); }
Expr operator-(Expr a, Expr b) { return make_binary(ExprOp::Sub, std::move(a), std::move(b)); }
Expr operator*(Expr a, Expr b) { return make_binary(ExprOp::Mul, std::move(a), std::move(b)); }
Expr operator/(Expr a, Expr b) { return make_binary(ExprOp::Div, std::move(a), std::move(b)); }
Expr operator%(Expr a, Expr b) { return make_binary(ExprOp::Mod, std::move(a), std::move(b)); }
Expr bit_xor(Expr a, Expr b) {
  if (dtype_is_float(a.type()) || dtype_is_float(b.type()))
    fail("xor-of-float", "An exclusive or needs integer operands.", "Apply bit_xor to integer index expressions only.");
  return make_binary(ExprOp::BitXor, std::move(a), std::move(b));
}
Expr operator-(Expr a) { return make_unary(ExprOp::Neg, std::move(a)); }
Expr operator==(Expr a, Expr b) { return make_binary(ExprOp::EQ, std::move(a), std::move(b)); }
Expr operator!=(Expr a, Expr b) { return make_binary(ExprOp::NE, std::move(a), std::move(b)); }
Expr operator<(Expr a, Expr b) { return make_binary(ExprOp::LT, std::move(a), std::move(b)); }
Expr operator<=(Expr a, Expr b) { return make_binary(ExprOp::LE, std::move(a), std::move(b)); }
Expr operator>(Expr a, Expr b) { return make_binary(ExprOp::GT, std::move(a), std::move(b)); }
Expr operator>=(Expr a, Expr b) { return make_binary(ExprOp::GE, std::move(a), std::move(b)); }
Expr operator&&(Expr a, Expr b) { return make_binary(ExprOp::And, std::move(a), std::move(b)); }
Expr operator||(Expr a, Expr b) { return make_binary(ExprOp::Or, std::move(a), std::move(b)); }
Expr operator!(Expr a) { return make_unary(ExprOp::Not, std::move(a)); }

Expr min(Expr a, Expr b) { return make_binary(ExprOp::Min, std::move(a), std::move(b)); }
Expr max(Expr a, Expr b) { return make_binary(ExprOp::Max, std::move(a), std::move(b)); }
Expr pow(Expr a, Expr b) {
  Expr e = make_binary(ExprOp::Pow, std::move(a), std::move(b));
  if (!dtype_is_float(e.type())) {
    ExprNode n = *e;
    n.type = DType::f32;
    return make_node(std::move(n));
  }
  return e;
}

Expr select(Expr cond, Expr t, Expr f) {
  require_defined(cond, "select");
  require_defined(t, "select");
  require_defined(f, "select");
  ExprNode n;
  n.op = ExprOp::Select;
  bool weak = false;
  n.type = promote(t, f, &weak);
  n.weak = weak;
  n.args = {std::move(cond), std::move(t), std::move(f)};
  return make_node(std::move(n));
}

Expr cast(DType t, Expr e) {
  require_defined(e, "cast");
  ExprNode n;
  n.op = ExprOp::Cast;
  n.type = t;
  n.args = {std::move(e)};
  return make_node(std::move(n));
}

Expr exp(Expr e) { return math_call("exp", {std::move(e)}); }
Expr log(Expr e) { return math_call("log", {std::move(e)}); }
Expr sqrt(Expr e) { return math_call("sqrt", {std::move(e)}); }
Expr rsqrt(Expr e) { return math_call("rsqrt", {std::move(e)}); }
Expr tanh(Expr e) { return math_call("tanh", {std::move(e)}); }
Expr erf(Expr e) { return math_call("erf", {std::move(e)}); }
Expr abs(Expr e) { return math_call("abs", {std::move(e)}); }
Expr sigmoid(Expr e) { return math_call("sigmoid", {std::move(e)}); }
Expr softplus(Expr e) { return math_call("softplus", {std::move(e)}); }
Expr log1p(Expr e) { return math_call("log1p", {std::move(e)}); }
Expr expm1(Expr e) { return math_call("expm1", {std::move(e)}); }
Expr floor(Expr e) { return math_call("floor", {std::move(e)}); }
Expr ceil(Expr e) { return math_call("ceil", {std::move(e)}); }
Expr round(Expr e) { return math_call("round", {std::move(e)}); }
Expr sign(Expr e) { return math_call("sign", {std::move(e)}); }
Expr sin(Expr e) { return math_call("sin", {std::move(e)}); }
Expr cos(Expr e) { return math_call("cos", {std::move(e)}); }
Expr clamp(Expr e, Expr lo, Expr hi) { return math_call("clamp", {std::move(e), std::move(lo), std::move(hi)}); }

bool is_math_function(const std::string& name, int* arity) {
  const MathFunction* f = math_function(name);
  if (!f) return false;
  if (arity) *arity = static_cast<int>(f->params.size());
  return true;
}

bool is_const_int(const Expr& e, int64_t* v) {
  if (!e.defined() || e->op != ExprOp::IntImm) return false;
  if (v) *v = e->ival;
  return true;
}

const char* binary_operator_symbol(ExprOp op) {
  switch (op) {
    case ExprOp::Add:
      return "+";
    case ExprOp::Sub:
      return "-";
    case ExprOp::Mul:
      return "*";
    case ExprOp::Div:
      return "/";
    case ExprOp::Mod:
      return "%";
    case ExprOp::EQ:
      return "==";
    case ExprOp::NE:
      return "!=";
    case ExprOp::LT:
      return "<";
    case ExprOp::LE:
      return "<=";
    case ExprOp::GT:
      return ">";
    case ExprOp::GE:
      return ">=";
    case ExprOp::And:
      return "&&";
    case ExprOp::Or:
      return "||";
    default:
      return nullptr;
  }
}

std::string to_string(const Expr& e) {
  if (!e.defined()) return "<undefined>";
  const ExprNode& n = *e;
  std::ostringstream os;
  switch (n.op) {
    case ExprOp::IntImm:
      os << n.ival;
      break;
    case ExprOp::FloatImm: {
      std::ostringstream f;
      f.precision(9);
      f << n.fval;
      std::string s = f.str();
      if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
      os << s;
      break;
    }
    case ExprOp::BoolImm:
      os << (n.ival ? "true" : "false");
      break;
    case ExprOp::Var:
    case ExprOp::SizeParam:
      os << n.name;
      break;
    case ExprOp::Min:
      os << "min(" << to_string(n.args[0]) << ", " << to_string(n.args[1]) << ")";
      break;
    case ExprOp::Max:
      os << "max(" << to_string(n.args[0]) << ", " << to_string(n.args[1]) << ")";
      break;
    case ExprOp::Pow:
      os << "pow(" << to_string(n.args[0]) << ", " << to_string(n.args[1]) << ")";
      break;
    case ExprOp::BitXor:
      os << "(" << to_string(n.args[0]) << " ^ " << to_string(n.args[1]) << ")";
      break;
    case ExprOp::Not:
      os << "!(" << to_string(n.args[0]) << ")";
      break;
    case ExprOp::Neg:
      os << "-(" << to_string(n.args[0]) << ")";
      break;
    case ExprOp::Select:
      os << "select(" << to_string(n.args[0]) << ", " << to_string(n.args[1]) << ", " << to_string(n.args[2]) << ")";
      break;
    case ExprOp::Cast:
      os << dtype_name(n.type) << "(" << to_string(n.args[0]) << ")";
      break;
    case ExprOp::Call:
    case ExprOp::Load: {
      os << n.name << (n.op == ExprOp::Load ? "[" : "(");
      for (size_t i = 0; i < n.args.size(); ++i) os << (i ? ", " : "") << to_string(n.args[i]);
      os << (n.op == ExprOp::Load ? "]" : ")");
      if (is_padded_load(n)) {
        std::ostringstream v;
        v << n.fval;
        return "padded(" + os.str() + ", " + v.str() + ")";
      }
      break;
    }
    case ExprOp::Reduce: {
      os << reduce_op_name(n.reduce_op) << "(";
      for (size_t i = 0; i < n.rvars.size(); ++i) os << (i ? ", " : "") << n.rvars[i].name;
      os << "; " << to_string(n.args[0]) << ")";
      break;
    }
    case ExprOp::Scan:
      os << (n.reduce_op == ReduceOp::Product ? "cumprod" : "cumsum") << "(" << n.name
         << ((n.ival & kScanReverse) ? ", reverse" : "") << ((n.ival & kScanExclusive) ? ", exclusive" : "") << "; "
         << to_string(n.args[0]) << ")";
      break;
    default: {
      const char* sym = binary_operator_symbol(n.op);
      os << "(" << to_string(n.args[0]) << " " << (sym ? sym : "?") << " " << to_string(n.args[1]) << ")";
    }
  }
  return os.str();
}

}  // namespace cusched
