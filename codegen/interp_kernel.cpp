// Compiles a kernel's IR for the interpreter (KernelCompiler): variables to slots, buffers
// to indices, every statement kind with the checks of its fields. The file is one switch
// over the statement kinds, each kind's checks next to its fields, which is why it runs
// past 600 lines.
#include "codegen/interp_kernel.h"

#include <map>

#include "codegen/fast_math.h"
#include "codegen/gpu_axis.h"
#include "codegen/interp_index_arithmetic.h"
#include "codegen/interp_rounding.h"
#include "codegen/wgmma_layout.h"
#include "dsl/error.h"

namespace cusched {

namespace {

Rounding rounding_of(DType t) {
  switch (t) {
    case DType::f32:
      return Rounding::F32;
    case DType::f16:
      return Rounding::F16;
    case DType::bf16:
      return Rounding::BF16;
    default:
      return Rounding::None;
  }
}

class KernelCompiler {
 public:
  KernelCompiler(const Kernel& k, const LoweredProgram& p) : kernel_(k), program_(p) {
    out_.name = k.name;
    out_.grid = k.grid;
    out_.block = k.block;
    out_.cluster = k.cluster;
    if (k.cluster > 1 && k.grid[0] != k.cluster)
      malformed("forms clusters of " + std::to_string(k.cluster) + " blocks but has " + std::to_string(k.grid[0]) +
                    " blocks along x",
                "Launch exactly one cluster along x (grid.x equal to the cluster size).");
    for (const char* b : {"threadIdx.x", "threadIdx.y", "threadIdx.z", "blockIdx.x", "blockIdx.y", "blockIdx.z", "tid"})
      slot_of(b);
    for (int64_t d : k.grid) check_dim(d, "grid");
    for (int64_t d : k.block) check_dim(d, "block");
  }

  CompiledKernel run() {
    if (!kernel_.body) malformed("has no body", "Give every kernel a body statement.");
    out_.body = stmt(kernel_.body);
    out_.slot_names = slot_names_;
    return std::move(out_);
  }

 private:
  [[noreturn]] void malformed(const std::string& what, const std::string& hint) {
    fail("malformed-ir", "Kernel '" + kernel_.name + "' " + what + ".", hint);
  }

  void check_dim(int64_t d, const char* what) {
    if (d < 1)
      malformed(std::string("has a ") + what + " dimension of " + std::to_string(d),
                "Make every grid and block dimension at least 1.");
  }

  int slot_of(const std::string& name) {
    auto it = slots_.find(name);
    if (it != slots_.end()) return it->second;
    int s = static_cast<int>(slot_names_.size());
    slots_[name] = s;
    slot_names_.push_back(name);
    in_scope_[name] = s < kBuiltinSlots ? 1 : 0;
    return s;
  }

  int resolve_buffer(const std::string& name, const std::string& use) {
    for (auto it = allocations_.rbegin(); it != allocations_.rend(); ++it)
      if (it->first == name) return it->second;
    auto g = globals_.find(name);
    if (g != globals_.end()) return g->second;
    const BufferSpec* spec = program_.find_buffer(name);
    if (!spec)
      fail("unknown-buffer",
           "Kernel '" + kernel_.name + "' " + use + " buffer '" + name +
               "', which is neither allocated in the kernel nor a buffer of the program.",
           "Allocate it with an Allocate statement around its uses, or add it to LoweredProgram::buffers.");
    bool is_param = false;
    for (const auto& p : kernel_.params) is_param |= p == name;
    if (!is_param)
      fail(
          "buffer-not-a-parameter",
          "Kernel '" + kernel_.name + "' " + use + " global buffer '" + name + "', which is not one of its parameters.",
          "Add '" + name + "' to the kernel's params.");
    InterpBuffer b;
    b.name = name;
    b.scope = MemScope::Global;
    b.dtype = spec->dtype;
    b.size = spec->elements();
    b.role = spec->role;
    b.shape = spec->shape;
    int id = static_cast<int>(out_.buffers.size());
    out_.buffers.push_back(b);
    globals_[name] = id;
    return id;
  }

  // The buffer of an mbarrier: a shared i64 array in scope.
  int mbarrier_buffer(const std::string& name) {
    int b = resolve_buffer(name, "synchronises on");
    if (out_.buffers[b].scope != MemScope::Shared || out_.buffers[b].dtype != DType::i64)
      malformed("uses '" + name + "' as an mbarrier, but it is not a shared i64 buffer",
                "Allocate mbarriers as shared i64 elements.");
    return b;
  }

  CExpr expr(const Expr& e) {
    if (!e.defined()) malformed("uses an undefined expression", "Give every expression of the IR a value.");
    const ExprNode& n = *e;
    CExpr c;
    c.type = n.type;
    c.rounding = rounding_of(n.type);
    c.source = e;
    for (const auto& a : n.args) c.args.push_back(expr(a));
    auto arity = [&](size_t k) {
      if (c.args.size() != k)
        malformed("has an operator '" + to_string(e) + "' with " + std::to_string(c.args.size()) + " operands",
                  "Build expressions with the dsl constructors.");
    };
    switch (n.op) {
      case ExprOp::IntImm:
      case ExprOp::BoolImm:
        c.op = IOp::Const;
        c.imm = convert_to_dtype(static_cast<double>(n.ival), n.type);
        break;
      case ExprOp::FloatImm:
        c.op = IOp::Const;
        c.imm = convert_to_dtype(n.fval, n.type);
        break;
      case ExprOp::Var: {
        c.op = IOp::Var;
        c.slot = slot_of(n.name);
        if (!in_scope_[n.name])
          fail("unbound-variable",
               "Kernel '" + kernel_.name + "' uses the variable '" + n.name + "' outside any loop that binds it.",
               "Use only loop variables of enclosing For statements and the built-ins threadIdx.*, blockIdx.*, tid.");
        c.rounding = Rounding::None;
        break;
      }
      case ExprOp::SizeParam:
        fail("unbound-size", "Kernel '" + kernel_.name + "' still refers to the symbolic size '" + n.name + "'.",
             "Lower with concrete sizes so that every extent and index is a number.");
      case ExprOp::Add:
        arity(2);
        c.op = IOp::Add;
        break;
      case ExprOp::Sub:
        arity(2);
        c.op = IOp::Sub;
        break;
      case ExprOp::Mul:
        arity(2);
        c.op = IOp::Mul;
        break;
      case ExprOp::Div:
        arity(2);
        c.op = dtype_is_float(n.type) ? IOp::FloatDiv : IOp::IntDiv;
        break;
      case ExprOp::Mod:
        arity(2);
        c.op = dtype_is_float(n.type) ? IOp::FloatMod : IOp::IntMod;
        break;
      case ExprOp::Min:
        arity(2);
        c.op = dtype_is_float(n.type) ? IOp::FloatMin : IOp::IntMin;
        break;
      case ExprOp::Max:
        arity(2);
        c.op = dtype_is_float(n.type) ? IOp::FloatMax : IOp::IntMax;
        break;
      case ExprOp::Pow:
        arity(2);
        c.op = IOp::Pow;
        break;
      case ExprOp::BitXor:
        arity(2);
        c.op = IOp::IntXor;
        break;
      case ExprOp::EQ:
        arity(2);
        c.op = IOp::EQ;
        break;
      case ExprOp::NE:
        arity(2);
        c.op = IOp::NE;
        break;
      case ExprOp::LT:
        arity(2);
        c.op = IOp::LT;
        break;
      case ExprOp::LE:
        arity(2);
        c.op = IOp::LE;
        break;
      case ExprOp::GT:
        arity(2);
        c.op = IOp::GT;
        break;
      case ExprOp::GE:
        arity(2);
        c.op = IOp::GE;
        break;
      case ExprOp::And:
        arity(2);
        c.op = IOp::And;
        break;
      case ExprOp::Or:
        arity(2);
        c.op = IOp::Or;
        break;
      case ExprOp::Not:
        arity(1);
        c.op = IOp::Not;
        break;
      case ExprOp::Neg:
        arity(1);
        c.op = IOp::Neg;
        break;
      case ExprOp::Select:
        arity(3);
        c.op = IOp::Select;
        break;
      case ExprOp::Cast:
        arity(1);
        c.op = IOp::Cast;
        c.rounding = Rounding::None;
        break;
      case ExprOp::Call: {
        static const std::map<std::string, IOp> rounding_fns = {
            {"round_tf32", IOp::RoundTf32}, {"round_bf16", IOp::RoundBf16}, {"round_f16", IOp::RoundF16}};
        // Fast math (codegen/fast_math.h) is evaluated exactly here.
        const FastMathFunction* fast = fast_math_function(n.name);
        const std::string& name = fast ? std::string(fast->exact) : n.name;
        if (fast && name.empty()) {
          arity(2);
          c.op = IOp::FloatDiv;
        } else if (auto it = rounding_fns.find(name); it != rounding_fns.end()) {
          arity(1);
          c.op = it->second;
        } else if (const MathFunction* f = math_function(name)) {
          arity(f->params.size());
          c.op = IOp::Math;
          c.fn = f;
        } else {
          fail("unknown-function",
               "Kernel '" + kernel_.name + "' calls '" + n.name + "', which the interpreter does not know.",
               "Call the math functions of the language, round_tf32, round_bf16, round_f16 or the fast-math calls "
               "(fast_exp, fast_div, ...).");
        }
        break;
      }
      case ExprOp::Load:
        if (c.args.size() != 1)
          malformed("loads '" + n.name + "' with " + std::to_string(c.args.size()) +
                        " indices; a Load of the loop IR takes one flat element index",
                    "Flatten multi-dimensional indices during lowering.");
        c.op = IOp::Load;
        c.buffer = resolve_buffer(n.name, "reads");
        break;
      case ExprOp::Reduce:
      case ExprOp::Scan:
        malformed("still holds a reduction or scan expression '" + to_string(e) + "'",
                  "Lower reductions and scans to loops before interpreting.");
    }
    return flatten_index_arithmetic(std::move(c));
  }

  CStmt stmt(const Stmt& s) {
    if (!s) malformed("holds a null statement", "Build statements with the make_* constructors.");
    CStmt c;
    c.kind = s->kind;
    c.source = s.get();
    auto child = [&](size_t i) -> const Stmt& {
      if (s->body.size() <= i || !s->body[i])
        malformed("holds a statement without its body", "Build statements with the make_* constructors.");
      return s->body[i];
    };
    switch (s->kind) {
      case StmtKind::Block:
        for (const auto& b : s->body) {
          c.body.push_back(stmt(b));
          c.collective |= c.body.back().collective;
        }
        break;
      case StmtKind::For: {
        c.min = expr(s->min);
        c.extent = expr(s->extent);
        c.axis = s->axis;
        int64_t ext = 0;
        int ax = gpu_axis_dimension(s->axis);
        if (is_block_axis(s->axis) && is_const_int(s->extent, &ext) && ext > kernel_.grid[ax])
          fail("grid-too-small",
               "Kernel '" + kernel_.name + "' binds loop '" + s->var + "' of extent " + std::to_string(ext) + " to " +
                   gpu_axis_name(s->axis) + " but its grid has only " + std::to_string(kernel_.grid[ax]) +
                   " blocks there.",
               "Make the grid at least as large as every block-bound loop.");
        if (s->axis == GpuAxis::ClusterX && is_const_int(s->extent, &ext) && ext > kernel_.cluster)
          fail("grid-too-small",
               "Kernel '" + kernel_.name + "' binds loop '" + s->var + "' of extent " + std::to_string(ext) +
                   " to cluster.x but its cluster has only " + std::to_string(kernel_.cluster) + " blocks.",
               "Make the cluster at least as large as every cluster-bound loop.");
        if (is_thread_axis(s->axis) && is_const_int(s->extent, &ext) && ext > kernel_.block[ax])
          fail("block-too-small",
               "Kernel '" + kernel_.name + "' binds loop '" + s->var + "' of extent " + std::to_string(ext) + " to " +
                   gpu_axis_name(s->axis) + " but its block has only " + std::to_string(kernel_.block[ax]) +
                   " threads there.",
               "Make the block at least as large as every thread-bound loop.");
        c.slot = slot_of(s->var);
        in_scope_[s->var]++;
        c.body.push_back(stmt(child(0)));
        in_scope_[s->var]--;
        c.collective = c.body[0].collective;
        break;
      }
      case StmtKind::Store:
        c.index = expr(s->index);
        c.value = expr(s->value);
        c.buffer = resolve_buffer(s->buffer, "writes");
        if (out_.buffers[c.buffer].scope == MemScope::Global && out_.buffers[c.buffer].role == BufferRole::Input)
          fail("input-written", "Kernel '" + kernel_.name + "' writes the input buffer '" + s->buffer + "'.",
               "Write results into an output or scratch buffer; inputs are read-only.");
        break;
      case StmtKind::Allocate: {
        if (s->size < 1)
          malformed("allocates '" + s->buffer + "' with " + std::to_string(s->size) + " elements",
                    "Allocate at least one element.");
        if (s->scope == MemScope::Global)
          malformed("allocates '" + s->buffer + "' in global memory inside a kernel",
                    "Declare global buffers in LoweredProgram::buffers and pass them as parameters.");
        InterpBuffer b;
        b.name = s->buffer;
        b.scope = s->scope;
        b.dtype = s->dtype;
        b.size = s->size;
        b.alignment = s->alignment;
        c.buffer = static_cast<int>(out_.buffers.size());
        out_.buffers.push_back(b);
        allocations_.emplace_back(s->buffer, c.buffer);
        c.body.push_back(stmt(child(0)));
        allocations_.pop_back();
        c.collective = c.body[0].collective;
        break;
      }
      case StmtKind::If:
        c.cond = expr(s->cond);
        c.body.push_back(stmt(child(0)));
        if (s->body.size() > 1) c.body.push_back(stmt(child(1)));
        for (const auto& b : c.body) c.collective |= b.collective;
        break;
      case StmtKind::Barrier:
        c.collective = true;
        break;
      case StmtKind::AllReduce: {
        c.collective = true;
        c.index = expr(s->index);
        c.buffer = resolve_buffer(s->buffer, "reduces");
        if (reduce_carries_pair(s->reduce_op)) {
          if (s->pair_buffer.empty())
            malformed("has an " + reduce_op_name(s->reduce_op) + " AllReduce of '" + s->buffer +
                          "' without the buffer of its pair's second value",
                      "Name the register buffer that holds the second value (argmin/argmax: the index; logsumexp: "
                      "the sum).");
          c.pair_buffer = resolve_buffer(s->pair_buffer, "reduces");
        }
        if (reduce_carries_triple(s->reduce_op)) {
          if (s->third_buffer.empty())
            malformed("has a " + reduce_op_name(s->reduce_op) + " AllReduce of '" + s->buffer +
                          "' without the buffer of its third value",
                      "Name the register buffer that holds the count of values taken.");
          c.third_buffer = resolve_buffer(s->third_buffer, "reduces");
        }
        for (int b : {c.buffer, c.pair_buffer, c.third_buffer})
          if (b >= 0 && out_.buffers[b].scope != MemScope::Register)
            fail("allreduce-needs-register",
                 "Kernel '" + kernel_.name + "' reduces '" + out_.buffers[b].name + "' across threads, but it is a " +
                     mem_scope_name(out_.buffers[b].scope) + " buffer.",
                 "AllReduce combines per-thread values: allocate the buffer in registers.");
        c.reduce_op = s->reduce_op;
        c.width = s->width;
        if (s->reduce_kind == "cluster") {
          if (s->reduce_axis != GpuAxis::ClusterX || s->width != kernel_.cluster || kernel_.cluster < 2)
            malformed("has a cluster AllReduce over " + std::to_string(s->width) + " blocks on " +
                          gpu_axis_name(s->reduce_axis) + " but a cluster of " + std::to_string(kernel_.cluster),
                      "Combine across cluster.x with the cluster's full width.");
          c.cluster_kind = true;
          break;
        }
        c.reduce_axis = gpu_axis_dimension(s->reduce_axis);
        if (!is_thread_axis(s->reduce_axis))
          malformed("reduces over " + gpu_axis_name(s->reduce_axis) + ", which is not a thread axis",
                    "Reduce over threadIdx.x, threadIdx.y or threadIdx.z.");
        c.width = s->width;
        int64_t dim = kernel_.block[c.reduce_axis];
        if (c.width < 1 || dim % c.width != 0)
          fail("allreduce-width-mismatch",
               "Kernel '" + kernel_.name + "' reduces over groups of " + std::to_string(c.width) + " threads along " +
                   gpu_axis_name(s->reduce_axis) + ", which does not divide the block's " + std::to_string(dim) +
                   " threads there.",
               "Use a width that divides the block size on the reduce axis.");
        if (s->reduce_kind != "warp" && s->reduce_kind != "block")
          malformed("has an AllReduce of kind '" + s->reduce_kind + "'",
                    "Use the kind \"warp\", \"block\" or \"cluster\".");
        c.block_kind = s->reduce_kind == "block";
        break;
      }
      case StmtKind::Scan: {
        c.collective = true;
        c.index = expr(s->index);
        c.buffer = resolve_buffer(s->buffer, "scans");
        c.source_buffer = resolve_buffer(s->source, "scans into");
        for (int b : {c.buffer, c.source_buffer})
          if (out_.buffers[b].scope != MemScope::Register)
            fail("scan-needs-register",
                 "Kernel '" + kernel_.name + "' scans '" + out_.buffers[b].name + "' across threads, but it is a " +
                     mem_scope_name(out_.buffers[b].scope) + " buffer.",
                 "Scan combines per-thread values: allocate the value and the total in registers.");
        if (s->reduce_op != ReduceOp::Sum && s->reduce_op != ReduceOp::Product)
          malformed("has a Scan with " + reduce_op_name(s->reduce_op), "Scan with sum or product.");
        if (s->reduce_axis != GpuAxis::ThreadX)
          malformed("scans over " + gpu_axis_name(s->reduce_axis), "Scan over threadIdx.x.");
        c.reduce_op = s->reduce_op;
        c.reduce_axis = 0;
        c.width = s->width;
        const int64_t dim = kernel_.block[0];
        const bool pow2 = c.width > 0 && (c.width & (c.width - 1)) == 0;
        if (c.width < 1 || dim % c.width != 0 || !((pow2 && c.width <= 32) || c.width % 32 == 0))
          fail("scan-width-mismatch",
               "Kernel '" + kernel_.name + "' scans over groups of " + std::to_string(c.width) +
                   " threads along threadIdx.x, which is not a power of two up to 32 or a multiple of 32 dividing "
                   "the block's " +
                   std::to_string(dim) + " threads there.",
               "Scan over a power of two up to 32 threads, or a multiple of 32 that divides blockDim.x.");
        break;
      }
      case StmtKind::AsyncCopy:
        copy_into_shared(c, s, "copies asynchronously into",
                         "Copy asynchronously from global into shared memory only.");
        if (s->value->op != ExprOp::Load)
          malformed("copies asynchronously into '" + s->buffer + "' a value that is not a load",
                    "Copy one element of a global buffer.");
        if (s->copy_bytes != 4 && s->copy_bytes != 16)
          malformed("has an asynchronous copy of " + std::to_string(s->copy_bytes) + " bytes", "Copy 4 or 16 bytes.");
        if (s->copy_bytes != 4 && dtype_bytes(out_.buffers[c.buffer].dtype) != 4)
          malformed("copies 16 bytes asynchronously into '" + s->buffer + "', whose elements are not 4 bytes",
                    "Copy 16 bytes only between buffers of 4-byte elements.");
        c.copy_bytes = s->copy_bytes;
        break;
      case StmtKind::BulkCopy:
        copy_into_shared(c, s, "bulk-copies into", "Bulk-copy from global into shared memory only.");
        c.extent = expr(s->extent);
        if (s->value->op != ExprOp::Load || out_.buffers[c.value.buffer].scope != MemScope::Global)
          malformed("bulk-copies into '" + s->buffer + "' a value that is not a load of a global buffer",
                    "Bulk-copy from a global buffer.");
        if (out_.buffers[c.value.buffer].dtype != out_.buffers[c.buffer].dtype)
          malformed("bulk-copies between '" + s->value->name + "' and '" + s->buffer + "', whose element types differ",
                    "Copy between buffers of one element type.");
        c.barrier = mbarrier_buffer(s->barrier);
        c.barrier_index = expr(s->barrier_index);
        break;
      case StmtKind::TensorCopy: {
        c.index = expr(s->index);
        c.buffer = resolve_buffer(s->buffer, "tensor-copies into");
        c.source_buffer = resolve_buffer(s->source, "tensor-copies from");
        const InterpBuffer &dst = out_.buffers[c.buffer], &src = out_.buffers[c.source_buffer];
        if (dst.scope != MemScope::Shared || src.scope != MemScope::Global)
          malformed("tensor-copies from '" + s->source + "' into '" + s->buffer +
                        "', which are not a global and a shared buffer",
                    "Tensor-copy from a global buffer into shared memory only.");
        if (dst.dtype != src.dtype)
          malformed("tensor-copies between '" + s->source + "' and '" + s->buffer + "', whose element types differ",
                    "Copy between buffers of one element type.");
        if (s->box.size() != src.shape.size() || s->operands.size() != src.shape.size())
          malformed("tensor-copies from '" + s->source + "' a box or coordinates of another rank than the buffer's",
                    "Give the box and the coordinates one entry per dimension of the source.");
        if (const std::string why = tensor_box_problem(s->box, dtype_bytes(src.dtype), s->swizzle_bytes); !why.empty())
          malformed("tensor-copies a box that " + why, "Copy boxes that a tensor map describes.");
        for (const auto& o : s->operands) c.operands.push_back(expr(o));
        c.box = s->box;
        c.swizzle_bytes = s->swizzle_bytes;
        c.barrier = mbarrier_buffer(s->barrier);
        c.barrier_index = expr(s->barrier_index);
        break;
      }
      case StmtKind::MbarrierInit:
      case StmtKind::MbarrierExpect:
      case StmtKind::MbarrierWait:
        c.buffer = mbarrier_buffer(s->buffer);
        c.index = expr(s->index);
        if (s->kind != StmtKind::MbarrierInit) c.value = expr(s->value);
        c.width = s->width;
        if (s->kind == StmtKind::MbarrierInit && s->width < 1)
          malformed("initialises the mbarrier '" + s->buffer + "' for " + std::to_string(s->width) + " arrivals",
                    "Initialise an mbarrier for at least one arrival per phase.");
        break;
      case StmtKind::AsyncCommit:
        break;
      case StmtKind::AsyncWait:
        c.width = s->width;
        break;
      case StmtKind::LdMatrix: {
        c.collective = true;
        c.index = expr(s->index);
        c.value = expr(s->value);
        c.buffer = resolve_buffer(s->buffer, "loads a matrix fragment into");
        c.source_buffer = resolve_buffer(s->source, "loads matrix rows from");
        c.matrices = s->matrices;
        c.transpose = s->transpose;
        const InterpBuffer& frag = out_.buffers[c.buffer];
        const InterpBuffer& src = out_.buffers[c.source_buffer];
        if (src.scope != MemScope::Shared)
          malformed("loads matrix rows with ldmatrix from '" + s->source + "', which is not a shared buffer",
                    "Load fragments with ldmatrix from shared memory only.");
        if (frag.scope != MemScope::Register || frag.dtype != src.dtype)
          malformed("loads an ldmatrix fragment into '" + s->buffer +
                        "', which is not a register buffer of the source's element type",
                    "Allocate the fragment as registers of the shared buffer's element type.");
        if (dtype_bytes(src.dtype) != 2 && dtype_bytes(src.dtype) != 4)
          malformed("loads " + std::to_string(dtype_bytes(src.dtype)) + "-byte elements with ldmatrix",
                    "Use ldmatrix on 16-bit or 32-bit elements.");
        if (s->transpose && dtype_bytes(src.dtype) != 2)
          malformed("transposes 32-bit elements with ldmatrix",
                    "Transpose only 16-bit elements (.trans works on b16).");
        if (s->matrices != 1 && s->matrices != 2 && s->matrices != 4)
          malformed("loads " + std::to_string(s->matrices) + " matrices with one ldmatrix", "Load 1, 2 or 4 matrices.");
        if (threads_per_block() % 32 != 0)
          fail("mma-partial-warp",
               "Kernel '" + kernel_.name + "' runs warp-wide ldmatrix loads in a block of " +
                   std::to_string(threads_per_block()) + " threads, which is not whole warps.",
               "Make the block a multiple of 32 threads.");
        break;
      }
      case StmtKind::Wgmma: {
        c.collective = true;
        c.index = expr(s->index);
        c.value = expr(s->value);
        c.width = s->width;
        c.buffer = resolve_buffer(s->buffer, "accumulates into");
        c.source_buffer = resolve_buffer(s->source, "reads a wgmma operand from");
        const InterpBuffer& acc = out_.buffers[c.buffer];
        const InterpBuffer& b = out_.buffers[c.source_buffer];
        if (acc.scope != MemScope::Register || acc.dtype != DType::f32)
          malformed("accumulates wgmma tiles into '" + s->buffer + "', which is not an f32 register buffer",
                    "Allocate the accumulators as f32 registers.");
        const DType operand = wgmma_operand_type(s->mma_precision);
        if (b.scope != MemScope::Shared || b.dtype != operand)
          malformed("reads a wgmma B operand from '" + s->source + "', which is not a shared buffer of " +
                        dtype_name(operand) + " elements",
                    "Stage B in shared memory in the operand type (f32 for tf32, bf16 or f16 for those).");
        if (b.alignment < kWgmmaSwizzleAtomBytes)
          fail("wgmma-b-misaligned",
               "Kernel '" + kernel_.name + "' reads a wgmma B operand from shared buffer '" + s->source +
                   "', aligned to " + std::to_string(b.alignment) + " bytes; the 128-byte swizzle needs 1024.",
               "Allocate the swizzled copy aligned to 1024 bytes.");
        if (s->width < 8 || s->width > kWgmmaMaxN || s->width % 8 != 0 || s->mma_precision == Precision::x3tf32 ||
            s->mma_precision == Precision::f32 || s->mma_precision == Precision::f64)
          malformed(
              "has a wgmma m64n" + std::to_string(s->width) + " with " + precision_name(s->mma_precision) + " operands",
              "Use N a multiple of 8 up to 256 with tf32, bf16 or f16 operands.");
        if (static_cast<int>(s->operands.size()) != wgmma_a_elements(s->mma_precision))
          malformed("has a wgmma with " + std::to_string(s->operands.size()) + " A elements",
                    "Give each thread its " + std::to_string(wgmma_a_elements(s->mma_precision)) + " A elements.");
        c.wgmma_precision = s->mma_precision;
        for (const auto& o : s->operands) c.operands.push_back(expr(o));
        if (threads_per_block() % kWgmmaThreads != 0)
          fail("wgmma-partial-warpgroup",
               "Kernel '" + kernel_.name + "' runs warpgroup tensor-core instructions in a block of " +
                   std::to_string(threads_per_block()) + " threads, which is not whole warpgroups of 128.",
               "Make the block a multiple of 128 threads.");
        break;
      }
      case StmtKind::WgmmaFence:
      case StmtKind::WgmmaCommit:
        c.collective = true;
        break;
      case StmtKind::WgmmaWait:
        c.collective = true;
        c.width = s->width;
        if (!s->source.empty()) {
          c.source_buffer = resolve_buffer(s->source, "holds");
          if (out_.buffers[c.source_buffer].scope != MemScope::Register)
            malformed("holds '" + s->source + "' across a wgmma wait, which is not a register buffer",
                      "Hold register buffers only.");
        }
        break;
      case StmtKind::AsyncProxyFence:
        break;
      case StmtKind::Mma: {
        c.collective = true;
        c.layout = &mma_layout(s->mma_shape);
        c.mma_precision = s->mma_precision;
        c.index = expr(s->index);
        c.buffer = resolve_buffer(s->buffer, "accumulates into");
        const InterpBuffer& acc = out_.buffers[c.buffer];
        if (acc.scope != MemScope::Register || acc.dtype != DType::f32)
          malformed("accumulates tensor-core tiles into '" + s->buffer + "', which is not an f32 register buffer",
                    "Allocate the accumulators as f32 registers.");
        if (static_cast<int>(s->operands.size()) != c.layout->a_count + c.layout->b_count)
          malformed("has an Mma with " + std::to_string(s->operands.size()) + " operands",
                    "Give each lane its A fragment elements and then its B fragment elements.");
        for (const auto& o : s->operands) c.operands.push_back(expr(o));
        if (threads_per_block() % 32 != 0)
          fail("mma-partial-warp",
               "Kernel '" + kernel_.name + "' runs tensor-core instructions in a block of " +
                   std::to_string(threads_per_block()) + " threads, which is not whole warps.",
               "Make the block a multiple of 32 threads.");
        break;
      }
    }
    return c;
  }

  // A copy's destination index, source value and destination buffer, which must be shared
  // (`verb` as in "copies asynchronously into").
  void copy_into_shared(CStmt& c, const Stmt& s, const std::string& verb, const std::string& fix) {
    c.index = expr(s->index);
    c.value = expr(s->value);
    c.buffer = resolve_buffer(s->buffer, verb);
    if (out_.buffers[c.buffer].scope != MemScope::Shared)
      malformed(verb + " '" + s->buffer + "', which is not a shared buffer", fix);
  }

  int64_t threads_per_block() const { return kernel_.block[0] * kernel_.block[1] * kernel_.block[2]; }

  const Kernel& kernel_;
  const LoweredProgram& program_;
  CompiledKernel out_;
  std::map<std::string, int> slots_;
  std::vector<std::string> slot_names_;
  std::map<std::string, int> in_scope_;
  std::vector<std::pair<std::string, int>> allocations_;
  std::map<std::string, int> globals_;
};

}  // namespace

CompiledKernel compile_kernel(const Kernel& kernel, const LoweredProgram& program) {
  return KernelCompiler(kernel, program).run();
}

}  // namespace cusched
