// Memory dependence of kernel values: a flow-insensitive fixpoint over the
// assignments of the kernel's local variables.
#include "audit/load_dependence.h"

#include <vector>

#include <clang/AST/Decl.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/Stmt.h>
#include <clang/AST/StmtCXX.h>

#include "audit/source_pointer_roots.h"

namespace cusched::audit {

namespace {

bool is_cuda_builtin_variable(const clang::VarDecl* v) {
  const clang::CXXRecordDecl* rd = v->getType()->getAsCXXRecordDecl();
  return rd && rd->getName().starts_with("__cuda_builtin_");
}

bool reads_memory_by_name(llvm::StringRef name) {
  return name.starts_with("__ld") || name.starts_with("atomic") || name.starts_with("__atomic") ||
         name.starts_with("__nvvm_atom") || name.starts_with("__nvvm_ld") ||
         name.starts_with("__builtin_nontemporal_load");
}

// The definitions of local variables: (variable, value) pairs, where a null
// value stands for "anything" (address escape, asm output, range-for element).
struct Definition {
  const clang::VarDecl* var;
  const clang::Expr* value;
};

class DefinitionCollector : public clang::RecursiveASTVisitor<DefinitionCollector> {
 public:
  bool shouldVisitLambdaBody() const { return true; }

  bool VisitVarDecl(clang::VarDecl* v) {
    if (!v->hasInit()) return true;
    if (v->getType()->isReferenceType()) {
      if (const clang::VarDecl* bound = local_storage(v->getInit())) defs.push_back({bound, nullptr});
      return true;
    }
    if (v->hasLocalStorage()) defs.push_back({v, v->getInit()});
    return true;
  }
  bool VisitBinaryOperator(clang::BinaryOperator* b) {
    if (!b->isAssignmentOp()) return true;
    if (const clang::VarDecl* v = local_storage(b->getLHS())) defs.push_back({v, b->getRHS()});
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator* u) {
    if (u->getOpcode() == clang::UO_AddrOf)
      if (const clang::VarDecl* v = local_storage(u->getSubExpr())) defs.push_back({v, nullptr});
    return true;
  }
  bool VisitArraySubscriptExpr(clang::ArraySubscriptExpr* s) {
    subscript_bases.push_back(s->getBase()->IgnoreParens());
    return true;
  }
  bool VisitImplicitCastExpr(clang::ImplicitCastExpr* c) {
    if (c->getCastKind() == clang::CK_ArrayToPointerDecay) decays.push_back(c);
    return true;
  }
  bool VisitCallExpr(clang::CallExpr* call) {
    const clang::FunctionDecl* fd = call->getDirectCallee();
    for (unsigned i = 0; i < call->getNumArgs(); ++i) {
      bool by_reference = fd && i < fd->getNumParams() && fd->getParamDecl(i)->getType()->isReferenceType() &&
                          !fd->getParamDecl(i)->getType()->getPointeeType().isConstQualified();
      if (by_reference)
        if (const clang::VarDecl* v = local_storage(call->getArg(i))) defs.push_back({v, nullptr});
    }
    if (const auto* member = clang::dyn_cast<clang::CXXMemberCallExpr>(call)) {
      const clang::CXXMethodDecl* method = member->getMethodDecl();
      if (method && !method->isConst())
        if (const clang::VarDecl* v = local_storage(member->getImplicitObjectArgument())) defs.push_back({v, nullptr});
    }
    return true;
  }
  bool VisitGCCAsmStmt(clang::GCCAsmStmt* s) {
    for (unsigned i = 0; i < s->getNumOutputs(); ++i)
      if (const clang::VarDecl* v = local_storage(s->getOutputExpr(i))) defs.push_back({v, nullptr});
    return true;
  }
  bool VisitCXXForRangeStmt(clang::CXXForRangeStmt* s) {
    defs.push_back({s->getLoopVariable(), nullptr});
    return true;
  }

  // Array-to-pointer decays that are not the base of a subscript let the
  // array's address escape.
  void add_escaping_arrays() {
    for (const clang::ImplicitCastExpr* c : decays) {
      bool subscripted = false;
      for (const clang::Expr* base : subscript_bases) subscripted |= base == c;
      if (!subscripted)
        if (const clang::VarDecl* v = local_storage(c->getSubExpr())) defs.push_back({v, nullptr});
    }
  }

  std::vector<Definition> defs;
  std::vector<const clang::Expr*> subscript_bases;
  std::vector<const clang::ImplicitCastExpr*> decays;
};

}  // namespace

bool is_lambda_call(const clang::FunctionDecl* fd) {
  const auto* method = clang::dyn_cast_or_null<clang::CXXMethodDecl>(fd);
  return method && method->getParent()->isLambda();
}

LoadDependence::LoadDependence(const clang::FunctionDecl& kernel) {
  DefinitionCollector collector;
  collector.TraverseStmt(kernel.getBody());
  collector.add_escaping_arrays();
  bool changed = true;
  while (changed) {
    changed = false;
    for (const Definition& d : collector.defs) {
      if (dependent_vars_.count(d.var)) continue;
      if (!d.value || depends_on_memory(d.value)) changed = dependent_vars_.insert(d.var).second || changed;
    }
  }
}

bool LoadDependence::depends_on_memory(const clang::Expr* e) const {
  if (!e) return false;
  e = e->IgnoreParens();
  if (const auto* cast = clang::dyn_cast<clang::ImplicitCastExpr>(e);
      cast && cast->getCastKind() == clang::CK_LValueToRValue)
    return lvalue_depends_on_memory(cast->getSubExpr());
  if (clang::isa<clang::DeclRefExpr>(e)) return e->isGLValue() ? lvalue_depends_on_memory(e) : false;
  if (clang::isa<clang::CallExpr>(e)) return call_depends_on_memory(e);
  if (const auto* pseudo = clang::dyn_cast<clang::PseudoObjectExpr>(e))
    return depends_on_memory(pseudo->getResultExpr());
  if (const auto* construct = clang::dyn_cast<clang::CXXConstructExpr>(e)) {
    for (const clang::Expr* arg : construct->arguments())
      if (arg->isGLValue() ? lvalue_depends_on_memory(arg) : depends_on_memory(arg)) return true;
    return false;
  }
  if (const auto* un = clang::dyn_cast<clang::UnaryOperator>(e); un && un->getOpcode() == clang::UO_AddrOf) {
    // An address: only the indices that form it matter.
    const clang::Expr* sub = un->getSubExpr()->IgnoreParens();
    if (const auto* s = clang::dyn_cast<clang::ArraySubscriptExpr>(sub))
      return depends_on_memory(s->getBase()) || depends_on_memory(s->getIdx());
    return false;
  }
  for (const clang::Stmt* child : e->children())
    if (const auto* ce = clang::dyn_cast_or_null<clang::Expr>(child); ce && depends_on_memory(ce)) return true;
  return false;
}

bool LoadDependence::lvalue_depends_on_memory(const clang::Expr* e) const {
  e = e->IgnoreParens();
  if (const auto* cast = clang::dyn_cast<clang::CastExpr>(e); cast && cast->isGLValue())
    return lvalue_depends_on_memory(cast->getSubExpr());
  if (const auto* ref = clang::dyn_cast<clang::DeclRefExpr>(e)) {
    const auto* v = clang::dyn_cast<clang::VarDecl>(ref->getDecl());
    if (!v) return false;  // an enumerator or a function
    if (v->getType()->isReferenceType()) return true;
    if (v->hasLocalStorage()) return dependent_vars_.count(v) > 0;
    if (is_cuda_builtin_variable(v)) return false;
    clang::QualType t = v->getType();
    return !(t.isConstQualified() && (t->isIntegralOrEnumerationType() || t->isRealFloatingType()));
  }
  if (const auto* mem = clang::dyn_cast<clang::MemberExpr>(e))
    return mem->isArrow() || lvalue_depends_on_memory(mem->getBase());
  if (clang::isa<clang::ArraySubscriptExpr>(e)) {
    const clang::VarDecl* v = local_storage(e);
    return !v || dependent_vars_.count(v) > 0;
  }
  if (const auto* cond = clang::dyn_cast<clang::AbstractConditionalOperator>(e))
    return depends_on_memory(cond->getCond()) || lvalue_depends_on_memory(cond->getTrueExpr()) ||
           lvalue_depends_on_memory(cond->getFalseExpr());
  if (const auto* bin = clang::dyn_cast<clang::BinaryOperator>(e)) {
    if (bin->getOpcode() == clang::BO_Comma) return lvalue_depends_on_memory(bin->getRHS());
    if (bin->isAssignmentOp()) return lvalue_depends_on_memory(bin->getLHS()) || depends_on_memory(bin->getRHS());
  }
  if (const auto* un = clang::dyn_cast<clang::UnaryOperator>(e); un && un->isIncrementDecrementOp())
    return lvalue_depends_on_memory(un->getSubExpr());
  if (const auto* pseudo = clang::dyn_cast<clang::PseudoObjectExpr>(e))
    return depends_on_memory(pseudo->getResultExpr());
  return true;  // a dereference, a call returning a reference, or anything unknown: memory
}

bool LoadDependence::call_depends_on_memory(const clang::Expr* e) const {
  const auto* call = clang::cast<clang::CallExpr>(e);
  const clang::FunctionDecl* fd = call->getDirectCallee();
  if (!fd) return true;  // through a function pointer
  if (const clang::IdentifierInfo* id = fd->getIdentifier(); id && reads_memory_by_name(id->getName())) return true;
  unsigned first = 0;
  if (is_lambda_call(fd)) {
    first = 1;  // the closure object; what the lambda reads is in its returns
    bool returns_loaded = false;
    std::vector<const clang::Stmt*> work{fd->getBody()};
    while (!work.empty() && !returns_loaded) {
      const clang::Stmt* s = work.back();
      work.pop_back();
      if (!s || clang::isa<clang::LambdaExpr>(s)) continue;
      if (const auto* ret = clang::dyn_cast<clang::ReturnStmt>(s))
        returns_loaded |= depends_on_memory(ret->getRetValue());
      for (const clang::Stmt* child : s->children()) work.push_back(child);
    }
    if (returns_loaded) return true;
  }
  for (unsigned i = first; i < call->getNumArgs(); ++i) {
    const clang::Expr* arg = call->getArg(i);
    unsigned param = clang::isa<clang::CXXOperatorCallExpr>(call) && clang::isa<clang::CXXMethodDecl>(fd) ? i - 1 : i;
    clang::QualType t = param < fd->getNumParams() ? fd->getParamDecl(param)->getType() : arg->getType();
    if (t->isPointerType() || t->isReferenceType() || t->isArrayType()) return true;  // may read through it
    if (arg->isGLValue() ? lvalue_depends_on_memory(arg) : depends_on_memory(arg)) return true;
  }
  if (const auto* member = clang::dyn_cast<clang::CXXMemberCallExpr>(call)) {
    const clang::Expr* object = member->getImplicitObjectArgument();
    if (object && (object->isGLValue() ? lvalue_depends_on_memory(object) : depends_on_memory(object))) return true;
  }
  return false;
}

}  // namespace cusched::audit
