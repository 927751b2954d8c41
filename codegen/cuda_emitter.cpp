#include "codegen/cuda_emitter.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "codegen/cuda_expr_emitter.h"
#include "codegen/cuda_vector_access.h"
#include "codegen/mma_layout.h"
#include "codegen/passes/simplify.h"
#include "codegen/wgmma_layout.h"
#include "dsl/error.h"

namespace cusched {

namespace {

constexpr int kRelationalPrecedence = 6;

int block_axis_index(GpuAxis a) {
  switch (a) {
    case GpuAxis::BlockX: return 0;
    case GpuAxis::BlockY: return 1;
    case GpuAxis::BlockZ: return 2;
    default: return -1;
  }
}

int thread_axis_index(GpuAxis a) {
  switch (a) {
    case GpuAxis::ThreadX: return 0;
    case GpuAxis::ThreadY: return 1;
    case GpuAxis::ThreadZ: return 2;
    default: return -1;
  }
}

const char* axis_letter(int a) { return a == 0 ? "x" : a == 1 ? "y" : "z"; }

int64_t round_up_16(int64_t bytes) { return (bytes + 15) / 16 * 16; }

// A comment line that cannot continue onto the next line or close early.
std::string comment_text(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  if (!s.empty() && s.back() == '\\') s += " .";
  return s;
}

std::string reduce_op_struct(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "cusched::SumOp";
    case ReduceOp::Product: return "cusched::ProductOp";
    case ReduceOp::Min: return "cusched::MinOp";
    case ReduceOp::Max: return "cusched::MaxOp";
    case ReduceOp::ArgMin: return "cusched::ArgMinOp";
    case ReduceOp::ArgMax: return "cusched::ArgMaxOp";
  }
  return "?";
}

void collect_stored(const Stmt& s, std::set<std::string>& out) {
  if (!s) return;
  if (s->kind == StmtKind::Store) out.insert(s->buffer);
  for (const auto& c : s->body) collect_stored(c, out);
}

// True when any expression inside `s` mentions the variable `var`.
bool stmt_mentions_var(const Stmt& s, const std::string& var) {
  if (!s) return false;
  for (const Expr* e : {&s->min, &s->extent, &s->index, &s->value, &s->cond, &s->barrier_index})
    if (mentions_var(*e, var)) return true;
  for (const auto& o : s->operands)
    if (mentions_var(o, var)) return true;
  for (const auto& c : s->body)
    if (stmt_mentions_var(c, var)) return true;
  return false;
}

// The largest alignment of the shared arrays that a statement allocates (16 at least).
int64_t largest_shared_alignment(const Stmt& s) {
  if (!s) return 16;
  int64_t a = s->kind == StmtKind::Allocate && s->scope == MemScope::Shared ? std::max<int64_t>(s->alignment, 16) : 16;
  for (const auto& c : s->body) a = std::max(a, largest_shared_alignment(c));
  return a;
}

void collect_wgmma_fragments(const Stmt& s, std::set<std::string>& out) {
  if (!s) return;
  if (s->kind == StmtKind::Wgmma)
    for (const auto& o : s->operands)
      if (o->op == ExprOp::Load) out.insert(o->name);
  for (const auto& c : s->body) collect_wgmma_fragments(c, out);
}

void collect_wgmma_widths(const Stmt& s, std::set<int64_t>& out) {
  if (!s) return;
  if (s->kind == StmtKind::Wgmma) out.insert(s->width);
  for (const auto& c : s->body) collect_wgmma_widths(c, out);
}

std::string wgmma_function_name(int64_t n) { return "cusched_wgmma_m64n" + std::to_string(n) + "k8_tf32"; }

// wgmma.mma_async m64nNk8 with tf32 A in registers and B through a descriptor,
// D = A x B + D on N/2 accumulators per thread (its operand list depends on N). The A
// registers are read-write operands of 32-bit words (the fragment arrays are declared
// as words, tf32_words), so that the instruction reads the fragment's own registers, not
// copies that the compiler may reuse while the instruction is in flight.
std::string wgmma_function(int64_t n) {
  const int64_t acc = n / 2;
  std::ostringstream os;
  os << "__device__ __forceinline__ void " << wgmma_function_name(n)
     << "(float* d, unsigned int& a0, unsigned int& a1, unsigned int& a2, unsigned int& a3, unsigned long long b) {\n";
  os << "  asm volatile(\n      \"{\\n.reg .pred p;\\nsetp.ne.b32 p, 1, 0;\\n\"\n";
  os << "      \"wgmma.mma_async.sync.aligned.m64n" << n << "k8.f32.tf32.tf32 {";
  for (int64_t i = 0; i < acc; ++i) os << (i ? ", " : "") << "%" << i;
  os << "}, {%" << acc << ", %" << acc + 1 << ", %" << acc + 2 << ", %" << acc + 3 << "}, %" << acc + 4
     << ", p, 1, 1;\\n}\\n\"\n      : ";
  for (int64_t i = 0; i < acc; ++i) os << (i ? ", " : "") << "\"+f\"(d[" << i << "])";
  os << ", \"+r\"(a0), \"+r\"(a1), \"+r\"(a2), \"+r\"(a3)\n      : \"l\"(b));\n}\n";
  return os.str();
}

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
  void for_loop(const StmtNode& s);
  void vectorized(const StmtNode& s, const VectorAccessPlan& plan);
  void allocate(const StmtNode& s);
  void all_reduce(const StmtNode& s);
  // vb / ib: the value and (argmin/argmax) index buffers, checked to be registers.
  void cluster_all_reduce(const StmtNode& s, const EmittedBuffer& vb, const EmittedBuffer* ib);
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
  std::ostringstream out_;
  int indent_ = 0;
  std::map<std::string, EmittedBuffer> globals_;
  std::vector<std::map<std::string, EmittedBuffer>> allocated_;  // IR scopes of Allocate
  std::vector<std::set<std::string>> c_names_;                  // names declared per C scope
  int64_t shared_bytes_ = 0;
  int reductions_ = 0, vectors_ = 0;
  // Register arrays of wgmma A fragments: declared as 32-bit words holding the tf32
  // values' bits (stores convert), which the instruction and hold_register take in place.
  std::set<std::string> tf32_words_;
};

const EmittedBuffer* KernelWriter::lookup(const std::string& name) const {
  for (auto it = allocated_.rbegin(); it != allocated_.rend(); ++it)
    if (auto f = it->find(name); f != it->end()) return &f->second;
  if (auto f = globals_.find(name); f != globals_.end()) return &f->second;
  return nullptr;
}

// Declares a shared array (statically, or carved from the dynamic array) and
// returns the name to index it by.
std::string KernelWriter::shared_array(const std::string& name, DType t, int64_t elements, int64_t alignment) {
  const std::string c = cuda_type_name(t);
  alignment = std::max<int64_t>(alignment, 16);
  int64_t offset = (shared_bytes_ + alignment - 1) / alignment * alignment;
  shared_bytes_ = offset + round_up_16(elements * dtype_bytes(t));
  if (dynamic_smem_)
    line(c + "* " + name + " = reinterpret_cast<" + c + "*>(cusched_smem + " + std::to_string(offset) + ");");
  else
    line("__shared__ __align__(" + std::to_string(alignment) + ") " + c + " " + name + "[" + std::to_string(elements) + "];");
  declare(name);
  return name;
}

std::string KernelWriter::write() {
  if (kernel_.name.empty())
    fail("malformed-ir", "A kernel of the lowered program has no name.", "Name every kernel; this is a lowering bug.");
  if (!kernel_.body)
    fail("malformed-ir", "Kernel '" + kernel_.name + "' has no body.", "Give every kernel a body; this is a lowering bug.");
  for (int a = 0; a < 3; ++a)
    if (kernel_.grid[a] < 1 || kernel_.block[a] < 1)
      fail("malformed-ir", "Kernel '" + kernel_.name + "' has a grid or block dimension below 1.",
           "Give every launch dimension a positive size; this is a lowering bug.");

  std::set<std::string> stored;
  collect_stored(kernel_.body, stored);
  std::vector<std::string> params;
  for (const auto& name : kernel_.params) {
    const BufferSpec* b = program_.find_buffer(name);
    if (!b)
      fail("unknown-buffer", "Kernel '" + kernel_.name + "' takes buffer '" + name + "', which the program does not declare.",
           "Declare every kernel parameter in the program's buffers; this is a lowering bug.");
    EmittedBuffer e{emitted_dtype(*b, options_), MemScope::Global, b->elements() > std::numeric_limits<int32_t>::max()};
    globals_[name] = e;
    std::string c = cuda_type_name(e.dtype);
    // A read-only pointer that is also __restrict__ lets the compiler load through the
    // non-coherent path (ld.global.nc), which assumes the data fixed for the kernel's
    // whole life; ptxas may then hoist those loads above griddepcontrol.wait. Only the
    // pipeline's inputs are fixed while a dependent kernel runs; buffers that an earlier
    // kernel of the sequence writes are read through plain pointers (coherent loads).
    if (stored.count(name))
      params.push_back(c + "* __restrict__ " + name);
    else if (b->role == BufferRole::Input)
      params.push_back("const " + c + "* __restrict__ " + name);
    else
      params.push_back("const " + c + "* " + name);
  }

  collect_wgmma_fragments(kernel_.body, tf32_words_);
  c_names_.emplace_back();
  std::ostringstream head;
  head << "extern \"C\" __global__ void ";
  if (kernel_.cluster > 1) head << "__cluster_dims__(" << kernel_.cluster << ", 1, 1) ";
  if (kernel_.launch_max_threads > 0) {
    head << "__launch_bounds__(" << kernel_.launch_max_threads;
    if (kernel_.launch_min_blocks > 0) head << ", " << kernel_.launch_min_blocks;
    head << ") ";
  }
  head << kernel_.name << "(";
  for (size_t i = 0; i < params.size(); ++i) head << (i ? ", " : "") << params[i];
  head << ")";
  open(head.str());
  for (const auto& p : kernel_.params) declare(p);
  if (dynamic_smem_)
    line("extern __shared__ __align__(" + std::to_string(largest_shared_alignment(kernel_.body)) + ") unsigned char cusched_smem[];");
  // The next kernel may be scheduled now; this one waits for the previous kernel's results.
  line("cusched::allow_next_grid();");
  line("cusched::wait_for_previous_grid();");
  // One L2 policy per hinted input (l2_hint), made before the loads that carry it.
  for (const auto& [buffer, hint] : kernel_.l2_hints) {
    if (std::find(kernel_.params.begin(), kernel_.params.end(), buffer) == kernel_.params.end()) continue;
    const std::string policy = "cusched_l2_" + buffer;
    char fraction[16];
    std::snprintf(fraction, sizeof fraction, "%.2ff", static_cast<double>(hint.percent) / 100.0);
    line("const unsigned long long " + policy + " = cusched::l2_policy_" + hint.policy + "(" + fraction + ");");
    expr_.l2_policies[buffer] = policy;
  }
  // The cluster reductions leave each thread's last arrival pending; it completes here.
  // The pushed ones alternate between two phases of slots.
  if (kernel_.cluster > 1) {
    line("bool cusched_cluster_pending = false;");
    line("unsigned int cusched_cluster_phase = 0;");
  }
  stmt(kernel_.body);
  if (kernel_.cluster > 1) line("cusched::cluster_settle(cusched_cluster_pending);");
  close();
  return out_.str();
}

void KernelWriter::stmt(const Stmt& s) {
  if (!s) return;
  switch (s->kind) {
    case StmtKind::Block:
      for (const auto& c : s->body) stmt(c);
      break;
    case StmtKind::For:
      for_loop(*s);
      break;
    case StmtKind::Store: {
      std::string target = expr_.element(s->buffer, s->index);
      if (tf32_words_.count(s->buffer)) line(target + " = __float_as_uint(" + expr_.text_as(s->value, DType::f32) + ");");
      else line(target + " = " + expr_.text_as(s->value, lookup(s->buffer)->dtype) + ";");
      break;
    }
    case StmtKind::Allocate:
      allocate(*s);
      break;
    case StmtKind::If:
      open("if (" + expr_.text_as(s->cond, DType::boolean) + ")");
      stmt(s->body[0]);
      if (s->body.size() > 1) {
        --indent_;
        line("} else {");
        ++indent_;
        c_names_.back().clear();
        stmt(s->body[1]);
      }
      close();
      break;
    case StmtKind::Barrier:
      line("__syncthreads();");
      break;
    case StmtKind::AllReduce:
      all_reduce(*s);
      break;
    case StmtKind::Mma:
      mma(*s);
      break;
    case StmtKind::LdMatrix:
      ldmatrix(*s);
      break;
    case StmtKind::Wgmma:
      wgmma(*s);
      break;
    case StmtKind::WgmmaFence:
      line("cusched::wgmma_fence();");
      break;
    case StmtKind::WgmmaCommit:
      line("cusched::wgmma_commit();");
      break;
    case StmtKind::WgmmaWait:
      line("cusched::wgmma_wait<" + std::to_string(s->width) + ">();");
      for (int64_t i = 0; i < s->size; ++i)
        line("cusched::hold_register(" + expr_.element(s->source, simplify(s->index + make_int(i))) + ");");
      break;
    case StmtKind::AsyncProxyFence:
      line("cusched::async_proxy_fence();");
      break;
    case StmtKind::AsyncCopy: {
      if (s->value->op != ExprOp::Load || s->value->args.size() != 1)
        fail("malformed-ir", "Kernel '" + kernel_.name + "' has an asynchronous copy into '" + s->buffer + "' whose source is not a load.",
             "Copy from one element of a global buffer.");
      if (s->copy_bytes != 4 && s->copy_bytes != 16)
        fail("malformed-ir", "Kernel '" + kernel_.name + "' has an asynchronous copy of " + std::to_string(s->copy_bytes) + " bytes.",
             "Copy 4 or 16 bytes per cp.async.");
      line("cusched::cp_async_" + std::to_string(s->copy_bytes) + "(&" + expr_.element(s->buffer, s->index) + ", &" +
           expr_.element(s->value->name, s->value->args[0]) + ");");
      break;
    }
    case StmtKind::BulkCopy:
      if (s->value->op != ExprOp::Load || s->value->args.size() != 1)
        fail("malformed-ir", "Kernel '" + kernel_.name + "' has a bulk copy into '" + s->buffer + "' whose source is not a load.",
             "Copy from one element of a global buffer.");
      line("cusched::bulk_copy_global_to_shared(&" + expr_.element(s->buffer, s->index) + ", &" +
           expr_.element(s->value->name, s->value->args[0]) + ", " + expr_.text_as(s->extent, DType::i32) + ", &" +
           expr_.element(s->barrier, s->barrier_index) + ");");
      break;
    case StmtKind::MbarrierInit:
      line("cusched::mbarrier_init(&" + expr_.element(s->buffer, s->index) + ", " + std::to_string(s->width) + ");");
      break;
    case StmtKind::MbarrierExpect:
      line("cusched::mbarrier_arrive_expect_tx(&" + expr_.element(s->buffer, s->index) + ", " +
           expr_.text_as(s->value, DType::i32) + ");");
      break;
    case StmtKind::MbarrierWait:
      line("cusched::mbarrier_wait_parity(&" + expr_.element(s->buffer, s->index) + ", " +
           expr_.text_as(s->value, DType::i32) + ");");
      break;
    case StmtKind::AsyncCommit:
      line("cusched::cp_async_commit();");
      break;
    case StmtKind::AsyncWait:
      line("cusched::cp_async_wait<" + std::to_string(s->width) + ">();");
      break;
  }
}

void KernelWriter::for_loop(const StmtNode& s) {
  if (s.body.empty()) return;
  int64_t extent = 0;
  bool const_extent = is_const_int(s.extent, &extent);
  if (int a = block_axis_index(s.axis); a >= 0) {
    bool guard = !(const_extent && extent == kernel_.grid[a]);
    bool used = guard || stmt_mentions_var(s.body[0], s.var);
    bool brace = used && declared_here(s.var);
    if (brace) open("");
    if (used) {
      line("const int " + s.var + " = blockIdx." + axis_letter(a) + ";");
      declare(s.var);
    }
    if (guard) open("if (" + s.var + " < " + bound_text(s.extent) + ")");
    stmt(s.body[0]);
    if (guard) close();
    if (brace) close();
    return;
  }
  const int a = thread_axis_index(s.axis);
  if (a >= 0 || s.axis == GpuAxis::ClusterX) {
    // A thread loop, or a cluster loop (the block's rank in the cluster is blockIdx.x).
    const bool cluster = a < 0;
    bool guard = !(const_extent && extent == (cluster ? kernel_.cluster : kernel_.block[a]));
    open("");
    if (guard || stmt_mentions_var(s.body[0], s.var)) {
      line("const int " + s.var + " = " + (cluster ? std::string("blockIdx.x") : "threadIdx." + std::string(axis_letter(a))) + ";");
      declare(s.var);
    }
    if (guard) open("if (" + s.var + " < " + bound_text(s.extent) + ")");
    stmt(s.body[0]);
    if (guard) close();
    close();
    return;
  }
  if (s.loop_kind == LoopKind::Vectorized && !options_.reference_f64) {
    if (auto plan = plan_vector_access(s, [this](const std::string& n) { return lookup(n); })) {
      vectorized(s, *plan);
      return;
    }
  }
  int64_t first = 0;
  bool const_min = is_const_int(s.min, &first);
  std::string end;
  if (const_min && const_extent) end = std::to_string(first + extent);
  else if (const_min && first == 0) end = bound_text(s.extent);
  else end = bound_text(s.min + s.extent);
  if (s.loop_kind != LoopKind::Serial) line("#pragma unroll");
  open("for (int " + s.var + " = " + expr_.text_as(s.min, DType::i32) + "; " + s.var + " < " + end + "; ++" + s.var + ")");
  declare(s.var);
  stmt(s.body[0]);
  close();
}

void KernelWriter::vectorized(const StmtNode& s, const VectorAccessPlan& plan) {
  static const char* components[] = {"x", "y", "z", "w"};
  const std::string vt = plan.lanes == 4 ? "float4" : "float2";
  open("");
  line("// " + s.var + " = " + std::to_string(plan.first) + " .. " + std::to_string(plan.first + plan.lanes - 1) +
       " as one " + vt + " access" + (plan.accumulate ? ", lanes accumulated in order" : ""));
  if (plan.guard) open("if (" + expr_.text_as(plan.guard->cond, DType::boolean) + ")");
  auto saved_vars = expr_.var_values;
  expr_.var_values[s.var] = plan.first;
  std::vector<std::string> names;
  for (const ExprNode* l : plan.vector_loads) {
    std::string name = l->name + "_vec" + std::to_string(vectors_++);
    line("const " + vt + " " + name + " = " +
         expr_.load_through(l->name, "reinterpret_cast<const " + vt + "*>(&" + expr_.element(l->name, l->args[0]) + ")") + ";");
    declare(name);
    names.push_back(name);
  }
  // A Select of a vector load and register elements: one vector from the arm its
  // condition picks (the other arm is not read).
  for (const ExprNode* sel : plan.vector_selects) {
    const ExprNode& l = *sel->args[1];
    const ExprNode& r = *sel->args[2];
    std::string elements;
    for (int k = 0; k < plan.lanes; ++k) {
      expr_.var_values[s.var] = plan.first + k;
      elements += (k ? ", " : "") + expr_.element(r.name, r.args[0]);
    }
    expr_.var_values[s.var] = plan.first;
    std::string name = l.name + "_vec" + std::to_string(vectors_++);
    line("const " + vt + " " + name + " = " + expr_.text_as(sel->args[0], DType::boolean) + " ? " +
         expr_.load_through(l.name, "reinterpret_cast<const " + vt + "*>(&" + expr_.element(l.name, l.args[0]) + ")") +
         " : make_" + vt + "(" + elements + ");");
    declare(name);
    names.push_back(name);
  }
  std::string target = expr_.element(plan.store->buffer, plan.store->index);
  const DType target_type = lookup(plan.store->buffer)->dtype;
  std::vector<std::string> lanes;
  for (int k = 0; k < plan.lanes; ++k) {
    expr_.var_values[s.var] = plan.first + k;
    for (size_t i = 0; i < plan.vector_loads.size(); ++i)
      expr_.load_texts[plan.vector_loads[i]] = names[i] + "." + components[k];
    for (size_t i = 0; i < plan.vector_selects.size(); ++i)
      expr_.load_texts[plan.vector_selects[i]] = names[plan.vector_loads.size() + i] + "." + components[k];
    if (plan.accumulate) line(target + " = " + expr_.text_as(plan.store->value, target_type) + ";");
    else if (plan.register_target) line(expr_.element(plan.store->buffer, plan.store->index) + " = " + expr_.text_as(plan.store->value, target_type) + ";");
    else lanes.push_back(expr_.text_as(plan.store->value, DType::f32));
  }
  expr_.load_texts.clear();
  expr_.var_values = saved_vars;
  if (!plan.accumulate && !plan.register_target) {
    std::string args;
    for (size_t k = 0; k < lanes.size(); ++k) args += (k ? ", " : "") + lanes[k];
    line("*reinterpret_cast<" + vt + "*>(&" + target + ") = make_" + vt + "(" + args + ");");
  }
  if (plan.guard) close();
  close();
}

void KernelWriter::allocate(const StmtNode& s) {
  if (s.size < 1)
    fail("malformed-ir", "Kernel '" + kernel_.name + "' allocates '" + s.buffer + "' with " + std::to_string(s.size) + " elements.",
         "Allocate at least one element; this is a lowering bug.");
  if (s.scope == MemScope::Global)
    fail("malformed-ir", "Kernel '" + kernel_.name + "' allocates '" + s.buffer + "' in global memory inside a kernel.",
         "Make global buffers program buffers and kernel parameters; this is a lowering bug.");
  DType t = expr_.storage_type(s.dtype);
  bool brace = declared_here(s.buffer);
  if (brace) open("");
  if (s.scope == MemScope::Register) {
    line((tf32_words_.count(s.buffer) ? std::string("unsigned int") : cuda_type_name(t)) + " " + s.buffer + "[" +
         std::to_string(s.size) + "];");
    declare(s.buffer);
  } else {
    shared_array(s.buffer, t, s.size, s.alignment);
  }
  allocated_.push_back({{s.buffer, EmittedBuffer{t, s.scope, false}}});
  if (!s.body.empty()) stmt(s.body[0]);
  allocated_.pop_back();
  if (brace) close();
}

// One tensor-core instruction for the warp: this lane's fragments, then mma.sync
// accumulating in place into four consecutive accumulators.
void KernelWriter::mma(const StmtNode& s) {
  const MmaLayout& l = mma_layout(s.mma_shape);
  const EmittedBuffer* acc = lookup(s.buffer);
  if (!acc || acc->scope != MemScope::Register || acc->dtype != DType::f32)
    fail("malformed-ir", "Kernel '" + kernel_.name + "' accumulates tensor-core tiles into '" + s.buffer + "', which is not an f32 register array in scope.",
         "Allocate the accumulators as f32 registers around the Mma.");
  if (static_cast<int>(s.operands.size()) != l.a_count + l.b_count)
    fail("malformed-ir", "Kernel '" + kernel_.name + "' has an Mma with " + std::to_string(s.operands.size()) + " operands; " + s.mma_shape +
             " takes " + std::to_string(l.a_count + l.b_count) + ".",
         "Give each lane its A fragment elements and then its B fragment elements.");
  auto values = [&](int first, int count) {
    std::vector<std::string> v;
    for (int i = first; i < first + count; ++i) v.push_back(expr_.text_as(s.operands[i], DType::f32));
    return v;
  };
  auto joined = [](const std::vector<std::string>& v) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i];
    return out;
  };
  const std::vector<std::string> a = values(0, l.a_count), b = values(l.a_count, l.b_count);
  const std::string d = "&" + expr_.element(s.buffer, s.index);
  open("");
  if (s.mma_shape == "m16n8k8") {
    line("const float mma_a[4] = {" + joined(a) + "};");
    line("const float mma_b[2] = {" + joined(b) + "};");
    line("cusched::mma_m16n8k8_" + s.mma_precision + "(" + d + ", mma_a, mma_b, " + d + ");");
  } else {
    const std::string pack = s.mma_precision == "bf16" ? "cusched::pack_bf16x2" : "cusched::pack_f16x2";
    auto pairs = [&](const std::vector<std::string>& v) {
      std::vector<std::string> out;
      for (size_t i = 0; i + 1 < v.size(); i += 2) out.push_back(pack + "(" + v[i] + ", " + v[i + 1] + ")");
      return out;
    };
    line("const unsigned int mma_a[4] = {" + joined(pairs(a)) + "};");
    line("const unsigned int mma_b[2] = {" + joined(pairs(b)) + "};");
    line("cusched::mma_m16n8k16_" + s.mma_precision + "(" + d + ", mma_a, mma_b, " + d + ");");
  }
  close();
}

// One warpgroup MMA: this thread's A elements as tf32 bit patterns, the descriptor of
// B's shared tile, accumulating in place into N/2 consecutive accumulators through the
// source's function for this N (wgmma_function).
void KernelWriter::wgmma(const StmtNode& s) {
  const EmittedBuffer* acc = lookup(s.buffer);
  const EmittedBuffer* b = lookup(s.source);
  if (!acc || acc->scope != MemScope::Register || acc->dtype != DType::f32 || !b || b->scope != MemScope::Shared ||
      b->dtype != DType::f32 || options_.reference_f64)
    fail("wgmma-unsupported", "Kernel '" + kernel_.name + "' has a wgmma into '" + s.buffer + "' reading '" + s.source +
             "', which are not an f32 register array and an f32 shared array in scope" +
             (options_.reference_f64 ? " (the f64 reference has no warpgroup tensor cores)." : "."),
         "Allocate the accumulators as f32 registers and stage B as f32 in shared memory; emit tensor-core kernels in their own precision.");
  if (s.operands.size() != static_cast<size_t>(kWgmmaAElements) || s.mma_precision != "tf32")
    fail("malformed-ir", "Kernel '" + kernel_.name + "' has a wgmma with " + std::to_string(s.operands.size()) + " A elements in " +
             s.mma_precision + ".",
         "Give each thread its four tf32 A elements.");
  std::string args = "&" + expr_.element(s.buffer, s.index);
  for (const auto& o : s.operands) {
    const EmittedBuffer* r = o->op == ExprOp::Load && o->args.size() == 1 ? lookup(o->name) : nullptr;
    if (!r || r->scope != MemScope::Register || r->dtype != DType::f32)
      fail("malformed-ir", "Kernel '" + kernel_.name + "' gives a wgmma the A element " + to_string(o) +
               ", which is not an element of an f32 register array.",
           "Load the A fragment into registers before the wgmma and pass its elements.");
    args += ", " + expr_.element(o->name, o->args[0]);
  }
  args += ", cusched::wgmma_descriptor_sw128(&" + expr_.element(s.source, s.value) + ")";
  line(wgmma_function_name(s.width) + "(" + args + ");");
}

// One warp-wide ldmatrix: the lane's row address, then the received words unpacked
// into the fragment's elements (cusched_mma.cuh).
void KernelWriter::ldmatrix(const StmtNode& s) {
  const EmittedBuffer* frag = lookup(s.buffer);
  const EmittedBuffer* src = lookup(s.source);
  if (!frag || frag->scope != MemScope::Register || !src || src->scope != MemScope::Shared || frag->dtype != src->dtype)
    fail("malformed-ir", "Kernel '" + kernel_.name + "' loads ldmatrix fragment '" + s.buffer + "' from '" + s.source +
             "', which are not a register array and a shared array of one element type in scope.",
         "Allocate the fragment in registers with the shared source's element type.");
  const int bytes = dtype_bytes(src->dtype);
  if (options_.reference_f64 || (bytes != 2 && bytes != 4) || (s.transpose && bytes != 2) ||
      (s.matrices != 1 && s.matrices != 2 && s.matrices != 4))
    fail("ldmatrix-unsupported", "Kernel '" + kernel_.name + "' loads '" + s.buffer + "' with an ldmatrix of " +
             std::to_string(s.matrices) + " matrices of " + dtype_name(src->dtype) + (s.transpose ? " elements, transposed," : " elements") +
             (options_.reference_f64 ? " in the f64 reference, whose shared arrays hold doubles." : ", which the instruction does not have."),
         "Load 1, 2 or 4 matrices of 16-bit or 32-bit elements (transposed only 16-bit), and emit tensor-core kernels in their own precision.");
  const std::string n = std::to_string(s.matrices);
  open("");
  line("unsigned int ldm[" + n + "];");
  line(std::string("cusched::ldmatrix_x") + n + (s.transpose ? "_trans" : "") + "(ldm, &" + expr_.element(s.source, s.value) + ");");
  const int per_word = 4 / bytes;
  for (int j = 0; j < s.matrices; ++j)
    for (int e = 0; e < per_word; ++e) {
      const std::string target = expr_.element(s.buffer, s.index + make_int(j * per_word + e));
      const std::string word = "ldm[" + std::to_string(j) + "]";
      if (bytes == 4) line(target + " = __uint_as_float(" + word + ");");
      else
        line(target + " = " + (src->dtype == DType::bf16 ? "__ushort_as_bfloat16" : "__ushort_as_half") +
             "(static_cast<unsigned short>(" + word + (e ? " >> 16" : " & 0xffffu") + "));");
    }
  close();
}

void KernelWriter::all_reduce(const StmtNode& s) {
  const bool arg = s.reduce_op == ReduceOp::ArgMin || s.reduce_op == ReduceOp::ArgMax;
  const EmittedBuffer* vb = lookup(s.buffer);
  const EmittedBuffer* ib = arg ? lookup(s.index_buffer) : nullptr;
  for (const auto& [name, b] : {std::pair{s.buffer, vb}, std::pair{s.index_buffer, ib}}) {
    if (name == s.index_buffer && !arg) continue;
    if (!b)
      fail("unknown-buffer", "Kernel '" + kernel_.name + "' reduces '" + name + "', which is not allocated in scope.",
           "Allocate the reduced value (and, for argmin/argmax, its index) in registers around the AllReduce.");
    if (b->scope != MemScope::Register)
      fail("allreduce-needs-register",
           "Kernel '" + kernel_.name + "' reduces '" + name + "' across threads, but it is a " + mem_scope_name(b->scope) + " buffer.",
           "AllReduce combines per-thread values: allocate the buffer in registers.");
  }
  if (s.reduce_kind == "cluster") {
    cluster_all_reduce(s, *vb, ib);
    return;
  }
  const int a = thread_axis_index(s.reduce_axis);
  if (a < 0)
    fail("malformed-ir", "Kernel '" + kernel_.name + "' reduces over " + gpu_axis_name(s.reduce_axis) + ", which is not a thread axis.",
         "Reduce over threadIdx.x, threadIdx.y or threadIdx.z.");
  const int64_t dim = kernel_.block[a], width = s.width;
  if (width < 1 || dim % width != 0)
    fail("allreduce-width-mismatch",
         "Kernel '" + kernel_.name + "' reduces over groups of " + std::to_string(width) + " threads along " +
             gpu_axis_name(s.reduce_axis) + ", which does not divide the block's " + std::to_string(dim) + " threads there.",
         "Use a width that divides the block size on the reduce axis.");
  const std::string value = expr_.element(s.buffer, s.index);
  const std::string index = arg ? expr_.element(s.index_buffer, s.index) : "";
  const std::string op = reduce_op_struct(s.reduce_op);
  const std::string w = std::to_string(width);
  const bool pow2 = (width & (width - 1)) == 0;
  const int64_t threads = kernel_.block[0] * kernel_.block[1] * kernel_.block[2];

  // The cheapest exact implementation for the group shape: shuffles when the group
  // is a power-of-two run of lanes inside one warp, shuffles plus one value per warp
  // when it is whole warps along x, otherwise one value per thread in shared memory.
  if (a == 0 && pow2 && width <= 32) {
    if (arg) line("cusched::warp_allreduce_arg<" + op + ">(" + value + ", " + index + ", " + w + ");");
    else line(value + " = cusched::warp_allreduce<" + op + ">(" + value + ", " + w + ");");
    return;
  }
  const bool whole_warps = a == 0 && width % 32 == 0;
  const int64_t slots = whole_warps ? threads / 32 : threads;
  const std::string scratch = "cusched_reduce" + std::to_string(reductions_++);
  open("");
  shared_array(scratch, vb->dtype, slots);
  if (arg) shared_array(scratch + "_index", ib->dtype, slots);
  if (whole_warps) {
    if (arg)
      line("cusched::block_allreduce_arg<" + op + ">(" + value + ", " + index + ", " + w + ", " + scratch + ", " + scratch +
           "_index);");
    else
      line(value + " = cusched::block_allreduce<" + op + ">(" + value + ", " + w + ", " + scratch + ");");
  } else {
    const int64_t stride = a == 0 ? 1 : a == 1 ? kernel_.block[0] : kernel_.block[0] * kernel_.block[1];
    const std::string group = "static_cast<int>(threadIdx." + std::string(axis_letter(a)) + "), " + w + ", " +
                              std::to_string(stride);
    if (arg)
      line("cusched::block_allreduce_arg_strided<" + op + ">(" + value + ", " + index + ", " + group + ", " + scratch +
           ", " + scratch + "_index);");
    else
      line(value + " = cusched::block_allreduce_strided<" + op + ">(" + value + ", " + group + ", " + scratch + ");");
  }
  close();
}

// Across the blocks of the cluster through distributed shared memory. When the stage
// combined across the whole block first, every thread holds the same value and each
// block pushes that one value into every block's slots; otherwise each thread combines
// the slots of its own thread index in every block.
void KernelWriter::cluster_all_reduce(const StmtNode& s, const EmittedBuffer& vb, const EmittedBuffer* ib) {
  if (s.reduce_axis != GpuAxis::ClusterX || s.width != kernel_.cluster || kernel_.cluster < 2)
    fail("malformed-ir", "Kernel '" + kernel_.name + "' has a cluster all-reduce over " + std::to_string(s.width) + " blocks on " +
             gpu_axis_name(s.reduce_axis) + " but a cluster of " + std::to_string(kernel_.cluster) + ".",
         "Combine across cluster.x with the cluster's full width; this is a lowering bug.");
  const bool arg = ib != nullptr;
  const int64_t threads = kernel_.block[0] * kernel_.block[1] * kernel_.block[2];
  const int a = thread_axis_index(s.combined_axis);
  const bool uniform = a >= 0 && s.combined_width == kernel_.block[a] && threads == kernel_.block[a];
  const std::string value = expr_.element(s.buffer, s.index), op = reduce_op_struct(s.reduce_op);
  const std::string w = std::to_string(s.width), scratch = "cusched_reduce" + std::to_string(reductions_++);
  const std::string index = arg ? expr_.element(s.index_buffer, s.index) : "";
  open("");
  if (uniform) {
    shared_array(scratch, vb.dtype, 2 * s.width);  // two phases of one slot per block
    if (arg) {
      shared_array(scratch + "_index", ib->dtype, 2 * s.width);
      line("cusched::cluster_allreduce_arg_uniform_push<" + op + ", " + w + ">(" + value + ", " + index + ", " + scratch + ", " +
           scratch + "_index, cusched_cluster_phase, cusched_cluster_pending);");
    } else {
      line(value + " = cusched::cluster_allreduce_uniform_push<" + op + ", " + w + ">(" + value + ", " + scratch +
           ", cusched_cluster_phase, cusched_cluster_pending);");
    }
  } else {
    shared_array(scratch, vb.dtype, threads);
    if (arg) {
      shared_array(scratch + "_index", ib->dtype, threads);
      line("cusched::cluster_allreduce_arg<" + op + ">(" + value + ", " + index + ", " + w + ", " + scratch + ", " + scratch +
           "_index, cusched_cluster_pending);");
    } else {
      line(value + " = cusched::cluster_allreduce<" + op + ">(" + value + ", " + w + ", " + scratch + ", cusched_cluster_pending);");
    }
  }
  close();
}

std::string launch_comment(const Kernel& k, int64_t dynamic_smem) {
  std::ostringstream os;
  os << "// kernel " << k.name << ": grid (" << k.grid[0] << ", " << k.grid[1] << ", " << k.grid[2] << "), block ("
     << k.block[0] << ", " << k.block[1] << ", " << k.block[2] << ")";
  if (k.cluster > 1) os << ", clusters of " << k.cluster << " blocks";
  if (dynamic_smem > 0) os << ", " << dynamic_smem << " bytes of dynamic shared memory";
  return os.str();
}

}  // namespace

DType emitted_dtype(const BufferSpec& buffer, const EmitOptions& options) {
  if (options.reference_f64 && buffer.role != BufferRole::Input && dtype_is_float(buffer.dtype)) return DType::f64;
  return buffer.dtype;
}

EmittedCuda emit_cuda_program(const LoweredProgram& program, const EmitOptions& options) {
  EmittedCuda out;
  std::ostringstream os;
  os << "// Generated by cusched.\n";
  os << "// problem: " << comment_text(program.problem) << "\n";
  os << "// schedule: " << comment_text(program.schedule_hash) << "\n";
  if (options.reference_f64)
    os << "// precision: f64 reference (every floating-point value computed and stored in double; inputs widened)\n";
  else
    os << "// precision: " << comment_text(program.precision)
       << (program.math == "fast" ? ", fast math (exp, log, division as __expf, __logf, __fdividef)" : "") << "\n";
  os << "// schedule steps:";
  if (program.schedule_text.empty()) os << " (none)";
  os << "\n";
  for (const auto& step : program.schedule_text) os << "//   " << comment_text(step) << "\n";
  os << "\n#include \"cusched_device.cuh\"\n";
  std::set<int64_t> wgmma_widths;
  for (const auto& k : program.kernels) collect_wgmma_widths(k.body, wgmma_widths);
  for (int64_t n : wgmma_widths) os << "\n" << wgmma_function(n);
  for (const auto& k : program.kernels) {
    std::string text;
    int64_t dynamic = 0;
    {
      KernelWriter w(program, k, options, false);
      text = w.write();
      if (w.shared_bytes() > kStaticSharedLimitBytes) {
        KernelWriter d(program, k, options, true);
        text = d.write();
        dynamic = d.shared_bytes();
      }
    }
    os << "\n" << launch_comment(k, dynamic) << "\n" << text;
    out.dynamic_smem_bytes.push_back(dynamic);
  }
  out.source = os.str();
  return out;
}

std::string emit_cuda(const LoweredProgram& program, const EmitOptions& options) {
  return emit_cuda_program(program, options).source;
}

}  // namespace cusched
