#pragma once
// CUDA C++ text of IR expressions with exact types: every operand is converted
// explicitly to the type its operation computes in, f32 math uses the f-suffixed
// functions and literals, f16 / bf16 arithmetic is done in f32 and rounded back once
// per operation, and index math is int (long long for buffers past 2^31 elements, where each
// subexpression whose range may pass int's).
// In the f64 reference variant every floating-point computation is double.
#include <functional>
#include <map>
#include <set>
#include <string>

#include "codegen/index_interval.h"
#include "codegen/ir.h"

namespace cusched {

// A buffer as the emitted code declares it.
struct EmittedBuffer {
  DType dtype = DType::f32;  // element type in the emitted code
  MemScope scope = MemScope::Global;
  bool wide_index = false;  // more than 2^31 - 1 elements: index in long long
  bool f32_words = false;   // f32 values declared as 32-bit words (wgmma fragments): loads reinterpret them
};

// A piece of emitted C++: its text, its C type and its operator precedence
// (0 primary ... 13 conditional), used to place parentheses only where needed.
struct CudaValue {
  std::string text;
  DType type = DType::i32;
  int precedence = 0;
};

// The C spelling of a type in emitted code: float, double, __half, int, long long, ...
std::string cuda_type_name(DType t);

class CudaExprEmitter {
 public:
  using BufferLookup = std::function<const EmittedBuffer*(const std::string&)>;
  CudaExprEmitter(BufferLookup lookup, bool reference_f64);

  CudaValue emit(const Expr& e);
  // The expression converted to type `t` (literals are written directly in `t`).
  CudaValue emit_as(const Expr& e, DType t);
  std::string text_as(const Expr& e, DType t) { return emit_as(e, t).text; }
  // The text of `buffer[index]` for a Store target, with the index typed for the buffer.
  std::string element(const std::string& buffer, const Expr& index);
  // The type a value of IR type `t` is stored in: f64 for floats in the reference variant.
  DType storage_type(DType t) const;

  // Substitutions for the lanes of a vectorized loop: loop variables with a fixed value,
  // and loads replaced by a vector component.
  std::map<std::string, int64_t> var_values;
  std::map<const ExprNode*, std::string> load_texts;
  // Nodes whose value a named constant holds (a shared subexpression computed before its
  // statement): emitted as that name.
  std::map<const ExprNode*, CudaValue> bound;
  // The ranges of the variables in scope (loop, thread and block indices): the parts of
  // a long long index that provably fit in int are computed in int.
  VarIntervals var_ranges;
  // Buffers whose loads carry an L2 eviction policy (l2_hint), with the policy's variable.
  std::map<std::string, std::string> l2_policies;
  // The load through `pointer` into `buffer`: `*pointer`, or cusched::load_l2 with the
  // buffer's policy.
  std::string load_through(const std::string& buffer, const std::string& pointer) const;

 private:
  DType arith_type(DType t) const;
  DType common_type(const Expr& a, const Expr& b) const;
  CudaValue convert(CudaValue v, DType to) const;
  CudaValue round_back(CudaValue v, DType node_type) const;
  CudaValue literal(const ExprNode& n, DType t) const;
  CudaValue binary(const ExprNode& n);
  CudaValue call(const ExprNode& n);
  CudaValue load(const ExprNode& n);
  CudaValue var(const ExprNode& n) const;
  std::string index_text(const EmittedBuffer& b, const Expr& index);

  BufferLookup lookup_;
  bool reference_f64_;
  bool wide_ = false;                 // emitting the index of a wide buffer: i32 math is done in long long
  std::set<const ExprNode*> narrow_;  // in a long long index: the subtrees that fit in int
  bool narrow_mode_ = false;          // emitting such a subtree: long long math is done in int
};

// Text of `v` as an operand of an operator of precedence `p` (parenthesized if needed;
// `right` for the right operand of a left-associative operator).
std::string operand_text(const CudaValue& v, int p, bool right = false);

}  // namespace cusched
