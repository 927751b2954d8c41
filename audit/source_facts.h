#pragma once
// What the AST pass records about the user's code (the main file and the
// headers it includes from disk; not system headers, not the in-memory
// device library). Rules read these plain values; the AST is gone by then.
#include <string>
#include <vector>

#include "audit/source_location.h"

namespace clang {
class ASTContext;
class Decl;
}  // namespace clang

namespace cusched::audit {

struct ParamFacts {
  std::string name;
  std::string type;  // as Clang prints it, e.g. "const float *__restrict"
  bool is_pointer = false;
  bool pointee_const = false;
  SourceLocation location;
};

// A way for a thread to finish the kernel without writing through a pointer
// parameter, decided by a branch on a value loaded from memory (see
// output_path_analysis.h). Paths skipped only by bounds guards are not gaps.
struct OutputPathGap {
  std::string param;             // the pointer parameter not written
  bool exits_by_return = false;  // the path ends at a `return`, else at the end of the kernel
  bool loop_iteration = false;   // the path is one iteration of a loop that skips its write
  SourceLocation exit;           // the `return`, or the kernel's closing brace
  std::string condition;         // source text of the deciding condition
  SourceLocation condition_location;
  std::string condition_outcome;  // "true", "false" or "" (a switch)
};

struct KernelFacts {
  std::string name;     // source name
  std::string ir_name;  // mangled name in the device IR (== name for extern "C")
  bool extern_c = false;
  SourceLocation location;
  std::vector<ParamFacts> params;
  std::vector<OutputPathGap> output_gaps;  // for every pointer parameter
};

struct CallFacts {
  std::string callee;             // unqualified name, "operator new" for new-expressions
  std::string qualified_callee;   // with namespaces
  bool is_kernel_launch = false;  // kernel<<<...>>> from device code
  bool is_builtin = false;        // a Clang builtin (printf and malloc are library builtins too)
  bool callee_defined = false;    // a body exists somewhere in the translation unit
  bool callee_in_system_header = false;
  SourceLocation location;
};

struct AsmFacts {
  std::string text;  // the asm template, as written
  SourceLocation location;
};

struct CastFacts {
  std::string from_type, to_type;
  SourceLocation location;
};

struct GlobalVariableFacts {
  std::string name;
  std::string type;
  std::string memory_space;  // "__device__", "__managed__" or "function-scope static"
  bool is_const = false;
  SourceLocation location;
};

struct SourceFacts {
  std::string main_file;  // display name of the audited file
  std::vector<KernelFacts> kernels;
  std::vector<CallFacts> calls;
  std::vector<AsmFacts> asm_statements;
  std::vector<CastFacts> const_dropping_casts;
  std::vector<GlobalVariableFacts> device_globals;
  // Where the __managed__ macro is used: Clang 19 ignores the attribute in
  // CUDA mode, so the preprocessor is the reliable witness.
  std::vector<SourceLocation> managed_macro_uses;

  const KernelFacts* find_kernel(const std::string& name) const;
};

}  // namespace cusched::audit
