#include "codegen/ir.h"

#include <algorithm>
#include <functional>
#include <sstream>

#include "codegen/mma_layout.h"
#include "codegen/wgmma_layout.h"
#include "dsl/error.h"

namespace cusched {

Stmt make_block(std::vector<Stmt> body) {
  auto n = std::make_shared<StmtNode>();
  n->kind = StmtKind::Block;
  n->body = std::move(body);
  return n;
}

Stmt make_for(const std::string& var, Expr min, Expr extent, LoopKind kind, GpuAxis axis, Stmt body) {
  auto n = std::make_shared<StmtNode>();
  n->kind = StmtKind::For;
  n->var = var;
  n->min = std::move(min);
  n->extent = std::move(extent);
  n->loop_kind = kind;
  n->axis = axis;
  n->body = {std::move(body)};
  return n;
}

Stmt make_store(const std::string& buffer, Expr index, Expr value) {
  auto n = std::make_shared<StmtNode>();
  n->kind = StmtKind::Store;
  n->buffer = buffer;
  n->index = std::move(index);
  n->value = std::move(value);
  return n;
}

Stmt make_allocate(const std::string& buffer, MemScope scope, DType dtype, int64_t size, Stmt body) {
  auto n = std::make_shared<StmtNode>();
  n->kind = StmtKind::Allocate;
  n->buffer = buffer;
  n->scope = scope;
  n->dtype = dtype;
  n->size = size;
  n->body = {std::move(body)};
  return n;
}

Stmt make_if(Expr cond, Stmt then_case, Stmt else_case) {
  auto n = std::make_shared<StmtNode>();
  n->kind = StmtKind::If;
  n->cond = std::move(cond);
  n->body = {std::move(then_case)};
  if (else_case) n->body.push_back(std::move(else_case));
  return n;
}

Stmt make_barrier() {
  auto n = std::make_shared<StmtNode>();
  n->kind = StmtKind::Barrier;
  return n;
}

Stmt make_scan(const std::string& buffer, Expr index, const std::string& total, ReduceOp op, int64_t width) {
  auto n = std::make_shared<StmtNode>();
  n->kind = StmtKind::Scan;
  n->buffer = buffer;
  n->index = std::move(index);
  n->source = total;
  n->reduce_op = op;
  n->reduce_axis = GpuAxis::ThreadX;
  n->width = width;
  return n;
}

Stmt make_allreduce(const std::string& buffer, const std::string& pair_buffer, Expr index, ReduceOp op, GpuAxis axis,
                    int64_t width, const std::string& kind, GpuAxis combined_axis, int64_t combined_width,
                    const std::string& third_buffer) {
  auto n = std::make_shared<StmtNode>();
  n->kind = StmtKind::AllReduce;
  n->buffer = buffer;
  n->pair_buffer = pair_buffer;
  n->third_buffer = third_buffer;
  n->index = std::move(index);
  n->reduce_op = op;
  n->reduce_axis = axis;
  n->width = width;
  n->reduce_kind = kind;
  n->combined_axis = combined_axis;
  n->combined_width = combined_width;
  return n;
}

Stmt make_async_copy(const std::string& shared_buffer, Expr index, Expr global_load, int64_t bytes) {
  auto n = std::make_shared<StmtNode>();
  n->kind = StmtKind::AsyncCopy;
  n->buffer = shared_buffer;
  n->index = std::move(index);
  n->value = std::move(global_load);
  n->copy_bytes = bytes;
  return n;
}

Stmt make_bulk_copy(const std::string& shared_buffer, Expr index, Expr global_load, Expr bytes,
                    const std::string& barrier, Expr barrier_index) {
  auto n = std::make_shared<StmtNode>();
  n->kind = StmtKind::BulkCopy;
  n->buffer = shared_buffer;
  n->index = std::move(index);
  n->value = std::move(global_load);
  n->extent = std::move(bytes);
  n->barrier = barrier;
  n->barrier_index = std::move(barrier_index);
  return n;
}

Stmt make_tensor_copy(const std::string& shared_buffer, Expr index, const std::string& source,
                      std::vector<Expr> coordinates, std::vector<int64_t> box, int64_t swizzle_bytes,
                      const std::string& tensor_map, const std::string& barrier, Expr barrier_index) {
  auto n = std::make_shared<StmtNode>();
  n->kind = StmtKind::TensorCopy;
  n->buffer = shared_buffer;
  n->index = std::move(index);
  n->source = source;
  n->operands = std::move(coordinates);
  n->box = std::move(box);
  n->swizzle_bytes = swizzle_bytes;
  n->tensor_map = tensor_map;
  n->barrier = barrier;
  n->barrier_index = std::move(barrier_index);
  return n;
}

std::vector<TensorMapSpec> tensor_maps_of(const Stmt& body) {
  std::vector<TensorMapSpec> maps;
  std::function<void(const Stmt&)> walk = [&](const Stmt& s) {
    if (!s) return;
    if (s->kind == StmtKind::TensorCopy) {
      TensorMapSpec m{s->tensor_map, s->source, s->box, s->swizzle_bytes};
      auto same = std::find_if(maps.begin(), maps.end(), [&](const TensorMapSpec& o) { return o.name == m.name; });
      if (same == maps.end())
        maps.push_back(m);
      else if (!(*same == m))
        fail("malformed-ir", "Tensor map '" + m.name + "' is used with two different sources or boxes.",
             "Give each source and box its own tensor map.");
    }
    for (const auto& c : s->body) walk(c);
  };
  walk(body);
  return maps;
}

static Stmt mbarrier_stmt(StmtKind kind, const std::string& barrier, Expr index, Expr value) {
  auto n = std::make_shared<StmtNode>();
  n->kind = kind;
  n->buffer = barrier;
  n->index = std::move(index);
  n->value = std::move(value);
  return n;
}

Stmt make_mbarrier_init(const std::string& barrier, Expr index, int64_t arrivals) {
  auto n = std::make_shared<StmtNode>(*mbarrier_stmt(StmtKind::MbarrierInit, barrier, std::move(index), Expr()));
  n->width = arrivals;
  return n;
}

Stmt make_mbarrier_expect(const std::string& barrier, Expr index, Expr bytes) {
  return mbarrier_stmt(StmtKind::MbarrierExpect, barrier, std::move(index), std::move(bytes));
}

Stmt make_mbarrier_wait(const std::string& barrier, Expr index, Expr parity) {
  return mbarrier_stmt(StmtKind::MbarrierWait, barrier, std::move(index), std::move(parity));
}

Stmt make_async_commit() {
  auto n = std::make_shared<StmtNode>();
  n->kind = StmtKind::AsyncCommit;
  return n;
}

Stmt make_async_wait(int64_t groups_in_flight) {
  auto n = std::make_shared<StmtNode>();
  n->kind = StmtKind::AsyncWait;
  n->width = groups_in_flight;
  return n;
}

Stmt make_mma(const std::string& shape, Precision precision, const std::string& acc, Expr acc_index,
              std::vector<Expr> operands) {
  auto n = std::make_shared<StmtNode>();
  n->kind = StmtKind::Mma;
  n->mma_shape = shape;
  n->mma_precision = precision;
  n->buffer = acc;
  n->index = std::move(acc_index);
  n->operands = std::move(operands);
  return n;
}

Stmt make_ldmatrix(const std::string& fragment, Expr fragment_index, const std::string& shared_source, Expr row_address,
                   int matrices, bool transpose) {
  auto n = std::make_shared<StmtNode>();
  n->kind = StmtKind::LdMatrix;
  n->buffer = fragment;
  n->index = std::move(fragment_index);
  n->source = shared_source;
  n->value = std::move(row_address);
  n->matrices = matrices;
  n->transpose = transpose;
  return n;
}

Stmt make_wgmma(Precision precision, int64_t n, const std::string& acc, Expr acc_index, std::vector<Expr> a_operands,
                const std::string& b_shared, Expr b_start) {
  auto s = std::make_shared<StmtNode>();
  s->kind = StmtKind::Wgmma;
  s->mma_shape = "m64n" + std::to_string(n) + "k" + std::to_string(wgmma_k(precision));
  s->mma_precision = precision;
  s->width = n;
  s->buffer = acc;
  s->index = std::move(acc_index);
  s->operands = std::move(a_operands);
  s->source = b_shared;
  s->value = std::move(b_start);
  return s;
}

static Stmt bare(StmtKind kind) {
  auto n = std::make_shared<StmtNode>();
  n->kind = kind;
  return n;
}

Stmt make_wgmma_fence() { return bare(StmtKind::WgmmaFence); }
Stmt make_wgmma_commit() { return bare(StmtKind::WgmmaCommit); }
Stmt make_async_proxy_fence() { return bare(StmtKind::AsyncProxyFence); }

Stmt make_wgmma_wait(int64_t groups_in_flight, const std::string& held, Expr held_index, int64_t held_count) {
  auto n = std::make_shared<StmtNode>();
  n->kind = StmtKind::WgmmaWait;
  n->width = groups_in_flight;
  n->source = held;
  n->index = std::move(held_index);
  n->size = held_count;
  return n;
}

Stmt make_aligned_allocate(const std::string& buffer, MemScope scope, DType dtype, int64_t size, int64_t alignment,
                           Stmt body) {
  auto n = std::make_shared<StmtNode>(*make_allocate(buffer, scope, dtype, size, std::move(body)));
  n->alignment = alignment;
  return n;
}

const BufferSpec* LoweredProgram::find_buffer(const std::string& name) const {
  for (const auto& b : buffers)
    if (b.name == name) return &b;
  return nullptr;
}

Stmt map_stmt_exprs(const Stmt& s, const std::function<Expr(const Expr&)>& f) {
  auto n = std::make_shared<StmtNode>(*s);
  if (n->min.defined()) n->min = f(n->min);
  if (n->extent.defined()) n->extent = f(n->extent);
  if (n->index.defined()) n->index = f(n->index);
  if (n->value.defined()) n->value = f(n->value);
  if (n->cond.defined()) n->cond = f(n->cond);
  if (n->barrier_index.defined()) n->barrier_index = f(n->barrier_index);
  for (auto& o : n->operands) o = f(o);
  for (auto& c : n->body) c = map_stmt_exprs(c, f);
  return n;
}

bool contains_collective(const Stmt& s) {
  if (!s) return false;
  switch (s->kind) {
    case StmtKind::Barrier:
    case StmtKind::AllReduce:
    case StmtKind::Scan:
    case StmtKind::Mma:
    case StmtKind::LdMatrix:
    case StmtKind::Wgmma:
    case StmtKind::WgmmaFence:
    case StmtKind::WgmmaCommit:
    case StmtKind::WgmmaWait:
      return true;
    default:
      break;
  }
  for (const auto& c : s->body)
    if (contains_collective(c)) return true;
  return false;
}

static const char* kind_name(LoopKind k) {
  switch (k) {
    case LoopKind::Serial:
      return "serial";
    case LoopKind::Unrolled:
      return "unrolled";
    case LoopKind::Vectorized:
      return "vectorized";
  }
  return "?";
}

std::string print_stmt(const Stmt& s, int indent) {
  std::ostringstream os;
  std::string pad(indent * 2, ' ');
  switch (s->kind) {
    case StmtKind::Block:
      for (const auto& c : s->body) os << print_stmt(c, indent);
      break;
    case StmtKind::For:
      os << pad << "for " << s->var << " in [" << to_string(s->min) << ", ";
      {
        int64_t m = 0, e = 0;
        if (is_const_int(s->min, &m) && is_const_int(s->extent, &e))
          os << (m + e);
        else
          os << to_string(s->min) << " + " << to_string(s->extent);
      }
      os << ")";
      if (s->axis != GpuAxis::None)
        os << "  [" << gpu_axis_name(s->axis) << "]";
      else if (s->loop_kind != LoopKind::Serial)
        os << "  [" << kind_name(s->loop_kind) << "]";
      os << ":\n" << print_stmt(s->body[0], indent + 1);
      break;
    case StmtKind::Store:
      os << pad << s->buffer << "[" << to_string(s->index) << "] = " << to_string(s->value) << "\n";
      break;
    case StmtKind::Allocate:
      os << pad << "allocate " << s->buffer << ": " << dtype_name(s->dtype) << "[" << s->size << "] in "
         << mem_scope_name(s->scope)
         << (s->alignment > 16 ? ", aligned to " + std::to_string(s->alignment) + " bytes" : "") << "\n"
         << print_stmt(s->body[0], indent);
      break;
    case StmtKind::If:
      os << pad << "if " << to_string(s->cond) << ":\n" << print_stmt(s->body[0], indent + 1);
      if (s->body.size() > 1) os << pad << "else:\n" << print_stmt(s->body[1], indent + 1);
      break;
    case StmtKind::Barrier:
      os << pad << "barrier\n";
      break;
    case StmtKind::AllReduce:
      os << pad << "allreduce_" << reduce_op_name(s->reduce_op) << "(" << s->buffer << "[" << to_string(s->index) << "]"
         << (s->pair_buffer.empty() ? "" : ", " + s->pair_buffer)
         << (s->third_buffer.empty() ? "" : ", " + s->third_buffer) << ") over " << gpu_axis_name(s->reduce_axis)
         << " width " << s->width << " (" << s->reduce_kind << ")\n";
      break;
    case StmtKind::Scan:
      os << pad << "scan_exclusive_" << reduce_op_name(s->reduce_op) << "(" << s->buffer << "[" << to_string(s->index)
         << "]) over " << gpu_axis_name(s->reduce_axis) << " width " << s->width << " total " << s->source << "[0]\n";
      break;
    case StmtKind::AsyncCopy:
      os << pad << s->buffer << "[" << to_string(s->index) << "] <- async " << to_string(s->value);
      if (s->copy_bytes != 4) os << " (" << s->copy_bytes << " bytes)";
      os << "\n";
      break;
    case StmtKind::BulkCopy:
      os << pad << s->buffer << "[" << to_string(s->index) << "] <- bulk " << to_string(s->value) << " ("
         << to_string(s->extent) << " bytes) on " << s->barrier << "[" << to_string(s->barrier_index) << "]\n";
      break;
    case StmtKind::TensorCopy: {
      os << pad << s->buffer << "[" << to_string(s->index) << "] <- tensor " << s->source << " box ";
      for (size_t d = 0; d < s->box.size(); ++d) os << (d ? "x" : "") << s->box[d];
      os << " at (";
      for (size_t d = 0; d < s->operands.size(); ++d) os << (d ? ", " : "") << to_string(s->operands[d]);
      os << ")" << (s->swizzle_bytes ? " swizzled 128" : "") << " via " << s->tensor_map << " on " << s->barrier << "["
         << to_string(s->barrier_index) << "]\n";
      break;
    }
    case StmtKind::MbarrierInit:
      os << pad << "mbarrier_init(" << s->buffer << "[" << to_string(s->index) << "], " << s->width << " arrivals)\n";
      break;
    case StmtKind::MbarrierExpect:
      os << pad << "mbarrier_arrive_expect(" << s->buffer << "[" << to_string(s->index) << "], " << to_string(s->value)
         << " bytes)\n";
      break;
    case StmtKind::MbarrierWait:
      os << pad << "mbarrier_wait(" << s->buffer << "[" << to_string(s->index) << "], parity " << to_string(s->value)
         << ")\n";
      break;
    case StmtKind::AsyncCommit:
      os << pad << "async_commit\n";
      break;
    case StmtKind::AsyncWait:
      os << pad << "async_wait(" << s->width << " in flight)\n";
      break;
    case StmtKind::Mma: {
      const MmaLayout& l = mma_layout(s->mma_shape);
      os << pad << "mma_" << s->mma_shape << "_" << precision_name(s->mma_precision) << "(" << s->buffer << "["
         << to_string(s->index) << " .. +3]) [warp]\n";
      for (size_t i = 0; i < s->operands.size(); ++i)
        os << pad << "  "
           << (static_cast<int>(i) < l.a_count ? "a" + std::to_string(i) : "b" + std::to_string(i - l.a_count)) << " = "
           << to_string(s->operands[i]) << "\n";
      break;
    }
    case StmtKind::Wgmma:
      os << pad << "wgmma_" << s->mma_shape << "_" << precision_name(s->mma_precision) << "(" << s->buffer << "["
         << to_string(s->index) << " .. +" << s->width / 2 - 1 << "], B = " << s->source << "[" << to_string(s->value)
         << " ..] K-major, 128-byte swizzle) [warpgroup]\n";
      for (size_t i = 0; i < s->operands.size(); ++i)
        os << pad << "  a" << i << " = " << to_string(s->operands[i]) << "\n";
      break;
    case StmtKind::WgmmaFence:
      os << pad << "wgmma_fence [warpgroup]\n";
      break;
    case StmtKind::WgmmaCommit:
      os << pad << "wgmma_commit [warpgroup]\n";
      break;
    case StmtKind::WgmmaWait:
      os << pad << "wgmma_wait(" << s->width << " in flight";
      if (!s->source.empty())
        os << "; holds " << s->source << "[" << to_string(s->index) << " .. +" << s->size - 1 << "]";
      os << ") [warpgroup]\n";
      break;
    case StmtKind::AsyncProxyFence:
      os << pad << "async_proxy_fence\n";
      break;
    case StmtKind::LdMatrix:
      os << pad << s->buffer << "[" << to_string(s->index) << " ..] <- ldmatrix_x" << s->matrices
         << (s->transpose ? "_trans" : "") << "(" << s->source << "[" << to_string(s->value) << "]) [warp]\n";
      break;
  }
  return os.str();
}

std::string print_ir(const LoweredProgram& p) {
  std::ostringstream os;
  os << "# problem " << p.problem << ", schedule " << p.schedule_hash << ", precision " << precision_name(p.precision)
     << "\n";
  for (const auto& b : p.buffers) {
    os << "buffer " << b.name << ": " << dtype_name(b.dtype) << "[";
    for (size_t i = 0; i < b.shape.size(); ++i) os << (i ? ", " : "") << b.shape[i];
    os << "] " << (b.role == BufferRole::Input ? "input" : b.role == BufferRole::Output ? "output" : "scratch") << "\n";
  }
  for (const auto& k : p.kernels) {
    os << "\nkernel " << k.name << " grid(" << k.grid[0] << ", " << k.grid[1] << ", " << k.grid[2] << ") block("
       << k.block[0] << ", " << k.block[1] << ", " << k.block[2] << ")";
    if (k.cluster > 1) os << " cluster(" << k.cluster << ")";
    os << " params(";
    for (size_t i = 0; i < k.params.size(); ++i) os << (i ? ", " : "") << k.params[i];
    os << "):\n" << print_stmt(k.body, 1);
  }
  return os.str();
}

}  // namespace cusched
