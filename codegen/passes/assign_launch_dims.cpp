#include <functional>

#include "codegen/gpu_axis.h"
#include "codegen/passes/passes.h"
#include "codegen/passes/simplify.h"
#include "dsl/error.h"
#include "dsl/expr_substitute.h"

namespace cusched {

void assign_launch_dims(Kernel& k) {
  // The grid or block dimension of a loop bound to a block or thread axis.
  auto dimension = [](const StmtNode& s) -> size_t {
    const int d = gpu_axis_dimension(s.axis);
    if (d < 0)
      fail("lowering-internal",
           "Loop '" + s.var + "' is bound to " + gpu_axis_name(s.axis) + ", which has no grid or block dimension.",
           "Report this schedule.");
    return static_cast<size_t>(d);
  };
  std::function<void(const Stmt&)> scan = [&](const Stmt& s) {
    if (s->kind == StmtKind::For && s->axis != GpuAxis::None) {
      int64_t e;
      if (!is_const_int(simplify(s->extent), &e))
        fail("lowering-internal", "The extent of GPU loop '" + s->var + "' is not a constant.",
             "Report this schedule.");
      if (s->axis == GpuAxis::ClusterX) {
        k.cluster = std::max(k.cluster, e);
      } else {
        auto& dims = is_block_axis(s->axis) ? k.grid : k.block;
        dims[dimension(*s)] = std::max(dims[dimension(*s)], e);
      }
    }
    for (const auto& c : s->body) scan(c);
  };
  scan(k.body);
  if (k.cluster > 1) {
    if (k.grid[0] > 1)
      fail("cluster-with-block-x",
           "Kernel " + k.name + " forms a thread-block cluster of " + std::to_string(k.cluster) +
               " blocks on x (cluster.x) and also binds a loop of extent " + std::to_string(k.grid[0]) +
               " to blockIdx.x.",
           "Bind the kernel's other block loops to blockIdx.y and blockIdx.z: the cluster takes the x axis of the "
           "grid.");
    k.grid[0] = k.cluster;
  }
  int64_t threads = k.block[0] * k.block[1] * k.block[2];
  if (threads > 1024)
    fail("too-many-threads",
         "Kernel " + k.name + " needs " + std::to_string(threads) + " threads per block (" +
             std::to_string(k.block[0]) + " x " + std::to_string(k.block[1]) + " x " + std::to_string(k.block[2]) +
             "), over 1024.",
         "Bind smaller loops to threadIdx axes.");
  if (k.grid[1] > 65535 || k.grid[2] > 65535)
    fail("grid-too-large",
         "Kernel " + k.name + " has a grid of (" + std::to_string(k.grid[0]) + ", " + std::to_string(k.grid[1]) + ", " +
             std::to_string(k.grid[2]) + "); blockIdx.y and blockIdx.z allow at most 65535.",
         "Bind the largest loop to blockIdx.x, or fuse loops before binding.");
  if (k.launch_max_threads && threads > k.launch_max_threads)
    fail("launch-bounds-too-small",
         "Kernel " + k.name + " has " + std::to_string(threads) +
             " threads per block, more than launch_bounds allows (" + std::to_string(k.launch_max_threads) + ").",
         "Raise max_threads to at least the block size.");
  // A thread loop (cluster loop) around a barrier or combine must span the block
  // (the cluster): the other threads (blocks) would never reach it.
  std::function<void(const Stmt&)> check = [&](const Stmt& s) {
    const bool cluster = s->kind == StmtKind::For && s->axis == GpuAxis::ClusterX;
    if (s->kind == StmtKind::For && (is_thread_axis(s->axis) || cluster) && contains_collective(s->body[0])) {
      int64_t e = 0;
      is_const_int(simplify(s->extent), &e);
      const int64_t span = cluster ? k.cluster : k.block[dimension(*s)];
      if (e != span)
        fail(cluster ? "barrier-in-partial-cluster-loop" : "barrier-in-partial-thread-loop",
             std::string(cluster ? "Cluster" : "Thread") + " loop '" + s->var + "' (extent " + std::to_string(e) +
                 ") contains a barrier or cross-thread combine but the " + (cluster ? "cluster has " : "block has ") +
                 std::to_string(span) + (cluster ? " blocks" : " threads on " + gpu_axis_name(s->axis)) +
                 "; the other " + (cluster ? "blocks" : "threads") + " would never reach it.",
             "Give every loop bound to " + gpu_axis_name(s->axis) + " in this kernel the same extent.");
    }
    for (const auto& c : s->body) check(c);
  };
  check(k.body);
  Expr nt = make_int(threads);
  k.body = map_stmt_exprs(k.body, [&](const Expr& e) { return substitute(e, {{"__nthreads", nt}}); });
}

}  // namespace cusched
