#pragma once
// Path analysis of a kernel's writes to its pointer parameters, on Clang's CFG.
//
// For each pointer parameter P, a forward must-analysis finds the points where
// P has not been written on every path. A write is an assignment, compound
// assignment or increment through P or a pointer derived from it, or passing
// such a pointer (non-const) to a call, a lambda that writes it, or inline asm.
//
// At every exit (a `return`, or the end of the kernel) and at the end of every
// loop iteration (a latch) reached on a path that wrote nothing through P, the
// analysis finds the branch that decided it: the last branch on the path whose
// other side could write P before the two sides join again (its immediate
// post-dominator). For latches, only branches of the current iteration count.
// When that branch depends on memory, the path is a gap: `if (x[i] > 0) return;`
// before the store, `if (x[i] > 0) out[i] = v;` with no else, the same inside a
// loop. Branches that depend only on thread and block indices, block and grid
// sizes, constants and scalar parameters are bounds guards; paths they decide
// are fine, even after an earlier data-dependent extra store.
#include <functional>
#include <vector>

#include "audit/source_facts.h"

namespace clang {
class ASTContext;
class FunctionDecl;
class SourceLocation;
}  // namespace clang

namespace cusched::audit {

using LocateFn = std::function<SourceLocation(clang::SourceLocation)>;

// The gaps of every pointer parameter of `kernel`.
std::vector<OutputPathGap> output_path_gaps(const clang::FunctionDecl& kernel, clang::ASTContext& ctx,
                                            const LocateFn& locate);

}  // namespace cusched::audit
