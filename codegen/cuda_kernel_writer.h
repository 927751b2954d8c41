#pragma once
// The writer of one kernel's CUDA source (KernelWriter), shared by the emitter's files:
// cuda_emitter.cpp (the kernel's frame, loops, allocations and statements),
// cuda_emit_scan.cpp (Scan),
// cuda_emit_tensor_cores.cpp (Mma, Wgmma, LdMatrix), cuda_emit_all_reduce.cpp
// (AllReduce within a block and across a cluster).
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/cuda_emitter.h"
#include "codegen/cuda_expr_emitter.h"
#include "codegen/cuda_vector_access.h"

namespace cusched::cuda_emit {

constexpr int kRelationalPrecedence = 6;

// The grid (block) dimension of a block (thread) axis; -1 for any other axis.
int block_axis_index(GpuAxis a);
int thread_axis_index(GpuAxis a);
const char* axis_letter(int a);
// The device library's functor of a reduction (cusched::SumOp, ...).
std::string reduce_op_struct(ReduceOp op);
// The source's wgmma function for N and operand precision, and its name
// (cuda_emit_tensor_cores.cpp).
std::string wgmma_function_name(int64_t n, Precision p);
std::string wgmma_function(int64_t n, Precision p);
// The register arrays that a body's wgmmas read their A fragments from: tf32 words, or
// words of two 16-bit elements (buffer -> element type).
void collect_wgmma_fragments(const Stmt& s, std::set<std::string>& tf32_words,
                             std::map<std::string, DType>& half_words);
// The (N, precision) of every wgmma in a body.
void collect_wgmma_widths(const Stmt& s, std::set<std::pair<int64_t, Precision>>& out);

// Writes one kernel. With `dynamic_smem`, shared arrays are carved from one
// `extern __shared__` array instead of being declared statically.
class KernelWriter {
 public:
  KernelWriter(const LoweredProgram& program, const Kernel& kernel, const EmitOptions& options, bool dynamic_smem)
      : program_(program),
        kernel_(kernel),
        options_(options),
        dynamic_smem_(dynamic_smem),
        expr_([this](const std::string& name) { return lookup(name); }, options.reference_f64) {}

  std::string write();
  int64_t shared_bytes() const { return shared_bytes_; }

 private:
  const EmittedBuffer* lookup(const std::string& name) const;
  void line(const std::string& text) { out_ << std::string(2 * indent_, ' ') << text << "\n"; }
  void open(const std::string& head) {
    line(head.empty() ? "{" : head + " {");
    ++indent_;
    c_names_.emplace_back();
  }
  void close() {
    --indent_;
    c_names_.pop_back();
    line("}");
  }
  bool declared_here(const std::string& name) const { return c_names_.back().count(name) > 0; }
  void declare(const std::string& name) { c_names_.back().insert(name); }
  std::string shared_array(const std::string& name, DType t, int64_t elements, int64_t alignment = 16);

  void stmt(const Stmt& s);
  // `target = value;`, the value's shared subexpressions computed first into named
  // constants, in a block of their own.
  void store_value(const std::string& target, const Expr& value, DType type);
  void for_loop(const StmtNode& s);
  void vectorized(const StmtNode& s, const VectorAccessPlan& plan);
  void allocate(const StmtNode& s);
  void all_reduce(const StmtNode& s);
  void scan(const StmtNode& s);
  // vb / sb / tb: the value buffer and, for a pair or triple reduction, the second and third values' (registers).
  void cluster_all_reduce(const StmtNode& s, const EmittedBuffer& vb, const EmittedBuffer* sb, const EmittedBuffer* tb);
  void mma(const StmtNode& s);
  void ldmatrix(const StmtNode& s);
  void wgmma(const StmtNode& s);
  std::string bound_text(const Expr& e) {
    return operand_text(expr_.emit_as(e, DType::i32), kRelationalPrecedence, true);
  }

  const LoweredProgram& program_;
  const Kernel& kernel_;
  const EmitOptions& options_;
  bool dynamic_smem_;
  CudaExprEmitter expr_;
  int shared_values_ = 0;  // named constants of shared subexpressions written so far
  std::ostringstream out_;
  int indent_ = 0;
  std::map<std::string, EmittedBuffer> globals_;
  std::vector<std::map<std::string, EmittedBuffer>> allocated_;  // IR scopes of Allocate
  std::vector<std::set<std::string>> c_names_;                   // names declared per C scope
  int64_t shared_bytes_ = 0;
  int reductions_ = 0, vectors_ = 0;
  // Register arrays of wgmma A fragments: declared as 32-bit words holding the tf32
  // values' bits (stores convert), which the instruction and hold_register take in place.
  std::set<std::string> tf32_words_;
  // The A fragments of bf16 and f16 wgmma (buffer -> element type), declared as 32-bit
  // words of two elements each (element i in word i / 2, the even one in the low half).
  std::map<std::string, DType> half_words_;
};

}  // namespace cusched::cuda_emit
