#pragma once
// Names of the algorithm's domains: sizes, pure variables and reduction variables.
#include <string>
#include <vector>

#include "dsl/expr.h"

namespace cusched {

// A symbolic size such as N; bound to a number when a problem is instantiated.
class Size {
 public:
  explicit Size(std::string name);
  operator Expr() const { return expr_; }  // NOLINT
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  Expr expr_;
};

// A pure variable of a stage's domain, with its extent (0 .. extent-1).
class Var {
 public:
  Var(std::string name, Expr extent);
  operator Expr() const { return make_var(name_); }  // NOLINT
  const std::string& name() const { return name_; }
  const Expr& extent() const { return extent_; }

 private:
  std::string name_;
  Expr extent_;
};

// A reduction variable (one dimension of a reduction domain).
class RVar {
 public:
  RVar(std::string name, Expr extent);
  operator Expr() const { return make_var(name_, true); }  // NOLINT
  const std::string& name() const { return name_; }
  const Expr& extent() const { return extent_; }

 private:
  std::string name_;
  Expr extent_;
};

// Reductions over one or several reduction variables.
Expr sum(const RVar& r, Expr body);
Expr sum(const std::vector<RVar>& r, Expr body);
Expr product(const RVar& r, Expr body);
Expr product(const std::vector<RVar>& r, Expr body);
Expr maximum(const RVar& r, Expr body);
Expr maximum(const std::vector<RVar>& r, Expr body);
Expr minimum(const RVar& r, Expr body);
Expr minimum(const std::vector<RVar>& r, Expr body);
// The index (i64, flattened over the reduction variables, first one outermost) of the
// largest / smallest body value; ties resolve to the smallest index, as torch.argmax.
Expr argmax(const RVar& r, Expr body);
Expr argmax(const std::vector<RVar>& r, Expr body);
Expr argmin(const RVar& r, Expr body);
Expr argmin(const std::vector<RVar>& r, Expr body);
// log(sum(exp(body))) in one pass that never overflows: the reduction carries the running
// maximum m and the sum of exp(body - m), and gives m + log(sum), as torch.logsumexp.
// The body is floating-point.
Expr logsumexp(const RVar& r, Expr body);
Expr logsumexp(const std::vector<RVar>& r, Expr body);
// The population variance of the body over the domain (the mean of squared deviations
// from the mean, as torch.var(unbiased=False)) in one numerically stable pass: the
// reduction carries the count, the mean and the sum of squared deviations (Welford), and
// partial results combine by Chan's rule. The body is floating-point.
Expr variance(const RVar& r, Expr body);
Expr variance(const std::vector<RVar>& r, Expr body);

// Scans (prefix sums and products) along a pure variable `v` of the stage they define:
// Y(..., v, ...) = cumsum(v, body) is the sum of body over v' = 0 .. v (with reverse,
// v' = v .. N-1; with exclusive, v itself left out, so the first element is the
// identity), body evaluated with v bound to v'. As torch.cumsum / torch.cumprod along
// the dimension of v. A scan is a stage's whole body.
struct ScanOptions {
  bool reverse = false;
  bool exclusive = false;
};
Expr cumsum(const Var& v, Expr body, ScanOptions options = {});
Expr cumprod(const Var& v, Expr body, ScanOptions options = {});
// "cumsum" or "cumprod".
std::string scan_op_name(ReduceOp op);

std::string reduce_op_name(ReduceOp op);

}  // namespace cusched
