#pragma once
// The expression text syntax: expressions and stage definitions written as the C++ DSL
// reads, e.g. "Y(i in R, j in D) = X(i, j) / (1 + exp(-X(i, j)))" and
// "S(i in R) = sum(k in D: X(i, k) * X(i, k))". The printer and the parser are exact
// inverses: parsing a printed expression rebuilds the identical tree (types, literal
// types and weak literals included). docs/problem-files.md gives the grammar.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dsl/func.h"

namespace cusched {

// The names a parsed expression may refer to.
struct ExprScope {
  std::vector<std::string> sizes;                                   // symbolic sizes
  std::map<std::string, std::shared_ptr<const TensorDef>> tensors;  // input tensors
  std::map<std::string, std::shared_ptr<const FuncDef>> stages;     // stages defined so far
  std::vector<std::string> vars;                                    // pure variables in scope
};

std::string expr_to_text(const Expr& e);
// "NAME(v in EXTENT, ...) = BODY".
std::string stage_to_text(const FuncDef& f);

// Parse errors are UserErrors with codes expr-syntax, bad-literal, unknown-name,
// unknown-tensor, wrong-index-count, wrong-argument-count, nested-reduction,
// type-error and duplicate-name; the message names the line and column.
// `allow_reduction`: a reduction may be the whole expression (a stage body).
Expr expr_from_text(const std::string& text, const ExprScope& scope, bool allow_reduction = false);
Func stage_from_text(const std::string& text, const ExprScope& scope);

// Words that cannot name a tensor, stage, size or variable.
bool is_reserved_word(const std::string& name);

}  // namespace cusched
