// The CUDA emitter: the program's source (header, wgmma functions, one kernel each) and each
// kernel's frame, loops, allocations and statements (KernelWriter, cuda_kernel_writer.h).
#include "codegen/cuda_emitter.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "codegen/cuda_kernel_writer.h"
#include "codegen/gpu_axis.h"
#include "codegen/index_ranges.h"
#include "codegen/mma_layout.h"
#include "codegen/passes/simplify.h"
#include "codegen/shared_subexpressions.h"
#include "codegen/wgmma_layout.h"
#include "dsl/error.h"

namespace cusched {

namespace cuda_emit {

int block_axis_index(GpuAxis a) { return is_block_axis(a) ? gpu_axis_dimension(a) : -1; }
int thread_axis_index(GpuAxis a) { return is_thread_axis(a) ? gpu_axis_dimension(a) : -1; }

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
    case ReduceOp::Sum:
      return "cusched::SumOp";
    case ReduceOp::Product:
      return "cusched::ProductOp";
    case ReduceOp::Min:
      return "cusched::MinOp";
    case ReduceOp::Max:
      return "cusched::MaxOp";
    case ReduceOp::ArgMin:
      return "cusched::ArgMinOp";
    case ReduceOp::ArgMax:
      return "cusched::ArgMaxOp";
    case ReduceOp::LogSumExp:
      return "cusched::LogSumExpOp";
    case ReduceOp::Variance:
      return "cusched::VarianceOp";
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
    line("__shared__ __align__(" + std::to_string(alignment) + ") " + c + " " + name + "[" + std::to_string(elements) +
         "];");
  declare(name);
  return name;
}

std::string KernelWriter::write() {
  if (kernel_.name.empty())
    fail("malformed-ir", "A kernel of the lowered program has no name.", "Name every kernel; this is a lowering bug.");
  if (!kernel_.body)
    fail("malformed-ir", "Kernel '" + kernel_.name + "' has no body.",
         "Give every kernel a body; this is a lowering bug.");
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
      fail("unknown-buffer",
           "Kernel '" + kernel_.name + "' takes buffer '" + name + "', which the program does not declare.",
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

  // Tensor copies' maps follow the buffers, by value (the runtime encodes them).
  for (const auto& m : tensor_maps_of(kernel_.body))
    params.push_back("const __grid_constant__ cusched::TensorMap " + m.name);

  collect_wgmma_fragments(kernel_.body, tf32_words_, half_words_);
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
  expr_.var_ranges = launch_ranges(kernel_);
  if (dynamic_smem_)
    line("extern __shared__ __align__(" + std::to_string(largest_shared_alignment(kernel_.body)) +
         ") unsigned char cusched_smem[];");
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

void KernelWriter::store_value(const std::string& target, const Expr& value, DType type) {
  // Lanes of a vectorized loop substitute values per lane: their stores are written whole.
  const auto shared = expr_.var_values.empty() && expr_.load_texts.empty() ? shared_subexpressions(value)
                                                                           : std::vector<SharedSubexpression>{};
  if (shared.empty()) {
    line(target + " = " + expr_.text_as(value, type) + ";");
    return;
  }
  open("");
  for (const auto& sub : shared) {
    const CudaValue v = expr_.emit(sub.value);
    const std::string name = "shared_value_" + std::to_string(shared_values_++);
    line("const " + cuda_type_name(v.type) + " " + name + " = " + v.text + ";");
    for (const ExprNode* n : sub.occurrences) expr_.bound[n] = {name, v.type, 0};
  }
  line(target + " = " + expr_.text_as(value, type) + ";");
  expr_.bound.clear();
  close();
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
      if (tf32_words_.count(s->buffer)) {
        line(target + " = __float_as_uint(" + expr_.text_as(s->value, DType::f32) + ");");
      } else if (auto h = half_words_.find(s->buffer); h != half_words_.end()) {
        int64_t i = 0;
        if (!is_const_int(simplify(s->index), &i))
          fail("malformed-ir",
               "Kernel '" + kernel_.name + "' stores into the 16-bit wgmma fragment '" + s->buffer +
                   "' at an index that is not a constant.",
               "Index wgmma fragments by constants.");
        const std::string word = s->buffer + "[" + std::to_string(i / 2) + "]";
        // A value that is an element of the operand type already goes in by its bits.
        Expr v = s->value;
        while (v->op == ExprOp::Cast && dtype_is_float(v->args[0].type())) v = v->args[0];
        if (v.type() == h->second)
          line(word + " = cusched::with_half_bits(" + word + ", " +
               (h->second == DType::bf16 ? "__bfloat16_as_ushort(" : "__half_as_ushort(") +
               expr_.text_as(v, h->second) + "), " + std::to_string(i % 2) + ");");
        else
          line(word + " = cusched::with_" + dtype_name(h->second) + "_half(" + word + ", " +
               expr_.text_as(s->value, DType::f32) + ", " + std::to_string(i % 2) + ");");
      } else {
        store_value(target, s->value, lookup(s->buffer)->dtype);
      }
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
    case StmtKind::Scan:
      scan(*s);
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
      if (half_words_.count(s->source)) {
        int64_t first = 0;
        if (!is_const_int(simplify(s->index), &first))
          fail("malformed-ir", "Kernel '" + kernel_.name + "' holds 16-bit wgmma fragments at a varying index.",
               "Hold wgmma fragments at constant indices.");
        for (int64_t w = first / 2; s->size > 0 && w <= (first + s->size - 1) / 2; ++w)
          line("cusched::hold_register(" + s->source + "[" + std::to_string(w) + "]);");
        break;
      }
      for (int64_t i = 0; i < s->size; ++i)
        line("cusched::hold_register(" + expr_.element(s->source, simplify(s->index + make_int(i))) + ");");
      break;
    case StmtKind::AsyncProxyFence:
      line("cusched::async_proxy_fence();");
      break;
    case StmtKind::AsyncCopy: {
      if (s->value->op != ExprOp::Load || s->value->args.size() != 1)
        fail("malformed-ir",
             "Kernel '" + kernel_.name + "' has an asynchronous copy into '" + s->buffer +
                 "' whose source is not a load.",
             "Copy from one element of a global buffer.");
      if (s->copy_bytes != 4 && s->copy_bytes != 16)
        fail("malformed-ir",
             "Kernel '" + kernel_.name + "' has an asynchronous copy of " + std::to_string(s->copy_bytes) + " bytes.",
             "Copy 4 or 16 bytes per cp.async.");
      line("cusched::cp_async_" + std::to_string(s->copy_bytes) + "(&" + expr_.element(s->buffer, s->index) + ", &" +
           expr_.element(s->value->name, s->value->args[0]) + ");");
      break;
    }
    case StmtKind::BulkCopy:
      if (s->value->op != ExprOp::Load || s->value->args.size() != 1)
        fail("malformed-ir",
             "Kernel '" + kernel_.name + "' has a bulk copy into '" + s->buffer + "' whose source is not a load.",
             "Copy from one element of a global buffer.");
      line("cusched::bulk_copy_global_to_shared(&" + expr_.element(s->buffer, s->index) + ", &" +
           expr_.element(s->value->name, s->value->args[0]) + ", " + expr_.text_as(s->extent, DType::i32) + ", &" +
           expr_.element(s->barrier, s->barrier_index) + ");");
      break;
    case StmtKind::TensorCopy: {
      const EmittedBuffer* dst = lookup(s->buffer);
      if (options_.reference_f64 || !dst || dst->scope != MemScope::Shared || s->operands.empty() ||
          s->operands.size() > 5)
        fail("tensor-copy-unsupported",
             "Kernel '" + kernel_.name + "' has a tensor copy into '" + s->buffer +
                 "', which is not a shared array in scope, or of a rank other than 1 to 5" +
                 (options_.reference_f64 ? " (the f64 reference has no tensor copies)." : "."),
             "Emit tensor copies in their own precision, into shared arrays, of 1 to 5 dimensions.");
      std::string call = "cusched::tensor_copy_" + std::to_string(s->operands.size()) + "d(&" +
                         expr_.element(s->buffer, s->index) + ", " + s->tensor_map;
      for (size_t d = s->operands.size(); d-- > 0;) call += ", " + expr_.text_as(s->operands[d], DType::i32);
      line(call + ", &" + expr_.element(s->barrier, s->barrier_index) + ");");
      break;
    }
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
  // The loop variable's range while its body is written (the thread and block indices'
  // from the launch), restored after it.
  const auto saved_range = expr_.var_ranges;
  struct RestoreRanges {
    CudaExprEmitter& e;
    const VarIntervals& saved;
    ~RestoreRanges() { e.var_ranges = saved; }
  } restore{expr_, saved_range};
  expr_.var_ranges.erase(s.var);
  if (auto r = loop_range(s, kernel_, saved_range)) expr_.var_ranges[s.var] = *r;
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
      line("const int " + s.var + " = " +
           (cluster ? std::string("blockIdx.x") : "threadIdx." + std::string(axis_letter(a))) + ";");
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
  if (const_min && const_extent)
    end = std::to_string(first + extent);
  else if (const_min && first == 0)
    end = bound_text(s.extent);
  else
    end = bound_text(s.min + s.extent);
  if (s.loop_kind != LoopKind::Serial) line("#pragma unroll");
  open("for (int " + s.var + " = " + expr_.text_as(s.min, DType::i32) + "; " + s.var + " < " + end + "; ++" + s.var +
       ")");
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
  const int64_t last = plan.first + plan.lanes - 1;
  // The component that holds lane k of an access: in reverse order where its index falls.
  auto component = [&](bool descending, int k) { return components[descending ? plan.lanes - 1 - k : k]; };
  std::vector<std::string> names;
  for (size_t i = 0; i < plan.vector_loads.size(); ++i) {
    const ExprNode* l = plan.vector_loads[i];
    expr_.var_values[s.var] = plan.descending_loads[i] ? last : plan.first;  // the lowest address
    std::string name = l->name + "_vec" + std::to_string(vectors_++);
    line("const " + vt + " " + name + " = " +
         expr_.load_through(l->name,
                            "reinterpret_cast<const " + vt + "*>(&" + expr_.element(l->name, l->args[0]) + ")") +
         ";");
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
  expr_.var_values[s.var] = plan.descending_store ? last : plan.first;
  std::string target = expr_.element(plan.store->buffer, plan.store->index);
  const DType target_type = lookup(plan.store->buffer)->dtype;
  std::vector<std::string> lanes;
  for (int k = 0; k < plan.lanes; ++k) {
    expr_.var_values[s.var] = plan.first + k;
    for (size_t i = 0; i < plan.vector_loads.size(); ++i)
      expr_.load_texts[plan.vector_loads[i]] = names[i] + "." + component(plan.descending_loads[i], k);
    for (size_t i = 0; i < plan.vector_selects.size(); ++i)
      expr_.load_texts[plan.vector_selects[i]] = names[plan.vector_loads.size() + i] + "." + components[k];
    if (plan.accumulate)
      line(target + " = " + expr_.text_as(plan.store->value, target_type) + ";");
    else if (plan.register_target)
      line(expr_.element(plan.store->buffer, plan.store->index) + " = " +
           expr_.text_as(plan.store->value, target_type) + ";");
    else
      lanes.push_back(expr_.text_as(plan.store->value, DType::f32));
  }
  expr_.load_texts.clear();
  expr_.var_values = saved_vars;
  if (!plan.accumulate && !plan.register_target) {
    if (plan.descending_store) std::reverse(lanes.begin(), lanes.end());
    std::string args;
    for (size_t k = 0; k < lanes.size(); ++k) args += (k ? ", " : "") + lanes[k];
    line("*reinterpret_cast<" + vt + "*>(&" + target + ") = make_" + vt + "(" + args + ");");
  }
  if (plan.guard) close();
  close();
}

void KernelWriter::allocate(const StmtNode& s) {
  if (s.size < 1)
    fail("malformed-ir",
         "Kernel '" + kernel_.name + "' allocates '" + s.buffer + "' with " + std::to_string(s.size) + " elements.",
         "Allocate at least one element; this is a lowering bug.");
  if (s.scope == MemScope::Global)
    fail("malformed-ir", "Kernel '" + kernel_.name + "' allocates '" + s.buffer + "' in global memory inside a kernel.",
         "Make global buffers program buffers and kernel parameters; this is a lowering bug.");
  DType t = expr_.storage_type(s.dtype);
  bool brace = declared_here(s.buffer);
  if (brace) open("");
  if (s.scope == MemScope::Register && half_words_.count(s.buffer)) {
    line("unsigned int " + s.buffer + "[" + std::to_string((s.size + 1) / 2) + "] = {};");
    declare(s.buffer);
  } else if (s.scope == MemScope::Register) {
    line((tf32_words_.count(s.buffer) ? std::string("unsigned int") : cuda_type_name(t)) + " " + s.buffer + "[" +
         std::to_string(s.size) + "];");
    declare(s.buffer);
  } else {
    shared_array(s.buffer, t, s.size, s.alignment);
  }
  allocated_.push_back({{s.buffer, EmittedBuffer{t, s.scope, false, tf32_words_.count(s.buffer) > 0}}});
  if (!s.body.empty()) stmt(s.body[0]);
  allocated_.pop_back();
  if (brace) close();
}

}  // namespace cuda_emit

namespace {

using cuda_emit::collect_wgmma_widths;
using cuda_emit::comment_text;
using cuda_emit::KernelWriter;
using cuda_emit::wgmma_function;

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
    os << "// precision: " << comment_text(precision_name(program.precision))
       << (program.math == "fast" ? ", fast math (exp, log, division as __expf, __logf, __fdividef)" : "") << "\n";
  os << "// schedule steps:";
  if (program.schedule_text.empty()) os << " (none)";
  os << "\n";
  for (const auto& step : program.schedule_text) os << "//   " << comment_text(step) << "\n";
  os << "\n#include \"cusched_device.cuh\"\n";
  std::set<std::pair<int64_t, Precision>> wgmma_widths;
  for (const auto& k : program.kernels) collect_wgmma_widths(k.body, wgmma_widths);
  for (const auto& [n, p] : wgmma_widths) os << "\n" << wgmma_function(n, p);
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
