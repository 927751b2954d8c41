// One pass over the declarations parsed from the user's code (declarations
// loaded from the precompiled header are never handed to this consumer).
#include "audit/source_facts_collector.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/Decl.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/Mangle.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/Stmt.h>
#include <clang/AST/StmtCXX.h>
#include <clang/Basic/SourceManager.h>

#include "audit/output_path_analysis.h"

namespace cusched::audit {

SourceLocation to_location(const clang::ASTContext& ctx, const DisplayName& display_name, unsigned raw_location) {
  const auto& sm = ctx.getSourceManager();
  auto loc = sm.getExpansionLoc(clang::SourceLocation::getFromRawEncoding(raw_location));
  clang::PresumedLoc p = sm.getPresumedLoc(loc);
  SourceLocation out;
  if (p.isInvalid()) return out;
  out.file = display_name(p.getFilename());
  out.line = static_cast<int>(p.getLine());
  out.column = static_cast<int>(p.getColumn());
  return out;
}

namespace {

bool pointee_is_const(clang::QualType t) {
  if (const auto* pt = t->getAs<clang::PointerType>()) return pt->getPointeeType().isConstQualified();
  if (const auto* rt = t->getAs<clang::ReferenceType>()) return rt->getPointeeType().isConstQualified();
  return false;
}
bool is_pointer_or_reference(clang::QualType t) { return t->isPointerType() || t->isReferenceType(); }

class FactsVisitor : public clang::RecursiveASTVisitor<FactsVisitor> {
 public:
  FactsVisitor(clang::ASTContext& ctx, SourceFacts& facts, const DisplayName& display)
      : ctx_(ctx), facts_(facts), display_(display), names_(ctx) {}

  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return false; }

  SourceLocation where(clang::SourceLocation loc) { return to_location(ctx_, display_, loc.getRawEncoding()); }

  bool in_system_header(const clang::Decl* d) {
    return ctx_.getSourceManager().isInSystemHeader(ctx_.getSourceManager().getExpansionLoc(d->getLocation()));
  }

  bool VisitFunctionDecl(clang::FunctionDecl* fd) {
    if (!fd->hasAttr<clang::CUDAGlobalAttr>() || !fd->doesThisDeclarationHaveABody()) return true;
    if (fd->isDependentContext()) return true;  // a template pattern; its instantiations are visited
    KernelFacts k;
    k.name = fd->getNameAsString();
    k.ir_name = names_.getName(fd);
    k.extern_c = fd->isExternC();
    k.location = where(fd->getLocation());
    auto policy = ctx_.getPrintingPolicy();
    for (const clang::ParmVarDecl* p : fd->parameters()) {
      ParamFacts pf;
      pf.name = p->getNameAsString();
      pf.type = p->getType().getAsString(policy);
      pf.is_pointer = p->getType()->isPointerType();
      pf.pointee_const = pointee_is_const(p->getType());
      pf.location = where(p->getLocation());
      k.params.push_back(std::move(pf));
    }
    k.output_gaps = output_path_gaps(*fd, ctx_, [this](clang::SourceLocation loc) { return where(loc); });
    facts_.kernels.push_back(std::move(k));
    return true;
  }

  void record_call(const clang::FunctionDecl* fd, clang::SourceLocation loc, bool launch) {
    CallFacts c;
    c.location = where(loc);
    c.is_kernel_launch = launch;
    if (fd) {
      c.callee = fd->getNameAsString();
      c.qualified_callee = fd->getQualifiedNameAsString();
      c.is_builtin = fd->getBuiltinID() != 0;
      c.callee_defined =
          fd->isDefined() || fd->getTemplateInstantiationPattern() != nullptr || fd->isDeleted() || fd->isDefaulted();
      c.callee_in_system_header = in_system_header(fd);
    }
    facts_.calls.push_back(std::move(c));
  }

  bool VisitCallExpr(clang::CallExpr* e) {
    record_call(e->getDirectCallee(), e->getBeginLoc(), clang::isa<clang::CUDAKernelCallExpr>(e));
    return true;
  }

  bool VisitCXXNewExpr(clang::CXXNewExpr* e) {
    const clang::FunctionDecl* op = e->getOperatorNew();
    if (op && op->isReservedGlobalPlacementOperator()) return true;  // placement new allocates nothing
    record_call(op, e->getBeginLoc(), false);
    if (!facts_.calls.empty()) facts_.calls.back().callee = e->isArray() ? "operator new[]" : "operator new";
    return true;
  }

  bool VisitCXXDeleteExpr(clang::CXXDeleteExpr* e) {
    record_call(e->getOperatorDelete(), e->getBeginLoc(), false);
    if (!facts_.calls.empty()) facts_.calls.back().callee = e->isArrayForm() ? "operator delete[]" : "operator delete";
    return true;
  }

  bool VisitGCCAsmStmt(clang::GCCAsmStmt* s) {
    facts_.asm_statements.push_back({s->getAsmString()->getString().str(), where(s->getAsmLoc())});
    return true;
  }

  bool VisitExplicitCastExpr(clang::ExplicitCastExpr* e) {
    clang::QualType from = e->getSubExpr()->getType();
    clang::QualType to = e->getTypeAsWritten();
    if (from.isNull() || to.isNull() || from->isDependentType() || to->isDependentType()) return true;
    bool from_const = false;
    if (from->isPointerType())
      from_const = pointee_is_const(from);
    else if (!e->getSubExpr()->isPRValue())
      from_const = from.isConstQualified();  // a const lvalue cast to a reference
    if (from_const && is_pointer_or_reference(to) && !pointee_is_const(to)) {
      auto policy = ctx_.getPrintingPolicy();
      facts_.const_dropping_casts.push_back(
          {from.getAsString(policy), to.getAsString(policy), where(e->getBeginLoc())});
    }
    return true;
  }

  bool VisitVarDecl(clang::VarDecl* v) {
    if (clang::isa<clang::ParmVarDecl>(v) || !v->hasGlobalStorage()) return true;
    if (v->hasAttr<clang::CUDASharedAttr>() || v->hasAttr<clang::CUDAConstantAttr>()) return true;
    bool managed = v->hasAttr<clang::HIPManagedAttr>();
    // A function-scope static in device code lives in global memory like a __device__ variable.
    bool device_static_local = v->isStaticLocal() && in_device_function(v);
    if (!managed && !device_static_local && !v->hasAttr<clang::CUDADeviceAttr>()) return true;
    if (v->getDeclContext()->isDependentContext()) return true;
    GlobalVariableFacts g;
    g.name = v->getNameAsString();
    g.type = v->getType().getAsString(ctx_.getPrintingPolicy());
    g.memory_space = managed ? "__managed__" : device_static_local ? "function-scope static" : "__device__";
    g.is_const = ctx_.getBaseElementType(v->getType()).isConstQualified();
    g.location = where(v->getLocation());
    facts_.device_globals.push_back(std::move(g));
    return true;
  }

 private:
  // Whether `v` is declared in the body of a __device__ or __global__ function (or of a
  // lambda or local class inside one).
  static bool in_device_function(const clang::VarDecl* v) {
    for (const clang::DeclContext* dc = v->getDeclContext(); dc; dc = dc->getParent()) {
      if (const auto* fd = clang::dyn_cast<clang::FunctionDecl>(dc))
        if (fd->hasAttr<clang::CUDADeviceAttr>() || fd->hasAttr<clang::CUDAGlobalAttr>()) return true;
      if (dc->isFileContext()) break;
    }
    return false;
  }

  clang::ASTContext& ctx_;
  SourceFacts& facts_;
  const DisplayName& display_;
  clang::ASTNameGenerator names_;
};

class SourceFactsCollector : public clang::ASTConsumer {
 public:
  SourceFactsCollector(SourceFacts& facts, DisplayName display, IsAudited is_audited)
      : facts_(facts), display_(std::move(display)), is_audited_(std::move(is_audited)) {}

  bool HandleTopLevelDecl(clang::DeclGroupRef group) override {
    for (clang::Decl* d : group) decls_.push_back(d);
    return true;
  }

  void HandleTranslationUnit(clang::ASTContext& ctx) override {
    FactsVisitor visitor(ctx, facts_, display_);
    const auto& sm = ctx.getSourceManager();
    for (clang::Decl* d : decls_) {
      auto loc = sm.getExpansionLoc(d->getLocation());
      if (loc.isInvalid() || sm.isInSystemHeader(loc)) continue;
      clang::PresumedLoc p = sm.getPresumedLoc(loc);
      if (p.isInvalid() || !is_audited_(p.getFilename())) continue;
      visitor.TraverseDecl(d);
    }
  }

 private:
  SourceFacts& facts_;
  DisplayName display_;
  IsAudited is_audited_;
  std::vector<clang::Decl*> decls_;
};

}  // namespace

std::unique_ptr<clang::ASTConsumer> make_source_facts_collector(SourceFacts& out, DisplayName display_name,
                                                                IsAudited is_audited) {
  return std::make_unique<SourceFactsCollector>(out, std::move(display_name), std::move(is_audited));
}

}  // namespace cusched::audit
