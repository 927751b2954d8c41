#include "dsl/func.h"

#include <map>

#include "dsl/error.h"
#include "dsl/padded_load.h"
#include "dsl/reduction_split.h"

namespace cusched {

Tensor::Tensor(std::string name, DType dtype, std::vector<Expr> shape) : def_(std::make_shared<TensorDef>()) {
  def_->name = std::move(name);
  def_->dtype = dtype;
  def_->shape = std::move(shape);
}

Expr Tensor::at(std::vector<Expr> indices) const {
  if (indices.size() != def_->shape.size())
    fail("wrong-index-count",
         "Tensor '" + def_->name + "' has " + std::to_string(def_->shape.size()) + " dimensions but was indexed with " +
             std::to_string(indices.size()) + ".",
         "Index it with one expression per dimension.");
  Expr e = make_load(def_->name, def_->dtype, std::move(indices));
  ExprNode n = *e;
  n.tensor = def_;
  return make_node(std::move(n));
}

bool FuncDef::is_reduction() const { return body.defined() && body->op == ExprOp::Reduce; }

bool FuncDef::is_scan() const { return body.defined() && body->op == ExprOp::Scan; }

int FuncDef::scan_dim() const {
  if (!is_scan()) return -1;
  for (size_t d = 0; d < vars.size(); ++d)
    if (vars[d] == body->name) return static_cast<int>(d);
  return -1;
}

static Expr strip_casts(Expr e) {
  while (e->op == ExprOp::Cast) e = e->args[0];
  return e;
}

static bool reads_memory(const Expr& e) {
  if (!e.defined()) return false;
  if (e->op == ExprOp::Load) return true;
  for (const auto& a : e->args)
    if (reads_memory(a)) return true;
  return false;
}

// The product summed by a sum reduction, casts looked through; null otherwise.
static Expr summed_product(const FuncDef& f) {
  if (!f.is_reduction() || f.body->reduce_op != ReduceOp::Sum) return Expr();
  Expr p = strip_casts(f.body->args[0]);
  return p->op == ExprOp::Mul ? p : Expr();
}

bool FuncDef::is_sum_of_products() const {
  Expr p = summed_product(*this);
  return p.defined() && reads_memory(p->args[0]) && reads_memory(p->args[1]);
}

std::optional<std::pair<Expr, Expr>> FuncDef::product_loads() const {
  Expr p = summed_product(*this);
  if (!p.defined()) return std::nullopt;
  Expr a = strip_casts(p->args[0]), b = strip_casts(p->args[1]);
  if (a->op != ExprOp::Load || b->op != ExprOp::Load) return std::nullopt;
  return std::make_pair(a, b);
}

bool FuncDef::is_sum_of_load_products() const { return product_loads().has_value(); }

Expr Func::at(std::vector<Expr> indices) const {
  if (!def_) fail("undefined-func", "A Func is used before it is defined.", "Assign it with compute() first.");
  if (indices.size() != def_->vars.size())
    fail("wrong-index-count",
         "Stage '" + def_->name + "' has " + std::to_string(def_->vars.size()) + " dimensions but was indexed with " +
             std::to_string(indices.size()) + ".",
         "Index it with one expression per dimension.");
  Expr e = make_load(def_->name, def_->dtype, std::move(indices));
  ExprNode n = *e;
  n.func = def_;
  return make_node(std::move(n));
}

// A scan must be a stage's whole body (reductions inside larger expressions are split
// into stages of their own; a scan is not).
static void check_no_nested_scan(const Expr& e, bool top, const std::string& stage) {
  if (!e.defined()) return;
  if (e->op == ExprOp::Scan && !top)
    fail("nested-reduction",
         "Stage '" + stage + "' has a scan inside a larger expression; a scan must be a stage's whole body.",
         "Define the scan as its own stage with compute() and use that stage in this one.");
  for (const auto& a : e->args) check_no_nested_scan(a, false, stage);
}

// A stage reads each source with one padding value: a copy of the source holds it.
static void check_padding_values(const Expr& e, const std::string& stage, std::map<std::string, double>& seen) {
  if (!e.defined()) return;
  if (is_padded_load(e)) {
    auto [it, fresh] = seen.emplace(e->name, e->fval);
    if (!fresh && !(it->second == e->fval))
      fail("padded-values-differ",
           "Stage '" + stage + "' reads '" + e->name + "' through padded loads with two padding values (" +
               to_string(make_float(it->second, DType::f64)) + " and " + to_string(make_float(e->fval, DType::f64)) +
               "), but a stage pads each source with one value.",
           "Read '" + e->name + "' with one padding value, or compute one of the reads in a stage of its own.");
  }
  for (const auto& a : e->args) check_padding_values(a, stage, seen);
}

Func compute(const std::string& name, const std::vector<Var>& vars, Expr body) {
  if (name.empty()) fail("bad-name", "A stage needs a non-empty name.", "Pass a name such as \"C\".");
  if (!body.defined()) fail("undefined-expr", "Stage '" + name + "' has no body.", "Pass the Expr that defines it.");
  check_no_nested_scan(body, true, name);
  std::map<std::string, double> padding;
  check_padding_values(body, name, padding);
  if (body->op == ExprOp::Scan) {
    bool found = false;
    for (const auto& v : vars) found |= v.name() == body->name;
    if (!found)
      fail("scan-variable-not-in-domain",
           "Stage '" + name + "' scans along '" + body->name + "', which is not one of its pure variables.",
           "Scan along a variable of the stage's domain: compute(\"" + name + "\", {i, j}, cumsum(j, X(i, j))).");
  }
  // Reductions inside larger expressions become stages of their own (dsl/reduction_split.h).
  body = split_nested_reductions(name, vars, body);
  auto d = std::make_shared<FuncDef>();
  d->name = name;
  for (const auto& v : vars) {
    d->vars.push_back(v.name());
    d->extents.push_back(v.extent());
  }
  d->body = std::move(body);
  d->dtype = d->body.type();
  if (d->body->weak) d->dtype = dtype_is_float(d->dtype) ? DType::f32 : DType::i32;
  return Func(d);
}

}  // namespace cusched
