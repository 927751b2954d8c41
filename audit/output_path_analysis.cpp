// Must-written analysis of pointer parameters on the CFG, and the branches
// that decide the paths on which a parameter stays unwritten.
#include "audit/output_path_analysis.h"

#include <map>
#include <set>
#include <utility>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/Stmt.h>
#include <clang/Analysis/Analyses/Dominators.h>
#include <clang/Analysis/CFG.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>

#include "audit/load_dependence.h"
#include "audit/source_pointer_roots.h"

namespace cusched::audit {

namespace {

bool intersects(const VarSet& a, const VarSet& b) {
  for (const clang::VarDecl* v : a)
    if (b.count(v)) return true;
  return false;
}

// Local variables that may hold a pointer into a parameter's memory: each
// (variable, value) assignment or initialisation of the kernel and its lambdas.
class PointerDefinitions : public clang::RecursiveASTVisitor<PointerDefinitions> {
 public:
  bool shouldVisitLambdaBody() const { return true; }
  bool VisitVarDecl(clang::VarDecl* v) {
    if (v->hasInit() && v->hasLocalStorage()) defs.emplace_back(v, v->getInit());
    return true;
  }
  bool VisitBinaryOperator(clang::BinaryOperator* b) {
    if (b->isAssignmentOp())
      if (const clang::VarDecl* v = local_storage(b->getLHS())) defs.emplace_back(v, b->getRHS());
    return true;
  }
  std::vector<std::pair<const clang::VarDecl*, const clang::Expr*>> defs;
};

// Decides whether one statement (a CFG element: every subexpression is its own
// element) may write through a pointer derived from a parameter.
class WriteFinder {
 public:
  explicit WriteFinder(const VarSet& derived) : derived_(derived) {}

  bool writes(const clang::Stmt* s) {
    if (const auto* b = clang::dyn_cast<clang::BinaryOperator>(s); b && b->isAssignmentOp())
      return memory_root_in(b->getLHS());
    if (const auto* u = clang::dyn_cast<clang::UnaryOperator>(s); u && u->isIncrementDecrementOp())
      return memory_root_in(u->getSubExpr());
    if (const auto* call = clang::dyn_cast<clang::CallExpr>(s)) return call_writes(call);
    if (const auto* as = clang::dyn_cast<clang::GCCAsmStmt>(s)) {
      for (unsigned i = 0; i < as->getNumOutputs(); ++i)
        if (pointer_root_in(as->getOutputExpr(i)) || memory_root_in(as->getOutputExpr(i))) return true;
      for (unsigned i = 0; i < as->getNumInputs(); ++i)
        if (pointer_root_in(as->getInputExpr(i))) return true;
    }
    return false;
  }

 private:
  bool pointer_root_in(const clang::Expr* e) const {
    VarSet roots;
    add_pointer_roots(e, roots);
    return intersects(roots, derived_);
  }
  bool memory_root_in(const clang::Expr* e) const {
    VarSet roots;
    add_memory_roots(e, roots);
    return intersects(roots, derived_);
  }

  bool call_writes(const clang::CallExpr* call) {
    const clang::FunctionDecl* fd = call->getDirectCallee();
    bool lambda = is_lambda_call(fd);
    bool member_operator =
        clang::isa<clang::CXXOperatorCallExpr>(call) && clang::isa_and_nonnull<clang::CXXMethodDecl>(fd);
    for (unsigned i = member_operator ? 1 : 0; i < call->getNumArgs(); ++i) {
      const clang::Expr* arg = call->getArg(i);
      unsigned param = member_operator ? i - 1 : i;
      clang::QualType t = fd && param < fd->getNumParams() ? fd->getParamDecl(param)->getType() : arg->getType();
      bool opaque = fd == nullptr;
      if (t->isPointerType() && (opaque || !t->getPointeeType().isConstQualified()) && pointer_root_in(arg))
        return true;
      if (t->isReferenceType() && (opaque || !t->getPointeeType().isConstQualified()) &&
          (memory_root_in(arg) || pointer_root_in(arg)))
        return true;
      if (t->isRecordType() && pointer_root_in(arg)) return true;  // a struct that may carry the pointer
    }
    if (const auto* member = clang::dyn_cast<clang::CXXMemberCallExpr>(call)) {
      const clang::CXXMethodDecl* method = member->getMethodDecl();
      if (method && !method->isConst() && memory_root_in(member->getImplicitObjectArgument())) return true;
    }
    if (lambda) return body_writes(fd);
    return false;
  }

  // A lambda's body is not part of the kernel's CFG: any write in it counts.
  bool body_writes(const clang::FunctionDecl* fd) {
    auto known = lambda_writes_.find(fd);
    if (known != lambda_writes_.end()) return known->second;
    lambda_writes_[fd] = false;  // a lambda cannot call itself, but stay finite
    bool found = false;
    std::vector<const clang::Stmt*> work{fd->getBody()};
    while (!work.empty() && !found) {
      const clang::Stmt* s = work.back();
      work.pop_back();
      if (!s) continue;
      found = writes(s);
      for (const clang::Stmt* child : s->children()) work.push_back(child);
    }
    return lambda_writes_[fd] = found;
  }

  const VarSet& derived_;
  std::map<const clang::FunctionDecl*, bool> lambda_writes_;
};

struct ExitPoint {
  bool by_return = false;
  clang::SourceLocation where;
};

// The condition a branch block decides on: the last expression it evaluates
// (for `a && b` each operand ends its own block), else its terminator's.
const clang::Expr* branch_condition(const clang::CFGBlock& b) {
  if (const clang::Expr* e = b.getLastCondition()) return e;
  if (const clang::Stmt* t = b.getTerminatorCondition()) return clang::dyn_cast<clang::Expr>(t);
  return nullptr;
}

// Successors in order (true side first for two-way branches); null where an
// edge is statically impossible.
std::vector<const clang::CFGBlock*> reachable_successors(const clang::CFGBlock& b) {
  std::vector<const clang::CFGBlock*> out;
  for (const auto& s : b.succs()) out.push_back(s.getReachableBlock());
  return out;
}

size_t distinct_successors(const clang::CFGBlock& b) {
  std::set<const clang::CFGBlock*> s;
  for (const clang::CFGBlock* x : reachable_successors(b))
    if (x) s.insert(x);
  return s.size();
}

std::string source_text(const clang::Expr* e, clang::ASTContext& ctx) {
  const auto& sm = ctx.getSourceManager();
  clang::CharSourceRange range = sm.getExpansionRange(e->getSourceRange());
  std::string raw = clang::Lexer::getSourceText(range, sm, ctx.getLangOpts()).str();
  std::string text;
  for (char c : raw) {
    bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
    if (space && (text.empty() || text.back() == ' ')) continue;
    text += space ? ' ' : c;
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  constexpr size_t kMax = 80;
  if (text.size() > kMax) text = text.substr(0, kMax - 3) + "...";
  return text;
}

// The analysis of one kernel: the CFG, its exits, loops, join points and
// branch conditions are shared by its parameters.
class KernelPaths {
 public:
  KernelPaths(const clang::FunctionDecl& kernel, clang::ASTContext& ctx, const LocateFn& locate)
      : ctx_(ctx), locate_(locate), loads_(kernel) {
    clang::CFG::BuildOptions options;
    options.setAllAlwaysAdd();
    cfg_ = clang::CFG::buildCFG(&kernel, kernel.getBody(), &ctx, options);
    if (!cfg_) return;
    PointerDefinitions defs;
    defs.TraverseStmt(kernel.getBody());
    pointer_defs_ = std::move(defs.defs);
    // Exits: each `return`, and the CFG's exit block for the end of the body.
    // A block that returns or calls a noreturn function ends its path there.
    for (const auto& pred : cfg_->getExit().preds()) {
      const clang::CFGBlock* b = pred.getReachableBlock();
      if (!b) continue;
      if (b->hasNoReturnElement()) {
        terminal_.insert(b);  // a thread that traps does not finish the kernel
        continue;
      }
      if (b->empty()) continue;
      if (auto last = b->back().getAs<clang::CFGStmt>())
        if (const auto* ret = clang::dyn_cast<clang::ReturnStmt>(last->getStmt())) {
          exits_[b] = {true, ret->getReturnLoc()};
          terminal_.insert(b);
        }
    }
    exits_[&cfg_->getExit()] = {false, kernel.getBody()->getEndLoc()};
    find_back_edges();
    clang::CFGPostDomTree post_dominators(cfg_.get());
    for (clang::CFGBlock* b : *cfg_) {
      if (distinct_successors(*b) < 2) continue;
      auto* node = post_dominators.getBase().getNode(b);
      join_[b] = node && node->getIDom() ? node->getIDom()->getBlock() : nullptr;
      const clang::Expr* c = branch_condition(*b);
      if (c && loads_.depends_on_memory(c)) data_branches_[b] = c;
    }
  }

  void gaps_of(const clang::ParmVarDecl& param, std::vector<OutputPathGap>& out) {
    if (!cfg_) return;
    VarSet derived = derived_from(param);
    WriteFinder finder(derived);
    const unsigned n = cfg_->getNumBlockIDs();
    auto id = [](const clang::CFGBlock* b) { return b->getBlockID(); };
    std::vector<bool> writes(n, false);
    for (const clang::CFGBlock* b : *cfg_)
      for (const auto& element : *b)
        if (auto s = element.getAs<clang::CFGStmt>(); s && !writes[id(b)]) writes[id(b)] = finder.writes(s->getStmt());

    // Forward must-analysis: written on every path from the entry to the block's start.
    std::vector<bool> written_in(n, true);
    written_in[id(&cfg_->getEntry())] = false;
    for (bool changed = true; changed;) {
      changed = false;
      for (const clang::CFGBlock* b : *cfg_) {
        if (b == &cfg_->getEntry()) continue;
        bool in = true, any_pred = false;
        for (const auto& p : b->preds())
          if (const clang::CFGBlock* pb = p.getReachableBlock(); pb && !terminal_.count(pb)) {
            any_pred = true;
            in = in && (written_in[id(pb)] || writes[id(pb)]);
          }
        if (any_pred && in != written_in[id(b)]) {
          written_in[id(b)] = in;
          changed = true;
        }
      }
    }
    auto unwritten_here = [&](const clang::CFGBlock* b) { return !written_in[id(b)] && !writes[id(b)]; };

    // Which sides of each branch can write before the paths join again: the
    // branch decides whether a write happens.
    std::map<const clang::CFGBlock*, std::vector<bool>> side_writes;
    for (const auto& [b, join] : join_) {
      std::vector<bool> sides;
      for (const clang::CFGBlock* s : successors(b)) sides.push_back(s && writes_before(s, join, writes));
      side_writes[b] = std::move(sides);
    }
    // The decision on edge k of b that is a last chance to write, if any.
    auto chance = [&](const clang::CFGBlock* b, unsigned k) {
      auto it = side_writes.find(b);
      if (it == side_writes.end()) return false;
      auto succs = successors(b);
      for (unsigned j = 0; j < succs.size(); ++j)
        if (succs[j] && succs[j] != succs[k] && it->second[j]) return true;
      return false;
    };

    // Forward over write-free paths: the data branches that were the last
    // chance to write on some path reaching a block, with the side taken.
    // `per_iteration` starts afresh at every loop header, for the latches.
    using Decision = std::pair<const clang::CFGBlock*, unsigned>;
    auto propagate = [&](bool per_iteration) {
      std::vector<std::set<Decision>> last(n);
      for (bool changed = true; changed;) {
        changed = false;
        for (const clang::CFGBlock* b : *cfg_) {
          if (!unwritten_here(b)) continue;
          auto succs = successors(b);
          for (unsigned k = 0; k < succs.size(); ++k) {
            const clang::CFGBlock* s = succs[k];
            if (!s) continue;
            auto& target = last[id(s)];
            size_t before = target.size();
            if (chance(b, k)) {
              if (data_branches_.count(b)) target.insert({b, k});
            } else if (!(per_iteration && loop_headers_.count(s))) {
              target.insert(last[id(b)].begin(), last[id(b)].end());
            }
            changed |= target.size() != before;
          }
        }
      }
      return last;
    };
    std::set<const clang::CFGBlock*> reported;  // branches
    auto to_exit = propagate(false);
    for (const auto& [exit_block, exit] : exits_) {
      if (!unwritten_here(exit_block)) continue;
      for (const auto& [branch, side] : to_exit[id(exit_block)])
        if (reported.insert(branch).second) out.push_back(gap(param, branch, side, exit, false));
    }
    auto per_iteration = propagate(true);
    for (const clang::CFGBlock* latch : latches_) {
      if (!unwritten_here(latch)) continue;
      for (const auto& [branch, side] : per_iteration[id(latch)])
        if (reported.insert(branch).second) out.push_back(gap(param, branch, side, exits_.at(&cfg_->getExit()), true));
    }
  }

 private:
  std::vector<const clang::CFGBlock*> successors(const clang::CFGBlock* b) const {
    if (terminal_.count(b)) return {};
    return reachable_successors(*b);
  }

  // Loops: the targets (headers) and sources (latches) of DFS back edges.
  void find_back_edges() {
    std::set<const clang::CFGBlock*> on_stack, done;
    std::vector<std::pair<const clang::CFGBlock*, size_t>> stack{{&cfg_->getEntry(), 0}};
    on_stack.insert(&cfg_->getEntry());
    while (!stack.empty()) {
      auto& [b, next] = stack.back();
      auto succs = successors(b);
      if (next < succs.size()) {
        const clang::CFGBlock* s = succs[next++];
        if (!s || done.count(s)) continue;
        if (on_stack.count(s)) {
          loop_headers_.insert(s);
          latches_.insert(b);
          continue;
        }
        on_stack.insert(s);
        stack.push_back({s, 0});
      } else {
        on_stack.erase(b);
        done.insert(b);
        stack.pop_back();
      }
    }
  }

  // Whether a write is reachable from `from` without passing `join`.
  bool writes_before(const clang::CFGBlock* from, const clang::CFGBlock* join, const std::vector<bool>& writes) const {
    std::vector<const clang::CFGBlock*> queue{from};
    std::set<const clang::CFGBlock*> seen{from};
    for (size_t i = 0; i < queue.size(); ++i) {
      const clang::CFGBlock* b = queue[i];
      if (b == join) continue;
      if (writes[b->getBlockID()]) return true;
      for (const clang::CFGBlock* s : successors(b))
        if (s && seen.insert(s).second) queue.push_back(s);
    }
    return false;
  }

  VarSet derived_from(const clang::ParmVarDecl& param) const {
    VarSet derived{&param};
    for (bool changed = true; changed;) {
      changed = false;
      for (const auto& [var, value] : pointer_defs_) {
        if (derived.count(var)) continue;
        VarSet roots;
        add_pointer_roots(value, roots);
        if (var->getType()->isReferenceType()) add_memory_roots(value, roots);
        if (intersects(roots, derived)) changed = derived.insert(var).second;
      }
    }
    return derived;
  }

  OutputPathGap gap(const clang::ParmVarDecl& param, const clang::CFGBlock* branch, unsigned side,
                    const ExitPoint& exit, bool loop_iteration) const {
    const clang::Expr* condition = data_branches_.at(branch);
    OutputPathGap g;
    g.param = param.getNameAsString();
    g.exits_by_return = exit.by_return;
    g.loop_iteration = loop_iteration;
    g.exit = locate_(exit.where);
    g.condition = source_text(condition, ctx_);
    g.condition_location = locate_(condition->getBeginLoc());
    if (branch->succ_size() == 2) g.condition_outcome = side == 0 ? "true" : "false";
    return g;
  }

  clang::ASTContext& ctx_;
  const LocateFn& locate_;
  LoadDependence loads_;
  std::unique_ptr<clang::CFG> cfg_;
  std::vector<std::pair<const clang::VarDecl*, const clang::Expr*>> pointer_defs_;
  std::map<const clang::CFGBlock*, ExitPoint> exits_;
  std::set<const clang::CFGBlock*> terminal_;
  std::set<const clang::CFGBlock*> loop_headers_, latches_;
  std::map<const clang::CFGBlock*, const clang::CFGBlock*> join_;  // branch -> immediate post-dominator
  std::map<const clang::CFGBlock*, const clang::Expr*> data_branches_;
};

}  // namespace

std::vector<OutputPathGap> output_path_gaps(const clang::FunctionDecl& kernel, clang::ASTContext& ctx,
                                            const LocateFn& locate) {
  std::vector<OutputPathGap> out;
  if (!kernel.hasBody()) return out;
  KernelPaths paths(kernel, ctx, locate);
  for (const clang::ParmVarDecl* p : kernel.parameters())
    if (p->getType()->isPointerType()) paths.gaps_of(*p, out);
  return out;
}

}  // namespace cusched::audit
