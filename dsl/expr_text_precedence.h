#pragma once
// Operator precedence of the expression text syntax, shared by its printer and parser
// (C's order: || && ^ equality relational additive multiplicative unary).
#include "dsl/expr.h"

namespace cusched {

constexpr int kUnaryPrecedence = 8;
constexpr int kPrimaryPrecedence = 9;

// The precedence of a binary operator, 0 for any other operation.
inline int binary_precedence(ExprOp op) {
  switch (op) {
    case ExprOp::Or:
      return 1;
    case ExprOp::And:
      return 2;
    case ExprOp::BitXor:
      return 3;
    case ExprOp::EQ:
    case ExprOp::NE:
      return 4;
    case ExprOp::LT:
    case ExprOp::LE:
    case ExprOp::GT:
    case ExprOp::GE:
      return 5;
    case ExprOp::Add:
    case ExprOp::Sub:
      return 6;
    case ExprOp::Mul:
    case ExprOp::Div:
    case ExprOp::Mod:
      return 7;
    default:
      return 0;
  }
}

// How tightly the printed form of `e` binds.
inline int expr_precedence(const Expr& e) {
  if (int p = binary_precedence(e->op)) return p;
  if (e->op == ExprOp::Not || e->op == ExprOp::Neg) return kUnaryPrecedence;
  return kPrimaryPrecedence;
}

inline const char* binary_symbol(ExprOp op) { return op == ExprOp::BitXor ? "^" : binary_operator_symbol(op); }

}  // namespace cusched
