#pragma once
// Whether a tensor-core operand fragment can be loaded with one ldmatrix per lane and
// tile instead of one scalar load per element, and the row addresses that do it.
//
// Each fragment element i of a lane is an expression `Load(S, I_i)`, possibly wrapped in
// a rounding call, where S is a shared buffer and I_i depends on the lane only through
// `lane / 4` (group g) and `lane % 4` (quad q). In the linear form of I_i the
// coefficients of g and q and of every other term must be the same for all i; only the
// constants c_i differ. With w elements per 32-bit word (1 for 32-bit, 2 for 16-bit
// elements) and register r holding elements r w .. r w + w - 1:
//   - plain: q's coefficient is w and c_{rw+e} = c_{rw} + e; matrix r's row g starts at
//     c_{rw} + g * (g's coefficient): lane (g, q) receives word q of that row;
//   - transposed (w = 2): g's coefficient is 1 and c_{2r+1} - c_{2r} = s, q's
//     coefficient 2 s: matrix r's row p starts at c_{2r} + p s (column g of rows 2q, 2q+1).
// Every row address must be a multiple of 16 bytes for all values of the other terms:
// every coefficient and every c_{rw} times the element size a multiple of 16.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "dsl/expr.h"

namespace cusched {

struct LdMatrixPlan {
  std::string source;        // the shared buffer
  DType dtype = DType::f32;  // its element type
  Expr row_address;          // over `lane` and the other variables of the indices
  int matrices = 4;
  bool transpose = false;
};

// The plan for the fragment `elements` of a lane whose index is the variable `lane`, or
// nullopt when ldmatrix cannot load it (the caller keeps scalar loads). `is_shared`
// tells whether a buffer name is a shared buffer.
std::optional<LdMatrixPlan> plan_ldmatrix(const std::vector<Expr>& elements, const std::string& lane,
                                          const std::function<bool(const std::string&)>& is_shared);

// `element` with its load of the plan's source replaced by `fragment[index]`.
Expr read_from_fragment(const Expr& element, const LdMatrixPlan& plan, const std::string& fragment, const Expr& index);

}  // namespace cusched
