#include "dsl/padded_load.h"

#include <cmath>

#include "dsl/error.h"

namespace cusched {

Expr padded(const Expr& load, double outside) {
  if (!load.defined() || load->op != ExprOp::Load || (!load->tensor && !load->func))
    fail("padded-not-a-load", "padded() takes a load of a tensor or stage, not '" + to_string(load) + "'.",
         "Write padded(X(i, j)) with X an input tensor or an earlier stage.");
  if (!dtype_is_float(load.type()) && outside != std::trunc(outside))
    fail("padded-value-type",
         "The padding value " + std::to_string(outside) + " of '" + to_string(load) + "' is not an integer, but '" +
             load->name + "' holds integers.",
         "Pad an integer tensor with an integer value.");
  ExprNode n = *load;
  n.ival = kLoadPadded;
  n.fval = outside;
  return make_node(std::move(n));
}

bool is_padded_load(const ExprNode& e) { return e.op == ExprOp::Load && (e.ival & kLoadPadded); }

Expr padding_value(const ExprNode& load) {
  return dtype_is_float(load.type) ? make_float(load.fval, load.type)
                                   : make_int(static_cast<int64_t>(load.fval), load.type);
}

Expr inside_shape(const std::vector<Expr>& indices, const std::vector<int64_t>& shape) {
  Expr cond;
  for (size_t d = 0; d < indices.size() && d < shape.size(); ++d) {
    const Expr& i = indices[d];
    Expr c = i >= make_int(0, i.type()) && i < make_int(shape[d], i.type());
    cond = cond.defined() ? cond && c : c;
  }
  return cond.defined() ? cond : make_bool(true);
}

bool reads_padded(const Expr& e, const std::string& name) {
  if (!e.defined()) return false;
  if (is_padded_load(e) && e->name == name) return true;
  for (const auto& a : e->args)
    if (reads_padded(a, name)) return true;
  return false;
}

bool reads_padded_nonzero(const Expr& e, const std::string& name) {
  if (!e.defined()) return false;
  if (is_padded_load(e) && e->name == name && e->fval != 0.0) return true;
  for (const auto& a : e->args)
    if (reads_padded_nonzero(a, name)) return true;
  return false;
}

}  // namespace cusched
