#pragma once
// Expressions of the algorithm language: immutable trees shared by value.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dsl/dtype.h"

namespace cusched {

enum class ExprOp {
  IntImm,
  FloatImm,
  BoolImm,
  Var,        // a loop or domain variable (pure or reduction), by name
  SizeParam,  // a symbolic size, bound when the problem is instantiated
  Add,
  Sub,
  Mul,
  Div,
  Mod,
  Min,
  Max,
  Pow,
  BitXor,  // integer exclusive or (shared-memory swizzles)
  EQ,
  NE,
  LT,
  LE,
  GT,
  GE,
  And,
  Or,
  Not,
  Neg,
  Select,
  Cast,
  Call,    // math function `name` applied to args
  Load,    // element of tensor or stage `name` at args (one index per dimension)
  Reduce,  // reduction of args[0] over `rvars` with `reduce_op`
  Scan,    // prefix of args[0] along the stage's pure variable `name` with `reduce_op` (Sum or Product);
           // `ival` holds the flags kScanReverse and kScanExclusive
};

// ExprNode::ival of a Scan: from the last element backwards (reverse); the prefix before
// the element rather than through it (exclusive).
constexpr int64_t kScanReverse = 1;
constexpr int64_t kScanExclusive = 2;

enum class ReduceOp { Sum, Product, Min, Max, ArgMin, ArgMax, LogSumExp, Variance };

// Reductions whose accumulator is a pair: argmin/argmax carry the best value and its
// index, logsumexp the running maximum m and the sum s of exp(v - m) (the result is
// m + log(s)), variance the mean and the sum of squared deviations from it (and a third
// value, below). Two pairs combine by a rule of their own, so a pair reduction splits
// across threads like any other.
bool reduce_carries_pair(ReduceOp op);
// Reductions whose accumulator carries a third value: variance's count of values taken
// (Welford's update; two partial results combine by Chan's rule, which needs their counts).
bool reduce_carries_triple(ReduceOp op);
// argmin or argmax: the result is the index of the pair.
bool is_arg_reduce(ReduceOp op);
// Whether rfactor can split the reduction (each part's result one value that a stage holds
// and the final stage reduces again): every reduction but argmin, argmax and variance.
bool reduce_rfactors(ReduceOp op);

struct ExprNode;
struct FuncDef;
struct TensorDef;

class Expr {
 public:
  Expr() = default;
  Expr(int v);      // NOLINT: literals convert implicitly, as in the math they stand for
  Expr(int64_t v);  // NOLINT
  Expr(double v);   // NOLINT
  Expr(float v);    // NOLINT
  explicit Expr(std::shared_ptr<const ExprNode> n) : node_(std::move(n)) {}

  bool defined() const { return node_ != nullptr; }
  const ExprNode& operator*() const { return *node_; }
  const ExprNode* operator->() const { return node_.get(); }
  const ExprNode* get() const { return node_.get(); }
  DType type() const;

 private:
  std::shared_ptr<const ExprNode> node_;
};

struct ReductionVar {
  std::string name;
  int64_t extent = 0;  // concrete when known; 0 with extent_expr when symbolic
  Expr extent_expr;
};

struct ExprNode {
  ExprOp op = ExprOp::IntImm;
  DType type = DType::i32;
  int64_t ival = 0;
  double fval = 0;
  std::string name;  // Var, SizeParam, Call function, Load target
  std::vector<Expr> args;
  ReduceOp reduce_op = ReduceOp::Sum;
  std::vector<ReductionVar> rvars;
  bool is_reduction_var = false;            // Var: true for an RVar
  bool weak = false;                        // an untyped literal that adopts its partner's type
  std::shared_ptr<const FuncDef> func;      // Load of a stage
  std::shared_ptr<const TensorDef> tensor;  // Load of an input tensor
};

Expr make_int(int64_t v, DType t = DType::i32);
Expr make_float(double v, DType t = DType::f32);
Expr make_bool(bool v);
Expr make_var(const std::string& name, bool reduction = false);
Expr make_binary(ExprOp op, Expr a, Expr b);
Expr make_unary(ExprOp op, Expr a);
Expr make_call(const std::string& fn, std::vector<Expr> args, DType t);
Expr make_load(const std::string& target, DType t, std::vector<Expr> indices);
Expr make_node(ExprNode n);

Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
Expr operator/(Expr a, Expr b);
Expr operator%(Expr a, Expr b);
Expr bit_xor(Expr a, Expr b);  // integers only
Expr operator-(Expr a);
Expr operator==(Expr a, Expr b);
Expr operator!=(Expr a, Expr b);
Expr operator<(Expr a, Expr b);
Expr operator<=(Expr a, Expr b);
Expr operator>(Expr a, Expr b);
Expr operator>=(Expr a, Expr b);
Expr operator&&(Expr a, Expr b);
Expr operator||(Expr a, Expr b);
Expr operator!(Expr a);

Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);
Expr pow(Expr a, Expr b);
Expr select(Expr cond, Expr t, Expr f);
Expr cast(DType t, Expr e);
Expr exp(Expr e);
Expr log(Expr e);
Expr sqrt(Expr e);
Expr rsqrt(Expr e);
Expr tanh(Expr e);
Expr erf(Expr e);
Expr abs(Expr e);
Expr sigmoid(Expr e);
Expr softplus(Expr e);  // PyTorch's: beta 1, threshold 20
Expr log1p(Expr e);
Expr expm1(Expr e);
Expr floor(Expr e);
Expr ceil(Expr e);
Expr round(Expr e);  // halves to even, as torch.round
Expr sign(Expr e);   // -1, 0 or +1
Expr sin(Expr e);
Expr cos(Expr e);
Expr clamp(Expr e, Expr lo, Expr hi);  // min(max(e, lo), hi); hardtanh

// The math functions of the language (dsl/math_function.h declares them with their
// meaning): true for a known name, with its number of arguments.
bool is_math_function(const std::string& name, int* arity = nullptr);

// The C/C++ infix symbol of a binary operator ("+", "<=", "&&", ...); nullptr for
// operators written as calls (min, max, pow).
const char* binary_operator_symbol(ExprOp op);

std::string to_string(const Expr& e);
bool is_const_int(const Expr& e, int64_t* v = nullptr);

}  // namespace cusched
