#include "search/operation_weights.h"

#include "codegen/fast_math.h"
#include "dsl/math_function.h"

namespace cusched::search {

double float_operation_weight(const ExprNode& e) {
  constexpr int kDivisionInstructions = 8;
  if (e.op == ExprOp::Div) return 2.0 * kDivisionInstructions;
  if (e.op != ExprOp::Call) return 1.0;
  if (const MathFunction* f = math_function(e.name)) return 2.0 * f->instructions;
  if (const FastMathFunction* f = fast_math_function(e.name)) return 2.0 * f->instructions;
  return 1.0;
}

double index_operation_weight(const ExprNode& e) {
  constexpr int kDivisionSlots = 4, kModulusSlots = 5;
  return 2.0 * (e.op == ExprOp::Div ? kDivisionSlots : kModulusSlots);
}

}  // namespace cusched::search
