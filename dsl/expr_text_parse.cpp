// The parser of the expression text syntax: a recursive descent over the tokens
// (dsl/expr_text_tokens.h) by C's precedence levels, building every node with the DSL's own builders so that the
// parsed tree is the one the C++ DSL builds.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>

#include "dsl/error.h"
#include "dsl/expr_text.h"
#include "dsl/expr_text_precedence.h"
#include "dsl/expr_text_tokens.h"
#include "dsl/math_function.h"
#include "dsl/padded_load.h"
#include "dsl/reduction_split.h"
#include "dsl/var.h"

namespace cusched {

namespace {

// The math functions' names, for messages.
std::string function_names() {
  std::string s;
  for (const auto& f : math_functions()) s += (s.empty() ? "" : ", ") + std::string(f.name);
  return s;
}

using expr_text::Token;
using Tok = expr_text::TokenKind;

struct ReductionSite {
  const ExprNode* node;
  size_t pos;
};

class Parser {
 public:
  Parser(const std::string& text, const ExprScope& scope)
      : text_(text), scope_(scope), tokens_(expr_text::tokenize(text, [this](const Token& t) {
          error("expr-syntax", t, "The character '" + t.text + "' is not part of the expression syntax.",
                "Use the operators + - * / % ^ == != < <= > >= && || ! and calls such as exp(x).");
        })) {}

  Expr whole_expression(bool allow_reduction) {
    Expr e = expression();
    expect_end();
    check_reductions(e, allow_reduction);
    return e;
  }

  Func stage() {
    Token name = next();
    if (name.kind != Tok::Ident)
      error("expr-syntax", name, "A stage definition starts with the stage's name.",
            "Write it as NAME(i in SIZE, ...) = EXPRESSION.");
    check_new_name(name);
    expect("(", "after the stage's name");
    std::vector<Var> vars;
    if (!accept(")")) {
      do {
        Token v = next();
        if (v.kind != Tok::Ident)
          error("expr-syntax", v, "Expected a variable name in the stage's domain.",
                "List the domain as (i in SIZE, j in SIZE).");
        check_new_name(v);
        for (const auto& w : vars)
          if (w.name() == v.text)
            error("duplicate-name", v, "The variable '" + v.text + "' appears twice in the domain.",
                  "Give each dimension its own variable name.");
        expect_word("in", "after the variable '" + v.text + "'");
        Token at = peek();
        Expr extent = expression();
        check_extent(extent, at);
        vars.emplace_back(v.text, extent);
      } while (accept(","));
      expect(")", "to close the stage's domain");
    }
    expect("=", "between the stage's domain and its definition");
    for (const auto& v : vars) pure_.push_back(v.name());
    Expr body = expression();
    expect_end();
    // Reductions inside the definition become stages of their own, except where a
    // condition decides whether they are computed.
    const ExprNode* refused = nullptr;
    std::string why = reduction_split_refusal(body, &refused);
    for (const auto& r : reductions_)
      if (r.node == refused)
        error("nested-reduction", reduction_token(r), why,
              "Define the reduction as a stage of its own over the points where it is valid and load that stage "
              "inside the select.");
    return compute(name.text, vars, body);
  }

 private:
  const std::string& text_;
  const ExprScope& scope_;
  std::vector<Token> tokens_;
  size_t at_ = 0;
  std::vector<std::string> pure_ = scope_.vars;
  std::vector<std::string> reduction_vars_;  // innermost last
  std::vector<ReductionSite> reductions_;

  // Position and error reporting.
  [[noreturn]] void error(const std::string& code, const Token& t, const std::string& message,
                          const std::string& hint) {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < t.pos && i < text_.size(); ++i) {
      if (text_[i] == '\n')
        ++line, col = 1;
      else
        ++col;
    }
    std::string near = t.kind == Tok::End ? "the end" : "'" + t.text + "'";
    fail(code,
         "At line " + std::to_string(line) + ", column " + std::to_string(col) + " (" + near + ") of \"" + text_ +
             "\": " + message,
         hint);
  }

  const Token& peek(size_t ahead = 0) const { return tokens_[std::min(at_ + ahead, tokens_.size() - 1)]; }
  Token next() {
    Token t = peek();
    if (at_ < tokens_.size() - 1) ++at_;
    return t;
  }
  bool is_punct(const Token& t, const std::string& p) const { return t.kind == Tok::Punct && t.text == p; }
  bool accept(const std::string& p) {
    if (!is_punct(peek(), p)) return false;
    next();
    return true;
  }
  void expect(const std::string& p, const std::string& where) {
    if (!accept(p))
      error("expr-syntax", peek(), "Expected '" + p + "' " + where + ".", "Insert '" + p + "' " + where + ".");
  }
  void expect_word(const std::string& w, const std::string& where) {
    Token t = next();
    if (t.kind != Tok::Ident || t.text != w)
      error("expr-syntax", t, "Expected '" + w + "' " + where + ".", "Write VAR in EXTENT.");
  }
  void expect_end() {
    if (peek().kind != Tok::End)
      error("expr-syntax", peek(), "Unexpected text after a complete expression.",
            "Remove it, or join it with an operator.");
  }

  void check_new_name(const Token& t) {
    if (is_reserved_word(t.text))
      error("duplicate-name", t,
            "'" + t.text + "' is a word of the expression syntax and cannot name a stage or variable.",
            "Choose another name.");
    bool size = std::find(scope_.sizes.begin(), scope_.sizes.end(), t.text) != scope_.sizes.end();
    if (size || scope_.tensors.count(t.text) || scope_.stages.count(t.text) ||
        std::find(pure_.begin(), pure_.end(), t.text) != pure_.end() ||
        std::find(reduction_vars_.begin(), reduction_vars_.end(), t.text) != reduction_vars_.end())
      error("duplicate-name", t, "The name '" + t.text + "' is already used by a size, tensor, stage or variable.",
            "Give it a distinct name.");
  }

  static bool only_sizes(const Expr& e) {
    if (e->op == ExprOp::Var || e->op == ExprOp::Load) return false;
    for (const auto& a : e->args)
      if (!only_sizes(a)) return false;
    return true;
  }

  void check_extent(const Expr& e, const Token& at) {
    if (dtype_is_float(e.type()) || e.type() == DType::boolean || !only_sizes(e))
      error("type-error", at, "An extent must be an integer expression of sizes and literals.",
            "Write the extent as a size name, an integer or arithmetic of those.");
  }

  static Token reduction_token(const ReductionSite& r) {
    Token t;
    t.pos = r.pos;
    t.kind = Tok::Ident;
    t.text = reduce_op_name(r.node->reduce_op);
    return t;
  }

  // An expression outside a stage definition has no stage to split a reduction into.
  void check_reductions(const Expr& root, bool allow_top) {
    for (const auto& r : reductions_)
      if (!(allow_top && r.node == root.get())) {
        if (r.node->op == ExprOp::Scan) {
          Token t = reduction_token(r);
          t.text = scan_op_name(r.node->reduce_op);
          error("nested-reduction", t, "A scan must be a stage's whole definition, not part of a larger expression.",
                "Define the scan as a stage of its own and load that stage here.");
        }
        error("nested-reduction", reduction_token(r),
              "A reduction inside a larger expression is split into a stage of its own only in a stage "
              "definition; this expression stands alone.",
              "Write it in a stage definition (NAME(i in SIZE) = ...), or make the reduction the whole expression.");
      }
  }

  // Precedence climbing over the binary operators.
  Expr expression(int min_prec = 1) {
    Expr lhs = unary();
    while (true) {
      const Token& t = peek();
      ExprOp op;
      if (t.kind != Tok::Punct || !binary_op(t.text, &op) || binary_precedence(op) < min_prec) return lhs;
      Token op_token = next();
      Expr rhs = expression(binary_precedence(op) + 1);
      lhs = binary(op, lhs, rhs, op_token);
    }
  }

  static bool binary_op(const std::string& s, ExprOp* op) {
    static const std::vector<std::pair<std::string, ExprOp>> ops = {
        {"||", ExprOp::Or}, {"&&", ExprOp::And}, {"^", ExprOp::BitXor}, {"==", ExprOp::EQ}, {"!=", ExprOp::NE},
        {"<", ExprOp::LT},  {"<=", ExprOp::LE},  {">", ExprOp::GT},     {">=", ExprOp::GE}, {"+", ExprOp::Add},
        {"-", ExprOp::Sub}, {"*", ExprOp::Mul},  {"/", ExprOp::Div},    {"%", ExprOp::Mod}};
    for (const auto& [sym, o] : ops)
      if (sym == s) {
        *op = o;
        return true;
      }
    return false;
  }

  Expr binary(ExprOp op, const Expr& a, const Expr& b, const Token& t) {
    if (op == ExprOp::BitXor && (dtype_is_float(a.type()) || dtype_is_float(b.type())))
      error("type-error", t, "The exclusive or '^' needs integer operands.",
            "Apply '^' to integer index expressions only.");
    if ((op == ExprOp::And || op == ExprOp::Or) && (a.type() != DType::boolean || b.type() != DType::boolean))
      error("type-error", t, "The operands of '" + t.text + "' must be conditions (comparisons or true/false).",
            "Compare the values first, e.g. x > 0 && y > 0.");
    return make_binary(op, a, b);
  }

  Expr unary() {
    const Token& t = peek();
    if (is_punct(t, "-")) {
      const Token& n = peek(1);
      if (n.glued && (n.kind == Tok::Number || (n.kind == Tok::Ident && non_finite(n.text)))) {
        next();
        return literal(next(), true);
      }
      next();
      return make_unary(ExprOp::Neg, unary());
    }
    if (is_punct(t, "!")) {
      Token bang = next();
      Expr a = unary();
      if (a.type() != DType::boolean)
        error("type-error", bang, "'!' needs a condition.", "Negate a comparison, e.g. !(x > 0).");
      return make_unary(ExprOp::Not, a);
    }
    return primary();
  }

  static bool non_finite(const std::string& s) { return s.rfind("inf", 0) == 0 || s.rfind("nan", 0) == 0; }

  Expr literal(const Token& t, bool negative) {
    std::string s = t.text;
    size_t body_end = 0;
    bool float_like = false;
    if (t.kind == Tok::Ident) {
      body_end = 3;
      float_like = true;
    } else {
      while (body_end < s.size() && (std::isdigit(static_cast<unsigned char>(s[body_end])) || s[body_end] == '.' ||
                                     ((s[body_end] == 'e' || s[body_end] == 'E') && body_end + 1 < s.size() &&
                                      (std::isdigit(static_cast<unsigned char>(s[body_end + 1])) ||
                                       s[body_end + 1] == '+' || s[body_end + 1] == '-')) ||
                                     ((s[body_end] == '+' || s[body_end] == '-') && body_end > 0 &&
                                      (s[body_end - 1] == 'e' || s[body_end - 1] == 'E'))))
        ++body_end;
      std::string b = s.substr(0, body_end);
      float_like = b.find_first_of(".eE") != std::string::npos;
    }
    std::string body = s.substr(0, body_end), suffix = s.substr(body_end);
    if (!suffix.empty() && suffix[0] == '_') suffix = suffix.substr(1);
    bool weak = suffix.empty();
    if (suffix.size() > 1 && suffix.back() == 'w') {
      weak = true;
      suffix.pop_back();
    }
    auto bad = [&](const std::string& why) -> Expr {
      error("bad-literal", t, "The literal '" + s + "' " + why + ".",
            "Write integers as 3, 3i32 or 3i64 and floating-point numbers as 0.5, 0.5f, 0.5f64 or 0.5bf16.");
    };
    if (suffix == "f") {
      if (t.kind == Tok::Ident) return bad("cannot take the suffix f");
      float v = 0;
      auto r = std::from_chars(body.data(), body.data() + body.size(), v);
      if (r.ec != std::errc() || r.ptr != body.data() + body.size()) return bad("is not a number");
      return make_float(negative ? -static_cast<double>(v) : static_cast<double>(v), DType::f32);
    }
    DType type = float_like ? DType::f32 : DType::i32;
    if (!suffix.empty()) {
      auto d = dtype_from_name(suffix);
      if (!d || *d == DType::boolean) return bad("has an unknown type suffix '" + suffix + "'");
      type = *d;
    }
    if (dtype_is_float(type)) {
      double v = 0;
      if (t.kind == Tok::Ident) {
        v = body == "inf" ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
      } else {
        auto r = std::from_chars(body.data(), body.data() + body.size(), v);
        if (r.ec != std::errc() || r.ptr != body.data() + body.size()) return bad("is not a number");
      }
      Expr e = make_float(negative ? -v : v, type);
      return weak ? with_weak(e) : e;
    }
    if (float_like) return bad("is written as a floating-point number but has an integer type");
    int64_t v = 0;
    std::string digits = (negative ? "-" : "") + body;
    auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (r.ec != std::errc() || r.ptr != digits.data() + digits.size()) return bad("is not an integer in range");
    if (type == DType::i32 && (v > std::numeric_limits<int32_t>::max() || v < std::numeric_limits<int32_t>::min()))
      return bad("does not fit a 32-bit integer");
    Expr e = make_int(v, type);
    return weak ? with_weak(e) : e;
  }

  static Expr with_weak(const Expr& e) {
    ExprNode n = *e;
    n.weak = true;
    return make_node(std::move(n));
  }

  std::vector<Expr> arguments(const Token& fn) {
    std::vector<Expr> args;
    if (accept(")")) return args;
    do args.push_back(expression());
    while (accept(","));
    expect(")", "to close the arguments of '" + fn.text + "'");
    return args;
  }

  void arity(const Token& fn, const std::vector<Expr>& args, size_t n) {
    if (args.size() != n)
      error("wrong-argument-count", fn,
            "'" + fn.text + "' takes " + std::to_string(n) + " argument(s), not " + std::to_string(args.size()) + ".",
            "Pass exactly " + std::to_string(n) + ".");
  }

  bool starts_reduction() const {
    return peek().kind == Tok::Ident && peek(1).kind == Tok::Ident && peek(1).text == "in";
  }

  Expr primary() {
    Token t = next();
    if (is_punct(t, "(")) {
      Expr e = expression();
      expect(")", "to close the parenthesis");
      return e;
    }
    if (t.kind == Tok::Number) return literal(t, false);
    if (t.kind != Tok::Ident)
      error("expr-syntax", t, "Expected a value: a number, a name, a call or a parenthesised expression.",
            "Complete the expression.");
    if (non_finite(t.text) && !is_punct(peek(), "(") && (t.text.size() == 3 || t.text[3] == '_'))
      return literal(t, false);
    if (t.text == "true" || t.text == "false") return make_bool(t.text == "true");
    if (!is_punct(peek(), "(")) return name(t);
    next();
    if (auto op = reduction_op(t.text); op && starts_reduction()) return reduction(t, *op);
    if (t.text == "cumsum" || t.text == "cumprod")
      return scan(t, t.text == "cumsum" ? ReduceOp::Sum : ReduceOp::Product);
    return call(t);
  }

  Expr name(const Token& t) {
    if (std::find(reduction_vars_.begin(), reduction_vars_.end(), t.text) != reduction_vars_.end())
      return make_var(t.text, true);
    if (std::find(pure_.begin(), pure_.end(), t.text) != pure_.end()) return make_var(t.text);
    if (std::find(scope_.sizes.begin(), scope_.sizes.end(), t.text) != scope_.sizes.end()) return Size(t.text);
    if (scope_.tensors.count(t.text) || scope_.stages.count(t.text))
      error("wrong-index-count", t, "'" + t.text + "' is a tensor or stage and needs its indices.",
            "Index it with one expression per dimension, e.g. " + t.text + "(i, j).");
    error("unknown-name", t, "The name '" + t.text + "' is not a variable, a reduction variable or a size.",
          "Declare it in the stage's domain (NAME(" + t.text + " in SIZE) = ...), in a reduction (sum(" + t.text +
              " in SIZE: ...)) or among the problem's sizes.");
  }

  static std::optional<ReduceOp> reduction_op(const std::string& s) {
    if (s == "sum") return ReduceOp::Sum;
    if (s == "product") return ReduceOp::Product;
    if (s == "maximum" || s == "max") return ReduceOp::Max;
    if (s == "minimum" || s == "min") return ReduceOp::Min;
    if (s == "argmax") return ReduceOp::ArgMax;
    if (s == "argmin") return ReduceOp::ArgMin;
    if (s == "logsumexp") return ReduceOp::LogSumExp;
    if (s == "variance") return ReduceOp::Variance;
    return std::nullopt;
  }

  Expr reduction(const Token& fn, ReduceOp op) {
    std::vector<RVar> rvars;
    size_t outer = reduction_vars_.size();
    do {
      Token v = next();
      if (v.kind != Tok::Ident)
        error("expr-syntax", v, "Expected a reduction variable.", "Write " + fn.text + "(k in SIZE: BODY).");
      check_new_name(v);
      expect_word("in", "after the reduction variable '" + v.text + "'");
      Token at = peek();
      Expr extent = expression();
      check_extent(extent, at);
      rvars.emplace_back(v.text, extent);
      reduction_vars_.push_back(v.text);
    } while (accept(","));
    expect(":", "between the reduction's domain and its body");
    Expr body = expression();
    expect(")", "to close the reduction");
    reduction_vars_.resize(outer);
    Expr e;
    switch (op) {
      case ReduceOp::Sum:
        e = sum(rvars, body);
        break;
      case ReduceOp::Product:
        e = product(rvars, body);
        break;
      case ReduceOp::Max:
        e = maximum(rvars, body);
        break;
      case ReduceOp::Min:
        e = minimum(rvars, body);
        break;
      case ReduceOp::ArgMax:
        e = argmax(rvars, body);
        break;
      case ReduceOp::ArgMin:
        e = argmin(rvars, body);
        break;
      case ReduceOp::LogSumExp:
        e = logsumexp(rvars, body);
        break;
      case ReduceOp::Variance:
        e = variance(rvars, body);
        break;
    }
    reductions_.push_back({e.get(), fn.pos});
    return e;
  }

  // cumsum(j: BODY), cumsum(j, reverse: BODY), cumsum(j, exclusive: BODY),
  // cumsum(j, reverse, exclusive: BODY); the same for cumprod.
  Expr scan(const Token& fn, ReduceOp op) {
    Token v = next();
    if (v.kind != Tok::Ident || std::find(pure_.begin(), pure_.end(), v.text) == pure_.end())
      error("expr-syntax", v, "Expected the pure variable of the stage that '" + fn.text + "' runs along.",
            "Write " + fn.text + "(j: BODY) with j a variable of the stage's domain.");
    ScanOptions options;
    while (accept(",")) {
      Token w = next();
      bool& flag = w.text == "reverse" ? options.reverse : options.exclusive;
      if (w.kind != Tok::Ident || (w.text != "reverse" && w.text != "exclusive") || flag)
        error("expr-syntax", w, "Expected 'reverse' or 'exclusive' (each at most once) after the scan's variable.",
              "Write " + fn.text + "(" + v.text + ", reverse, exclusive: BODY), leaving out what does not apply.");
      if (options.exclusive && w.text == "reverse")
        error("expr-syntax", w, "'reverse' comes before 'exclusive' in a scan.",
              "Write " + fn.text + "(" + v.text + ", reverse, exclusive: BODY).");
      flag = true;
    }
    expect(":", "between the scan's variable and its body");
    Expr body = expression();
    expect(")", "to close the scan");
    Expr e =
        op == ReduceOp::Sum ? cumsum(Var(v.text, Expr()), body, options) : cumprod(Var(v.text, Expr()), body, options);
    reductions_.push_back({e.get(), fn.pos});
    return e;
  }

  Expr call(const Token& fn) {
    std::vector<Expr> args = arguments(fn);
    const std::string& f = fn.text;
    if (f == "select") {
      arity(fn, args, 3);
      if (args[0].type() != DType::boolean)
        error("type-error", fn, "The first argument of select must be a condition.",
              "Pass a comparison, e.g. select(x > 0, x, 0).");
      return select(args[0], args[1], args[2]);
    }
    if (f == "padded") return padded_call(fn, args);
    if (f == "min" || f == "max" || f == "pow") {
      arity(fn, args, 2);
      return f == "min" ? min(args[0], args[1]) : f == "max" ? max(args[0], args[1]) : pow(args[0], args[1]);
    }
    if (auto d = dtype_from_name(f)) {
      arity(fn, args, 1);
      return cast(*d, args[0]);
    }
    if (const MathFunction* m = math_function(f)) {
      arity(fn, args, m->params.size());
      for (size_t i = 0; i < args.size(); ++i)
        if (args[i].type() == DType::boolean)
          error("type-error", fn,
                "The argument " + std::string(m->params[i]) + " of " + f + " is a condition, not a number.",
                "Pass a number; turn a condition into one with select(cond, 1.0f, 0.0f).");
      return math_call(f, std::move(args));
    }
    if (reduction_op(f))
      error("expr-syntax", fn, "A reduction names its variables first: " + f + "(k in SIZE: BODY).",
            "Write " + f + "(k in SIZE: BODY), or several variables as " + f + "(k in K, l in L: BODY).");
    return load(fn, args);
  }

  // padded(LOAD) or padded(LOAD, VALUE): the load reads VALUE (a number, default 0)
  // where its indices leave the source's shape.
  Expr padded_call(const Token& fn, const std::vector<Expr>& args) {
    if (args.empty() || args.size() > 2)
      error("wrong-argument-count", fn,
            "'padded' takes a load and optionally the value outside, not " + std::to_string(args.size()) +
                " argument(s).",
            "Write padded(X(i, j)) or padded(X(i, j), -inf).");
    if (args[0]->op != ExprOp::Load)
      error("type-error", fn, "The first argument of padded must be a load of a tensor or stage.",
            "Write padded(X(i - 1, j - 1)) with X an input tensor or an earlier stage.");
    double outside = 0;
    if (args.size() == 2) {
      const Expr& v = args[1];
      const bool neg = v->op == ExprOp::Neg;
      const Expr& lit = neg ? v->args[0] : v;
      if (lit->op != ExprOp::FloatImm && lit->op != ExprOp::IntImm)
        error("type-error", fn, "The padding value of padded must be a number, not '" + to_string(v) + "'.",
              "Write a literal such as 0, -inf or 1.5.");
      outside = lit->op == ExprOp::FloatImm ? lit->fval : static_cast<double>(lit->ival);
      if (neg) outside = -outside;
    }
    return padded(args[0], outside);
  }

  Expr load(const Token& fn, std::vector<Expr> args) {
    size_t dims = 0;
    DType type = DType::f32;
    std::shared_ptr<const TensorDef> tensor;
    std::shared_ptr<const FuncDef> stage;
    if (auto it = scope_.tensors.find(fn.text); it != scope_.tensors.end()) {
      tensor = it->second;
      dims = tensor->shape.size();
      type = tensor->dtype;
    } else if (auto st = scope_.stages.find(fn.text); st != scope_.stages.end()) {
      stage = st->second;
      dims = stage->vars.size();
      type = stage->dtype;
    } else {
      std::string known;
      for (const auto& [n, _] : scope_.tensors) known += (known.empty() ? "" : ", ") + n;
      for (const auto& [n, _] : scope_.stages) known += (known.empty() ? "" : ", ") + n;
      error("unknown-tensor", fn, "'" + fn.text + "' is not an input tensor, an earlier stage or a function.",
            "Use one of: " + (known.empty() ? std::string("(none)") : known) + "; functions: " + function_names() +
                ", min, max, pow, select, padded and the casts f32(...), bf16(...), ...");
    }
    if (args.size() != dims)
      error("wrong-index-count", fn,
            "'" + fn.text + "' has " + std::to_string(dims) + " dimension(s) but is indexed with " +
                std::to_string(args.size()) + ".",
            "Index it with one expression per dimension.");
    for (const auto& a : args)
      if (dtype_is_float(a.type()) || a.type() == DType::boolean)
        error("type-error", fn, "An index of '" + fn.text + "' is not an integer expression.",
              "Index with variables, sizes and integer arithmetic; cast with i32(...) where needed.");
    Expr e = make_load(fn.text, type, std::move(args));
    ExprNode n = *e;
    n.tensor = tensor;
    n.func = stage;
    return make_node(std::move(n));
  }
};

}  // namespace

Expr expr_from_text(const std::string& text, const ExprScope& scope, bool allow_reduction) {
  return Parser(text, scope).whole_expression(allow_reduction);
}

Func stage_from_text(const std::string& text, const ExprScope& scope) { return Parser(text, scope).stage(); }

}  // namespace cusched
