#include "codegen/cuda_expr_emitter.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>

#include "codegen/fast_math.h"
#include "dsl/error.h"
#include "dsl/math_function.h"

namespace cusched {

namespace {

constexpr int kPrimary = 0, kUnary = 2, kMultiplicative = 3, kAdditive = 4, kRelational = 6, kEquality = 7,
              kLogicalAnd = 11, kLogicalOr = 12, kConditional = 13;

bool is_plain(DType t) {
  return t == DType::f32 || t == DType::f64 || t == DType::i32 || t == DType::i64 || t == DType::boolean;
}
bool is_half(DType t) { return t == DType::f16 || t == DType::bf16; }

std::string shortest(double x) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}
std::string shortest(float x) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

// A decimal literal always carries a '.' or an exponent, so that a suffix makes it a float.
std::string with_point(std::string s) {
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

CudaValue int_literal(int64_t v, DType t) {
  if (t == DType::boolean) return {v ? "true" : "false", t, kPrimary};
  if (t == DType::i32) {
    if (v == std::numeric_limits<int32_t>::min()) return {"(-2147483647 - 1)", t, kPrimary};
    return {std::to_string(v), t, v < 0 ? kUnary : kPrimary};
  }
  if (v == std::numeric_limits<int64_t>::min()) return {"(-9223372036854775807LL - 1LL)", t, kPrimary};
  return {std::to_string(v) + "LL", t, v < 0 ? kUnary : kPrimary};
}

CudaValue float_literal(double x, DType t) {
  if (t == DType::f32) {
    float f = static_cast<float>(x);
    if (std::isnan(f)) return {"cusched::nan_f32()", t, kPrimary};
    if (std::isinf(f)) return {f < 0 ? "-cusched::inf_f32()" : "cusched::inf_f32()", t, f < 0 ? kUnary : kPrimary};
    return {with_point(shortest(f)) + "f", t, std::signbit(f) ? kUnary : kPrimary};
  }
  if (t == DType::f64) {
    if (std::isnan(x)) return {"cusched::nan_f64()", t, kPrimary};
    if (std::isinf(x)) return {x < 0 ? "-cusched::inf_f64()" : "cusched::inf_f64()", t, x < 0 ? kUnary : kPrimary};
    return {with_point(shortest(x)), t, std::signbit(x) ? kUnary : kPrimary};
  }
  // f16 / bf16: one rounding from the double value.
  CudaValue d = float_literal(x, DType::f64);
  return {"cusched::convert<" + cuda_type_name(t) + ">(" + d.text + ")", t, kPrimary};
}

int binary_precedence(ExprOp op) {
  switch (op) {
    case ExprOp::Mul:
    case ExprOp::Div:
    case ExprOp::Mod:
      return kMultiplicative;
    case ExprOp::Add:
    case ExprOp::Sub:
      return kAdditive;
    case ExprOp::LT:
    case ExprOp::LE:
    case ExprOp::GT:
    case ExprOp::GE:
      return kRelational;
    case ExprOp::EQ:
    case ExprOp::NE:
      return kEquality;
    case ExprOp::And:
      return kLogicalAnd;
    case ExprOp::Or:
      return kLogicalOr;
    default:
      return kPrimary;
  }
}

bool is_zero_literal(const CudaValue& v) { return v.text == "0" || v.text == "0LL"; }

// The CUDA function that computes the math function `name` on float operands of type t
// (f32 or f64): the CUDA math library's (expf, exp; rintf for round, halves to even),
// or the device library's overloads (cusched_math.cuh).
std::string cuda_math_function(const std::string& name, DType t) {
  if (name == "sigmoid" || name == "softplus" || name == "sign" || name == "clamp") return "cusched::" + name;
  std::string fn = name == "abs" ? "fabs" : name == "round" ? "rint" : name;
  return t == DType::f32 ? fn + "f" : fn;
}

}  // namespace

std::string cuda_type_name(DType t) { return dtype_c_name(t); }

std::string operand_text(const CudaValue& v, int p, bool right) {
  bool wrap = right ? v.precedence >= p : v.precedence > p;
  // && inside || and comparisons inside comparisons read better parenthesized.
  if (p == kLogicalOr && v.precedence == kLogicalAnd) wrap = true;
  if ((p == kRelational || p == kEquality) && (v.precedence == kRelational || v.precedence == kEquality)) wrap = true;
  return wrap ? "(" + v.text + ")" : v.text;
}

CudaExprEmitter::CudaExprEmitter(BufferLookup lookup, bool reference_f64)
    : lookup_(std::move(lookup)), reference_f64_(reference_f64) {}

DType CudaExprEmitter::storage_type(DType t) const {
  if (reference_f64_ && dtype_is_float(t)) return DType::f64;
  if (wide_ && t == DType::i32) return DType::i64;
  if (narrow_mode_ && t == DType::i64) return DType::i32;
  return t;
}

// The type an operation whose IR type is `t` computes in.
DType CudaExprEmitter::arith_type(DType t) const {
  t = storage_type(t);
  if (is_half(t)) return DType::f32;
  if (t == DType::boolean) return wide_ ? DType::i64 : DType::i32;
  return t;
}

// The type both operands of a comparison are converted to.
DType CudaExprEmitter::common_type(const Expr& a, const Expr& b) const {
  DType ta = a.type(), tb = b.type();
  bool fa = dtype_is_float(ta), fb = dtype_is_float(tb);
  DType t;
  if (fa && fb)
    t = float_rank(ta) >= float_rank(tb) ? ta : tb;
  else if (fa)
    t = ta;
  else if (fb)
    t = tb;
  else
    t = (ta == DType::i64 || tb == DType::i64) ? DType::i64 : DType::i32;
  return arith_type(t);
}

CudaValue CudaExprEmitter::convert(CudaValue v, DType to) const {
  if (v.type == to) return v;
  if (is_plain(v.type) && is_plain(to))
    return {"static_cast<" + cuda_type_name(to) + ">(" + v.text + ")", to, kPrimary};
  return {"cusched::convert<" + cuda_type_name(to) + ">(" + v.text + ")", to, kPrimary};
}

// A result computed in f32 for an f16 / bf16 operation, rounded back to that type.
CudaValue CudaExprEmitter::round_back(CudaValue v, DType node_type) const {
  DType st = storage_type(node_type);
  return is_half(st) ? convert(std::move(v), st) : v;
}

CudaValue CudaExprEmitter::literal(const ExprNode& n, DType t) const {
  if (n.op == ExprOp::FloatImm) {
    if (dtype_is_float(t)) return float_literal(n.fval, t);
    return convert(float_literal(n.fval, DType::f64), t);
  }
  if (dtype_is_float(t)) return float_literal(static_cast<double>(n.ival), t);
  return int_literal(n.ival, t);
}

CudaValue CudaExprEmitter::emit_as(const Expr& e, DType t) {
  if (!e.defined())
    fail("undefined-expr", "The IR holds an undefined expression.", "Lower the program again; this is a lowering bug.");
  if (e->op == ExprOp::IntImm || e->op == ExprOp::FloatImm || e->op == ExprOp::BoolImm) {
    if (e->op == ExprOp::BoolImm && t != DType::boolean) return convert(int_literal(e->ival, DType::boolean), t);
    return literal(*e, t);
  }
  return convert(emit(e), t);
}

CudaValue CudaExprEmitter::var(const ExprNode& n) const {
  DType t = storage_type(n.type);
  if (auto it = var_values.find(n.name); it != var_values.end()) return int_literal(it->second, t);
  CudaValue v;
  if (n.name == "tid") {
    v = {"cusched::linear_thread_index()", DType::i32, kPrimary};
  } else if (n.name.rfind("threadIdx.", 0) == 0 || n.name.rfind("blockIdx.", 0) == 0) {
    v = {"static_cast<int>(" + n.name + ")", DType::i32, kPrimary};
  } else {
    v = {n.name, DType::i32, kPrimary};
  }
  return convert(v, t);
}

std::string CudaExprEmitter::index_text(const EmittedBuffer& b, const Expr& index) {
  const bool saved = wide_, saved_narrow_mode = narrow_mode_;
  auto saved_narrow = std::move(narrow_);
  wide_ = b.wide_index;
  narrow_mode_ = false;
  narrow_.clear();
  if (wide_ || index.type() == DType::i64) {
    VarIntervals vars = var_ranges;
    for (const auto& [name, value] : var_values) vars[name] = IntInterval{value, value};
    narrow_ = int32_subtrees(index, vars);
  }
  DType t = (b.wide_index || index.type() == DType::i64) ? DType::i64 : DType::i32;
  std::string text = emit_as(index, t).text;
  wide_ = saved;
  narrow_mode_ = saved_narrow_mode;
  narrow_ = std::move(saved_narrow);
  return text;
}

std::string CudaExprEmitter::element(const std::string& buffer, const Expr& index) {
  const EmittedBuffer* b = lookup_(buffer);
  if (!b)
    fail("unknown-buffer",
         "The IR stores to buffer '" + buffer + "', which is neither a kernel parameter nor allocated in scope.",
         "Add the buffer to the kernel's params or allocate it around its uses; this is a lowering bug.");
  return buffer + "[" + index_text(*b, index) + "]";
}

CudaValue CudaExprEmitter::load(const ExprNode& n) {
  const EmittedBuffer* b = lookup_(n.name);
  if (auto it = load_texts.find(&n); it != load_texts.end()) return {it->second, b ? b->dtype : n.type, kPrimary};
  if (!b)
    fail("unknown-buffer",
         "The IR loads from buffer '" + n.name + "', which is neither a kernel parameter nor allocated in scope.",
         "Add the buffer to the kernel's params or allocate it around its uses; this is a lowering bug.");
  if (n.args.size() != 1)
    fail("malformed-ir", "The IR loads from '" + n.name + "' with " + std::to_string(n.args.size()) + " indices.",
         "Loads in the loop IR take one flat element index; this is a lowering bug.");
  const std::string element = n.name + "[" + index_text(*b, n.args[0]) + "]";
  if (l2_policies.count(n.name)) return {load_through(n.name, "&" + element), b->dtype, kPrimary};
  if (b->f32_words) return {"__uint_as_float(" + element + ")", DType::f32, kPrimary};
  return {element, b->dtype, kPrimary};
}

std::string CudaExprEmitter::load_through(const std::string& buffer, const std::string& pointer) const {
  auto policy = l2_policies.find(buffer);
  return policy == l2_policies.end() ? "*" + pointer : "cusched::load_l2(" + pointer + ", " + policy->second + ")";
}

CudaValue CudaExprEmitter::binary(const ExprNode& n) {
  const Expr &a = n.args[0], &b = n.args[1];
  switch (n.op) {
    case ExprOp::And:
    case ExprOp::Or: {
      int p = binary_precedence(n.op);
      return {operand_text(emit_as(a, DType::boolean), p) + " " + binary_operator_symbol(n.op) + " " +
                  operand_text(emit_as(b, DType::boolean), p, true),
              DType::boolean, p};
    }
    case ExprOp::EQ:
    case ExprOp::NE:
    case ExprOp::LT:
    case ExprOp::LE:
    case ExprOp::GT:
    case ExprOp::GE: {
      DType t = common_type(a, b);
      int p = binary_precedence(n.op);
      return {operand_text(emit_as(a, t), p) + " " + binary_operator_symbol(n.op) + " " +
                  operand_text(emit_as(b, t), p, true),
              DType::boolean, p};
    }
    default:
      break;
  }
  DType t = arith_type(n.type);
  if (n.op == ExprOp::Pow && !dtype_is_float(t)) t = reference_f64_ ? DType::f64 : DType::f32;
  CudaValue va = emit_as(a, t), vb = emit_as(b, t);
  // Integer "+ 0" (a vector lane or loop start substituted as 0) is left out.
  if (!dtype_is_float(t) && (n.op == ExprOp::Add || n.op == ExprOp::Sub)) {
    if (is_zero_literal(vb)) return va;
    if (n.op == ExprOp::Add && is_zero_literal(va)) return vb;
  }
  CudaValue r;
  bool f32 = t == DType::f32, f = dtype_is_float(t);
  switch (n.op) {
    case ExprOp::Min:
      r = {std::string(f ? (f32 ? "fminf" : "fmin") : "cusched::min_of") + "(" + va.text + ", " + vb.text + ")", t,
           kPrimary};
      break;
    case ExprOp::Max:
      r = {std::string(f ? (f32 ? "fmaxf" : "fmax") : "cusched::max_of") + "(" + va.text + ", " + vb.text + ")", t,
           kPrimary};
      break;
    case ExprOp::Pow:
      r = {std::string(f32 ? "powf" : "pow") + "(" + va.text + ", " + vb.text + ")", t, kPrimary};
      break;
    case ExprOp::BitXor:  // parenthesised: ^ binds looser than comparisons in C++
      r = {"(" + va.text + " ^ " + vb.text + ")", t, kPrimary};
      break;
    case ExprOp::Mod:
      if (f) {
        r = {std::string(f32 ? "fmodf" : "fmod") + "(" + va.text + ", " + vb.text + ")", t, kPrimary};
        break;
      }
      [[fallthrough]];
    case ExprOp::Add:
    case ExprOp::Sub:
    case ExprOp::Mul:
    case ExprOp::Div: {
      int p = binary_precedence(n.op);
      // An integer plus a negative constant reads as a subtraction (x - 4, not x + -4).
      int64_t k = 0;
      if (n.op == ExprOp::Add && !f && is_const_int(n.args[1], &k) && k < 0 && k != INT64_MIN) {
        r = {operand_text(va, p) + " - " + std::to_string(-k), t, p};
        break;
      }
      r = {operand_text(va, p) + " " + binary_operator_symbol(n.op) + " " + operand_text(vb, p, true), t, p};
      break;
    }
    default:
      fail("malformed-ir",
           "The IR holds an expression the CUDA emitter does not know: " + to_string(make_node(n)) + ".",
           "Lower the program again; this is a lowering bug.");
  }
  return round_back(std::move(r), n.type);
}

CudaValue CudaExprEmitter::call(const ExprNode& n) {
  if (const FastMathFunction* f = fast_math_function(n.name)) {
    if (static_cast<int>(n.args.size()) != f->arity)
      fail("malformed-ir", "The IR calls " + n.name + " with " + std::to_string(n.args.size()) + " arguments.",
           "Pass " + std::to_string(f->arity) + "; this is a lowering bug.");
    // The reference computes the exact operation in double.
    if (reference_f64_) return emit(exact_form(*f, n.args));
    std::string text = std::string(f->intrinsic) + "(";
    for (size_t i = 0; i < n.args.size(); ++i) text += (i ? ", " : "") + text_as(n.args[i], DType::f32);
    return round_back({text + ")", DType::f32, kPrimary}, n.type);
  }
  if (n.name == "round_tf32" || n.name == "round_bf16" || n.name == "round_f16") {
    if (n.args.size() != 1)
      fail("malformed-ir", "The IR calls " + n.name + " with " + std::to_string(n.args.size()) + " arguments.",
           "Pass one f32 value.");
    // The reference computes the algorithm itself, without operand rounding.
    if (reference_f64_) return emit_as(n.args[0], DType::f64);
    return {"cusched::" + n.name + "(" + text_as(n.args[0], DType::f32) + ")", DType::f32, kPrimary};
  }
  const MathFunction* m = math_function(n.name);
  if (!m || n.args.size() != m->params.size())
    fail("unknown-function",
         "The IR calls '" + n.name + "' with " + std::to_string(n.args.size()) +
             " arguments, which the CUDA emitter does not know.",
         "Call the math functions of the language with their arguments (docs/problem-files.md), or the "
         "round_tf32/bf16/f16 functions.");
  DType t = arith_type(n.type);
  if (!dtype_is_float(t)) {
    // Integer results: abs, sign and clamp compute in the integer type; floor, ceil and
    // round of an integer are the integer itself.
    if (m->result != MathResult::Float) {
      if (n.name == "floor" || n.name == "ceil" || n.name == "round") return emit_as(n.args[0], t);
      std::string fn = n.name == "abs" ? (t == DType::i64 ? "llabs" : "abs") : "cusched::" + n.name;
      std::string text = fn + "(";
      for (size_t i = 0; i < n.args.size(); ++i) text += (i ? ", " : "") + emit_as(n.args[i], t).text;
      return {text + ")", t, kPrimary};
    }
    t = reference_f64_ ? DType::f64 : DType::f32;
  }
  std::string text = cuda_math_function(n.name, t) + "(";
  for (size_t i = 0; i < n.args.size(); ++i) text += (i ? ", " : "") + text_as(n.args[i], t);
  return round_back({text + ")", t, kPrimary}, n.type);
}

CudaValue CudaExprEmitter::emit(const Expr& e) {
  if (!e.defined())
    fail("undefined-expr", "The IR holds an undefined expression.", "Lower the program again; this is a lowering bug.");
  const ExprNode& n = *e;
  if (auto it = bound.find(&n); it != bound.end()) return it->second;
  if (!narrow_mode_ && narrow_.count(&n) && n.op != ExprOp::IntImm) {
    // A subtree of a long long index whose values all fit in int: computed in int.
    const bool saved_wide = wide_;
    wide_ = false;
    narrow_mode_ = true;
    CudaValue v = emit(e);
    narrow_mode_ = false;
    wide_ = saved_wide;
    return v;
  }
  switch (n.op) {
    case ExprOp::IntImm:
    case ExprOp::FloatImm:
    case ExprOp::BoolImm:
      return literal(n, storage_type(n.type));
    case ExprOp::Var:
      return var(n);
    case ExprOp::SizeParam:
      fail("unbound-size", "The IR still holds the symbolic size '" + n.name + "'.",
           "Bind every size before lowering (instantiate the problem at concrete shapes).");
    case ExprOp::Not:
      return {"!" + operand_text(emit_as(n.args[0], DType::boolean), kUnary), DType::boolean, kUnary};
    case ExprOp::Neg: {
      DType t = arith_type(n.type);
      return round_back({"-" + operand_text(emit_as(n.args[0], t), kUnary), t, kUnary}, n.type);
    }
    case ExprOp::Select: {
      DType t = storage_type(n.type);
      if (auto it = load_texts.find(&n); it != load_texts.end())
        return {it->second, t, kPrimary};  // one lane of a vector read
      CudaValue c = emit_as(n.args[0], DType::boolean), a = emit_as(n.args[1], t), b = emit_as(n.args[2], t);
      return {operand_text(c, kConditional - 1) + " ? " + operand_text(a, kConditional - 1) + " : " +
                  operand_text(b, kConditional - 1),
              t, kConditional};
    }
    case ExprOp::Cast:
      return emit_as(n.args[0], storage_type(n.type));
    case ExprOp::Call:
      return call(n);
    case ExprOp::Load:
      return load(n);
    case ExprOp::Reduce:
    case ExprOp::Scan:
      fail("malformed-ir", "The IR still holds a reduction or scan expression: " + to_string(e) + ".",
           "Lowering turns reductions and scans into loops; this is a lowering bug.");
    default:
      return binary(n);
  }
}

}  // namespace cusched
