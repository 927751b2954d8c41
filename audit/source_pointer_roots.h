#pragma once
// Which variables a pointer expression, or the memory an lvalue designates, is
// derived from, read from the AST: `Y + i`, `&Y[i]`, `reinterpret_cast<float4*>(y)`
// and `c ? Y : W` all lead back to the variables Y, y and W.
#include <set>

namespace clang {
class Expr;
class VarDecl;
}  // namespace clang

namespace cusched::audit {

using VarSet = std::set<const clang::VarDecl*>;

// The pointer-, array-, reference- or record-typed variables the value of `e`
// may point into. Conservative: every such variable the expression reaches
// through arithmetic, casts, subscripts, members, conditionals and calls that
// return pointers.
void add_pointer_roots(const clang::Expr* e, VarSet& out);

// The variables whose pointed-to memory the lvalue `e` designates: for `Y[i]`,
// `*(Y + i)` and `p->x` the pointers Y and p; for a reference variable the
// reference itself; for a plain local variable nothing (its own storage is not
// memory reached through a pointer).
void add_memory_roots(const clang::Expr* e, VarSet& out);

// The local variable (or parameter) whose own storage the lvalue `e`
// designates: `v`, `v.x`, `a[i][j]` for a local array `a`; null otherwise.
const clang::VarDecl* local_storage(const clang::Expr* e);

}  // namespace cusched::audit
