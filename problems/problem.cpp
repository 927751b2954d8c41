#include "problems/problem.h"

#include <algorithm>

#include "dsl/error.h"

namespace cusched {

double Problem::written_bytes(const SizeBindings& s) const {
  double bytes = 0;
  for (const auto& out : pipeline.outputs()) {
    const FuncDef* f = pipeline.find_stage(out);
    double n = dtype_bytes(f->dtype);
    for (const auto& e : f->extents) n *= static_cast<double>(eval_int(e, s));
    bytes += n;
  }
  return bytes;
}

double Problem::min_bytes(const SizeBindings& s) const {
  double bytes = 0;
  for (const auto& in : pipeline.inputs()) {
    double n = dtype_bytes(in->dtype);
    for (auto d : eval_shape(in->shape, s)) n *= static_cast<double>(d);
    bytes += n;
  }
  return bytes + written_bytes(s);
}

const SizeBindings& Problem::size(const std::string& which) const {
  auto it = sizes.find(which);
  if (it == sizes.end()) {
    std::string names;
    for (const auto& [n, _] : sizes) names += (names.empty() ? "" : ", ") + n;
    fail("unknown-size", "Problem '" + name + "' has no size named '" + which + "'.",
         "Use one of its sizes (" + names + ") with --size, or give the sizes with --shape NAME=V,....");
  }
  return it->second;
}

std::string Problem::add_16_byte_rows_size(const std::string& which) {
  SizeBindings rows = size(which);
  for (auto& [dim, extent] : rows) extent = (extent + 3) / 4 * 4;
  const std::string added = which + "_rows16";
  sizes[added] = rows;
  return added;
}

std::string Problem::add_scaled_size(const std::string& which, int64_t factor) {
  SizeBindings scaled = size(which);
  const SizeBindings& cap = size(default_size);
  for (auto& [dim, extent] : scaled) {
    auto c = cap.find(dim);
    extent = c == cap.end() ? extent * factor : std::min(extent * factor, std::max(extent, c->second));
  }
  const std::string added = which + "_x" + std::to_string(factor);
  sizes[added] = scaled;
  return added;
}

std::string Problem::add_divided_size(const std::string& which, int64_t divisor, const std::string& floor) {
  SizeBindings divided = size(which);
  const SizeBindings& low = size(floor);
  for (auto& [dim, extent] : divided) {
    auto l = low.find(dim);
    extent = std::max((extent + divisor - 1) / divisor, l == low.end() ? int64_t{1} : l->second);
  }
  const std::string added = which + "_div" + std::to_string(divisor);
  sizes[added] = divided;
  return added;
}

namespace {

// The value of a flop-count expression: integer nodes in int64, floating-point nodes in double.
double flop_value(const Expr& e, const SizeBindings& s);

int64_t flop_integer(const Expr& e, const SizeBindings& s) {
  if (dtype_is_float(e.type())) return static_cast<int64_t>(flop_value(e, s));
  return eval_int(e, s);
}

double flop_value(const Expr& e, const SizeBindings& s) {
  if (!dtype_is_float(e.type())) return static_cast<double>(eval_int(e, s));
  const ExprNode& n = *e;
  auto arg = [&](int i) { return flop_value(n.args[i], s); };
  switch (n.op) {
    case ExprOp::FloatImm:
      return n.fval;
    case ExprOp::Cast:
      return dtype_is_float(n.args[0].type()) ? arg(0) : static_cast<double>(flop_integer(n.args[0], s));
    case ExprOp::Add:
      return arg(0) + arg(1);
    case ExprOp::Sub:
      return arg(0) - arg(1);
    case ExprOp::Mul:
      return arg(0) * arg(1);
    case ExprOp::Div:
      return arg(0) / arg(1);
    case ExprOp::Neg:
      return -arg(0);
    default:
      fail("bad-flops", "The FLOP count '" + to_string(e) + "' is not arithmetic of numbers and sizes.",
           "Write it with literals, size names, +, -, * and /, e.g. 2.0 * M * N * K.");
  }
}

}  // namespace

double FlopCount::operator()(const SizeBindings& sizes) const {
  if (!expr.defined()) return 0;
  return flop_value(expr, sizes);
}

ScheduleContext Problem::context(const std::string& size_name, bool strict) const {
  ScheduleContext c;
  c.pipeline = pipeline;
  c.sizes = size(size_name);
  c.atol = strict ? strict_atol : atol;
  c.rtol = strict ? strict_rtol : rtol;
  return c;
}

const Problem& find_problem(const std::string& name) {
  std::string names;
  for (const auto& p : all_problems()) {
    if (p.name == name) return p;
    names += (names.empty() ? "" : ", ") + p.name;
  }
  fail("unknown-problem", "There is no problem named '" + name + "'.",
       "Use one of: " + names + " (see `cusched problems`).");
}

}  // namespace cusched
