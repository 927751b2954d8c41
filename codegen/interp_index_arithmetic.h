#pragma once
// Index arithmetic of the interpreter's compiled expressions: integer +, -, and * by a
// constant flattened into one Affine node (a constant plus slot and argument terms with
// coefficients), which the interpreter evaluates without walking a tree.
#include "codegen/interp_kernel.h"

namespace cusched {

// `c` with its integer linear arithmetic flattened into one Affine node, equal slots
// merged; a constant result becomes a Const. Other expressions are returned as given.
CExpr flatten_index_arithmetic(CExpr c);

}  // namespace cusched
