#pragma once
// Padded loads: a load of a tensor or stage whose indices may leave its shape and that
// reads a constant there (zero unless stated: the zero padding of convolutions; -inf
// for max pooling) instead of memory. The access stays a load, so a convolution over
// padded input is still a sum of products of two loads (tensor_core takes it), and a
// copy of the source into shared memory writes the padding value where its region
// leaves the source. In the tree: ExprNode::ival of the Load holds kLoadPadded and
// ExprNode::fval the value outside. The text form is padded(X(i, j)) or
// padded(X(i, j), -inf).
#include <cstdint>
#include <vector>

#include "dsl/expr.h"

namespace cusched {

constexpr int64_t kLoadPadded = 1;

// `load` (a Load of a tensor or stage) with `outside` read where its indices leave the
// shape. Fails for anything but a load, and for a value the load's type cannot hold.
Expr padded(const Expr& load, double outside = 0.0);

bool is_padded_load(const ExprNode& e);
inline bool is_padded_load(const Expr& e) { return e.defined() && is_padded_load(*e); }

// The value a padded load reads outside its source, as a literal of the load's type.
Expr padding_value(const ExprNode& load);

// The condition that every index lies inside `shape` (0 <= index < extent).
Expr inside_shape(const std::vector<Expr>& indices, const std::vector<int64_t>& shape);

// True when `e` reads `name` through a padded load.
bool reads_padded(const Expr& e, const std::string& name);

// True when `e` reads `name` through a padded load whose value outside is not zero.
bool reads_padded_nonzero(const Expr& e, const std::string& name);

}  // namespace cusched
