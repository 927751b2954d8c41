#pragma once
// Structural equality of expressions and stages: every field of every node (types,
// literal values bit for bit, weak flags, reduction domains, the definitions loaded).
#include <string>

#include "dsl/func.h"

namespace cusched {

// True when `a` and `b` are the same tree; otherwise `why` (when given) says where they differ.
bool same_expr(const Expr& a, const Expr& b, std::string* why = nullptr);
bool same_stage(const FuncDef& a, const FuncDef& b, std::string* why = nullptr);

}  // namespace cusched
