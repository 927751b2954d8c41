// Pointer provenance on the AST, for the output path analysis.
#include "audit/source_pointer_roots.h"

#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>

namespace cusched::audit {

namespace {
bool may_hold_pointer(const clang::VarDecl* v) {
  clang::QualType t = v->getType();
  return t->isPointerType() || t->isArrayType() || t->isReferenceType() || t->isRecordType();
}
}  // namespace

void add_pointer_roots(const clang::Expr* e, VarSet& out) {
  if (!e) return;
  e = e->IgnoreParens();
  if (const auto* ref = clang::dyn_cast<clang::DeclRefExpr>(e)) {
    if (const auto* v = clang::dyn_cast<clang::VarDecl>(ref->getDecl()); v && may_hold_pointer(v)) out.insert(v);
    return;
  }
  if (const auto* cast = clang::dyn_cast<clang::CastExpr>(e)) return add_pointer_roots(cast->getSubExpr(), out);
  if (const auto* bin = clang::dyn_cast<clang::BinaryOperator>(e)) {
    if (bin->isComparisonOp() || bin->isLogicalOp()) return;
    if (bin->getOpcode() == clang::BO_Comma) return add_pointer_roots(bin->getRHS(), out);
    add_pointer_roots(bin->getLHS(), out);
    add_pointer_roots(bin->getRHS(), out);
    return;
  }
  if (const auto* un = clang::dyn_cast<clang::UnaryOperator>(e)) {
    switch (un->getOpcode()) {
      case clang::UO_AddrOf:
      case clang::UO_Deref:
      case clang::UO_PreInc:
      case clang::UO_PreDec:
      case clang::UO_PostInc:
      case clang::UO_PostDec:
        add_pointer_roots(un->getSubExpr(), out);
        return;
      default:
        return;
    }
  }
  if (const auto* sub = clang::dyn_cast<clang::ArraySubscriptExpr>(e)) return add_pointer_roots(sub->getBase(), out);
  if (const auto* mem = clang::dyn_cast<clang::MemberExpr>(e)) return add_pointer_roots(mem->getBase(), out);
  if (const auto* cond = clang::dyn_cast<clang::AbstractConditionalOperator>(e)) {
    add_pointer_roots(cond->getTrueExpr(), out);
    add_pointer_roots(cond->getFalseExpr(), out);
    return;
  }
  if (const auto* call = clang::dyn_cast<clang::CallExpr>(e)) {
    clang::QualType t = call->getType();
    if (!t->isPointerType() && !t->isReferenceType() && !call->isGLValue()) return;
    for (const clang::Expr* arg : call->arguments()) add_pointer_roots(arg, out);
    return;
  }
  // Anything else (initializer lists, temporaries, constructors): every child.
  for (const clang::Stmt* child : e->children())
    if (const auto* ce = clang::dyn_cast_or_null<clang::Expr>(child)) add_pointer_roots(ce, out);
}

void add_memory_roots(const clang::Expr* e, VarSet& out) {
  if (!e) return;
  e = e->IgnoreParens();
  if (const auto* ref = clang::dyn_cast<clang::DeclRefExpr>(e)) {
    if (const auto* v = clang::dyn_cast<clang::VarDecl>(ref->getDecl()); v && v->getType()->isReferenceType())
      out.insert(v);
    return;
  }
  if (const auto* cast = clang::dyn_cast<clang::CastExpr>(e); cast && cast->isGLValue())
    return add_memory_roots(cast->getSubExpr(), out);
  if (const auto* sub = clang::dyn_cast<clang::ArraySubscriptExpr>(e)) {
    const clang::Expr* base = sub->getBase()->IgnoreParens();
    if (const auto* decay = clang::dyn_cast<clang::ImplicitCastExpr>(base);
        decay && decay->getCastKind() == clang::CK_ArrayToPointerDecay)
      return add_memory_roots(decay->getSubExpr(), out);  // an element of an array object
    return add_pointer_roots(base, out);
  }
  if (const auto* un = clang::dyn_cast<clang::UnaryOperator>(e); un && un->getOpcode() == clang::UO_Deref)
    return add_pointer_roots(un->getSubExpr(), out);
  if (const auto* mem = clang::dyn_cast<clang::MemberExpr>(e))
    return mem->isArrow() ? add_pointer_roots(mem->getBase(), out) : add_memory_roots(mem->getBase(), out);
  add_pointer_roots(e, out);
}

const clang::VarDecl* local_storage(const clang::Expr* e) {
  while (e) {
    e = e->IgnoreParens();
    if (const auto* ref = clang::dyn_cast<clang::DeclRefExpr>(e)) {
      const auto* v = clang::dyn_cast<clang::VarDecl>(ref->getDecl());
      return v && v->hasLocalStorage() && !v->getType()->isReferenceType() ? v : nullptr;
    }
    if (const auto* cast = clang::dyn_cast<clang::CastExpr>(e)) {
      if (!cast->isGLValue() && cast->getCastKind() != clang::CK_ArrayToPointerDecay) return nullptr;
      e = cast->getSubExpr();
    } else if (const auto* mem = clang::dyn_cast<clang::MemberExpr>(e)) {
      if (mem->isArrow()) return nullptr;
      e = mem->getBase();
    } else if (const auto* sub = clang::dyn_cast<clang::ArraySubscriptExpr>(e)) {
      const auto* decay = clang::dyn_cast<clang::ImplicitCastExpr>(sub->getBase()->IgnoreParens());
      if (!decay || decay->getCastKind() != clang::CK_ArrayToPointerDecay) return nullptr;
      e = decay->getSubExpr();
    } else {
      return nullptr;
    }
  }
  return nullptr;
}

}  // namespace cusched::audit
