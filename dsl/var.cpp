#include "dsl/var.h"

#include "dsl/error.h"

namespace cusched {

Size::Size(std::string name) : name_(std::move(name)) {
  ExprNode n;
  n.op = ExprOp::SizeParam;
  n.type = DType::i64;
  n.name = name_;
  expr_ = make_node(std::move(n));
}

Var::Var(std::string name, Expr extent) : name_(std::move(name)), extent_(std::move(extent)) {}
RVar::RVar(std::string name, Expr extent) : name_(std::move(name)), extent_(std::move(extent)) {}

static Expr reduce(ReduceOp op, const std::vector<RVar>& rs, Expr body) {
  if (rs.empty())
    fail("empty-reduction", "A reduction needs at least one reduction variable.",
         "Pass an RVar, or a list of RVars, as the first argument.");
  if (!body.defined()) fail("undefined-expr", "The body of a reduction is undefined.", "Define the body Expr first.");
  ExprNode n;
  n.op = ExprOp::Reduce;
  n.reduce_op = op;
  if (op == ReduceOp::LogSumExp && !dtype_is_float(body.type()) && !body->weak)
    fail("logsumexp-integer-body", "logsumexp of an integer body: exp and log are floating-point.",
         "Convert the body first, e.g. logsumexp(k in N: f32(x(k))).");
  if (op == ReduceOp::Variance && !dtype_is_float(body.type()) && !body->weak)
    fail("variance-integer-body", "variance of an integer body: its mean and deviations are floating-point.",
         "Convert the body first, e.g. variance(k in N: f32(x(k))).");
  n.type = is_arg_reduce(op) ? DType::i64 : body.type();
  if (body->weak && n.type != DType::i64) n.type = dtype_is_float(body.type()) ? DType::f32 : DType::i32;
  for (const auto& r : rs) {
    ReductionVar v;
    v.name = r.name();
    v.extent_expr = r.extent();
    is_const_int(r.extent(), &v.extent);
    n.rvars.push_back(v);
  }
  n.args = {std::move(body)};
  return make_node(std::move(n));
}

Expr sum(const RVar& r, Expr b) { return reduce(ReduceOp::Sum, {r}, std::move(b)); }
Expr sum(const std::vector<RVar>& r, Expr b) { return reduce(ReduceOp::Sum, r, std::move(b)); }
Expr product(const RVar& r, Expr b) { return reduce(ReduceOp::Product, {r}, std::move(b)); }
Expr product(const std::vector<RVar>& r, Expr b) { return reduce(ReduceOp::Product, r, std::move(b)); }
Expr maximum(const RVar& r, Expr b) { return reduce(ReduceOp::Max, {r}, std::move(b)); }
Expr maximum(const std::vector<RVar>& r, Expr b) { return reduce(ReduceOp::Max, r, std::move(b)); }
Expr minimum(const RVar& r, Expr b) { return reduce(ReduceOp::Min, {r}, std::move(b)); }
Expr minimum(const std::vector<RVar>& r, Expr b) { return reduce(ReduceOp::Min, r, std::move(b)); }
Expr argmax(const RVar& r, Expr b) { return reduce(ReduceOp::ArgMax, {r}, std::move(b)); }
Expr argmax(const std::vector<RVar>& r, Expr b) { return reduce(ReduceOp::ArgMax, r, std::move(b)); }
Expr argmin(const RVar& r, Expr b) { return reduce(ReduceOp::ArgMin, {r}, std::move(b)); }
Expr argmin(const std::vector<RVar>& r, Expr b) { return reduce(ReduceOp::ArgMin, r, std::move(b)); }
Expr logsumexp(const RVar& r, Expr b) { return reduce(ReduceOp::LogSumExp, {r}, std::move(b)); }
Expr logsumexp(const std::vector<RVar>& r, Expr b) { return reduce(ReduceOp::LogSumExp, r, std::move(b)); }
Expr variance(const RVar& r, Expr b) { return reduce(ReduceOp::Variance, {r}, std::move(b)); }
Expr variance(const std::vector<RVar>& r, Expr b) { return reduce(ReduceOp::Variance, r, std::move(b)); }

bool reduce_carries_pair(ReduceOp op) {
  return is_arg_reduce(op) || op == ReduceOp::LogSumExp || reduce_carries_triple(op);
}
bool reduce_carries_triple(ReduceOp op) { return op == ReduceOp::Variance; }
bool is_arg_reduce(ReduceOp op) { return op == ReduceOp::ArgMax || op == ReduceOp::ArgMin; }
bool reduce_rfactors(ReduceOp op) { return !is_arg_reduce(op) && !reduce_carries_triple(op); }

static Expr scan(ReduceOp op, const Var& v, Expr body, ScanOptions options) {
  if (!body.defined()) fail("undefined-expr", "The body of a scan is undefined.", "Define the body Expr first.");
  if (body->op == ExprOp::Reduce || body->op == ExprOp::Scan)
    fail("nested-reduction",
         "The body of a scan is itself a " + std::string(body->op == ExprOp::Scan ? "scan" : "reduction") + ".",
         "Define the inner reduction or scan as its own stage with compute() and scan that stage.");
  ExprNode n;
  n.op = ExprOp::Scan;
  n.reduce_op = op;
  n.name = v.name();
  n.type = body.type();
  if (body->weak) n.type = dtype_is_float(body.type()) ? DType::f32 : DType::i32;
  n.ival = (options.reverse ? kScanReverse : 0) | (options.exclusive ? kScanExclusive : 0);
  n.args = {std::move(body)};
  return make_node(std::move(n));
}

Expr cumsum(const Var& v, Expr body, ScanOptions o) { return scan(ReduceOp::Sum, v, std::move(body), o); }
Expr cumprod(const Var& v, Expr body, ScanOptions o) { return scan(ReduceOp::Product, v, std::move(body), o); }

std::string scan_op_name(ReduceOp op) { return op == ReduceOp::Product ? "cumprod" : "cumsum"; }

std::string reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
      return "sum";
    case ReduceOp::Product:
      return "product";
    case ReduceOp::Min:
      return "minimum";
    case ReduceOp::Max:
      return "maximum";
    case ReduceOp::ArgMin:
      return "argmin";
    case ReduceOp::ArgMax:
      return "argmax";
    case ReduceOp::LogSumExp:
      return "logsumexp";
    case ReduceOp::Variance:
      return "variance";
  }
  return "?";
}

}  // namespace cusched
