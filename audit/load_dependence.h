#pragma once
// Which values of a kernel depend on data loaded from memory, as opposed to
// thread and block indices, block and grid sizes, constants and scalar
// parameters. The output path analysis uses it to tell a bounds guard
// (`if (i >= n) return;`) from a data-dependent branch (`if (x[i] > 0) ...`).
#include <set>

namespace clang {
class Expr;
class FunctionDecl;
class VarDecl;
}  // namespace clang

namespace cusched::audit {

// Whether `fd` is the call operator of a lambda (whose body belongs to the kernel).
bool is_lambda_call(const clang::FunctionDecl* fd);

class LoadDependence {
 public:
  // Reads the whole body of `kernel` (lambdas included) once: a local
  // variable depends on memory when any assignment to it does, when its
  // address escapes (it may then be written through a pointer) or when inline
  // asm writes it.
  explicit LoadDependence(const clang::FunctionDecl& kernel);

  // Whether the value of `e` may depend on a value loaded from memory: a read
  // through a pointer, a subscript of a pointer or of a global, shared or
  // constant array, a non-const global, a reference, a local that depends on
  // memory, or a call that receives a pointer or a memory-dependent argument.
  bool depends_on_memory(const clang::Expr* e) const;

 private:
  bool lvalue_depends_on_memory(const clang::Expr* e) const;
  bool call_depends_on_memory(const clang::Expr* call) const;

  std::set<const clang::VarDecl*> dependent_vars_;
};

}  // namespace cusched::audit
