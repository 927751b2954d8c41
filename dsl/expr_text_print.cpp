// The printer of the expression text syntax (the parser is expr_text_parse.cpp).
#include <charconv>
#include <cmath>
#include <set>

#include "dsl/expr_text.h"
#include "dsl/expr_text_precedence.h"
#include "dsl/padded_load.h"
#include "dsl/var.h"

namespace cusched {

namespace {

std::string shortest(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string shortest(float v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

// A number that reads as a floating-point literal ("2" becomes "2.0").
std::string float_looking(std::string s) {
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string float_literal(const ExprNode& n) {
  double v = n.fval;
  if (!std::isfinite(v)) {
    std::string s = std::isnan(v) ? "nan" : (v < 0 ? "-inf" : "inf");
    return n.weak ? s : s + "_" + dtype_name(n.type);
  }
  if (n.weak && n.type == DType::f32) return float_looking(shortest(v));
  if (!n.weak && n.type == DType::f32 && static_cast<double>(static_cast<float>(v)) == v)
    return float_looking(shortest(static_cast<float>(v))) + "f";
  return float_looking(shortest(v)) + dtype_name(n.type) + (n.weak ? "w" : "");
}

std::string int_literal(const ExprNode& n) {
  std::string s = std::to_string(n.ival);
  if (n.weak && n.type == DType::i32) return s;
  return s + dtype_name(n.type) + (n.weak ? "w" : "");
}

class Printer {
 public:
  std::string print(const Expr& e) { return text(e); }

 private:
  std::string text(const Expr& e) {
    const ExprNode& n = *e;
    switch (n.op) {
      case ExprOp::IntImm:
        return int_literal(n);
      case ExprOp::FloatImm:
        return float_literal(n);
      case ExprOp::BoolImm:
        return n.ival ? "true" : "false";
      case ExprOp::Var:
      case ExprOp::SizeParam:
        return n.name;
      case ExprOp::Min:
        return call("min", n.args);
      case ExprOp::Max:
        return call("max", n.args);
      case ExprOp::Pow:
        return call("pow", n.args);
      case ExprOp::Select:
        return call("select", n.args);
      case ExprOp::Cast:
        return call(dtype_name(n.type), n.args);
      case ExprOp::Call:
        return call(n.name, n.args);
      case ExprOp::Load:
        return is_padded_load(n) ? padded_text(n) : call(n.name, n.args);
      case ExprOp::Not:
      case ExprOp::Neg: {
        const Expr& a = n.args[0];
        bool literal = a->op == ExprOp::IntImm || a->op == ExprOp::FloatImm;
        std::string inner = text(a);
        if (literal || expr_precedence(a) < kUnaryPrecedence) inner = "(" + inner + ")";
        return std::string(n.op == ExprOp::Not ? "!" : "-") + inner;
      }
      case ExprOp::Reduce: {
        std::string s = reduce_op_name(n.reduce_op) + "(";
        for (size_t i = 0; i < n.rvars.size(); ++i)
          s += (i ? ", " : "") + n.rvars[i].name + " in " + text(n.rvars[i].extent_expr);
        return s + ": " + text(n.args[0]) + ")";
      }
      case ExprOp::Scan:
        return scan_op_name(n.reduce_op) + "(" + n.name + ((n.ival & kScanReverse) ? ", reverse" : "") +
               ((n.ival & kScanExclusive) ? ", exclusive" : "") + ": " + text(n.args[0]) + ")";
      default: {
        int p = expr_precedence(e);
        std::string l = text(n.args[0]), r = text(n.args[1]);
        if (expr_precedence(n.args[0]) < p) l = "(" + l + ")";
        if (expr_precedence(n.args[1]) <= p) r = "(" + r + ")";
        return l + " " + binary_symbol(n.op) + " " + r;
      }
    }
  }

  std::string call(const std::string& fn, const std::vector<Expr>& args) {
    std::string s = fn + "(";
    for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + text(args[i]);
    return s + ")";
  }

  // padded(X(i, j)) for zero padding, padded(X(i, j), VALUE) otherwise.
  std::string padded_text(const ExprNode& n) {
    std::string s = "padded(" + call(n.name, n.args);
    if (n.fval != 0 || std::signbit(n.fval)) {
      ExprNode v;
      v.op = ExprOp::FloatImm;
      v.type = DType::f32;
      v.fval = n.fval;
      v.weak = true;
      s += ", " + float_literal(v);
    }
    return s + ")";
  }
};

}  // namespace

std::string expr_to_text(const Expr& e) {
  if (!e.defined()) return "<undefined>";
  return Printer().print(e);
}

std::string stage_to_text(const FuncDef& f) {
  std::string s = f.name + "(";
  for (size_t i = 0; i < f.vars.size(); ++i) s += (i ? ", " : "") + f.vars[i] + " in " + expr_to_text(f.extents[i]);
  return s + ") = " + expr_to_text(f.body);
}

bool is_reserved_word(const std::string& name) {
  static const std::set<std::string> words = {"in",     "true", "false",   "select",  "min",     "max",
                                              "pow",    "sum",  "product", "maximum", "minimum", "argmax",
                                              "argmin", "inf",  "nan",     "cumsum",  "cumprod", "logsumexp"};
  if (words.count(name) || is_math_function(name) || dtype_from_name(name)) return true;
  return false;
}

}  // namespace cusched
