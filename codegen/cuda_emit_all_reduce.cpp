// The CUDA of AllReduce: warp shuffles, a block combine through shared memory, and
// the combine across the blocks of a cluster (the device library's cluster functions).
#include "codegen/cuda_kernel_writer.h"
#include "dsl/error.h"

namespace cusched::cuda_emit {

void KernelWriter::all_reduce(const StmtNode& s) {
  const bool pair = reduce_carries_pair(s.reduce_op), triple = reduce_carries_triple(s.reduce_op);
  const EmittedBuffer* vb = lookup(s.buffer);
  const EmittedBuffer* sb = pair ? lookup(s.pair_buffer) : nullptr;
  const EmittedBuffer* tb = triple ? lookup(s.third_buffer) : nullptr;
  for (const auto& [name, b] : {std::pair{s.buffer, vb}, std::pair{s.pair_buffer, sb}, std::pair{s.third_buffer, tb}}) {
    if ((name == s.pair_buffer && !pair) || (name == s.third_buffer && !triple)) continue;
    if (!b)
      fail("unknown-buffer", "Kernel '" + kernel_.name + "' reduces '" + name + "', which is not allocated in scope.",
           "Allocate the reduced value (and, for a pair or triple reduction, its other values) in registers "
           "around the AllReduce.");
    if (b->scope != MemScope::Register)
      fail("allreduce-needs-register",
           "Kernel '" + kernel_.name + "' reduces '" + name + "' across threads, but it is a " +
               mem_scope_name(b->scope) + " buffer.",
           "AllReduce combines per-thread values: allocate the buffer in registers.");
  }
  if (s.reduce_kind == "cluster") {
    cluster_all_reduce(s, *vb, sb, tb);
    return;
  }
  const int a = thread_axis_index(s.reduce_axis);
  if (a < 0)
    fail("malformed-ir",
         "Kernel '" + kernel_.name + "' reduces over " + gpu_axis_name(s.reduce_axis) + ", which is not a thread axis.",
         "Reduce over threadIdx.x, threadIdx.y or threadIdx.z.");
  const int64_t dim = kernel_.block[a], width = s.width;
  if (width < 1 || dim % width != 0)
    fail("allreduce-width-mismatch",
         "Kernel '" + kernel_.name + "' reduces over groups of " + std::to_string(width) + " threads along " +
             gpu_axis_name(s.reduce_axis) + ", which does not divide the block's " + std::to_string(dim) +
             " threads there.",
         "Use a width that divides the block size on the reduce axis.");
  const std::string value = expr_.element(s.buffer, s.index);
  // A tuple reduction's parts after the first (", second" or ", second, third").
  const std::string carried = pair ? ", " + expr_.element(s.pair_buffer, s.index) +
                                         (triple ? ", " + expr_.element(s.third_buffer, s.index) : "")
                                   : "";
  const std::string op = reduce_op_struct(s.reduce_op);
  const std::string w = std::to_string(width);
  const bool pow2 = (width & (width - 1)) == 0;
  const int64_t threads = kernel_.block[0] * kernel_.block[1] * kernel_.block[2];

  // The cheapest exact implementation for the group shape: shuffles when the group
  // is a power-of-two run of lanes inside one warp, shuffles plus one value per warp
  // when it is whole warps along x, otherwise one value per thread in shared memory.
  if (a == 0 && pow2 && width <= 32) {
    if (pair)
      line("cusched::warp_allreduce_parts<" + op + ">(" + w + ", " + value + carried + ");");
    else
      line(value + " = cusched::warp_allreduce<" + op + ">(" + value + ", " + w + ");");
    return;
  }
  const bool whole_warps = a == 0 && width % 32 == 0;
  const int64_t slots = whole_warps ? threads / 32 : threads;
  const std::string scratch = "cusched_reduce" + std::to_string(reductions_++);
  open("");
  shared_array(scratch, vb->dtype, slots);
  if (pair) shared_array(scratch + "_index", sb->dtype, slots);
  if (triple) shared_array(scratch + "_count", tb->dtype, slots);
  // Each part of a tuple reduction with its scratch array.
  std::string parts = "cusched::reduce_part(" + value + ", " + scratch + ")";
  if (pair) parts += ", cusched::reduce_part(" + expr_.element(s.pair_buffer, s.index) + ", " + scratch + "_index)";
  if (triple) parts += ", cusched::reduce_part(" + expr_.element(s.third_buffer, s.index) + ", " + scratch + "_count)";
  if (whole_warps) {
    if (pair)
      line("cusched::block_allreduce_parts<" + op + ">(" + w + ", " + parts + ");");
    else
      line(value + " = cusched::block_allreduce<" + op + ">(" + value + ", " + w + ", " + scratch + ");");
  } else {
    const int64_t stride = a == 0 ? 1 : a == 1 ? kernel_.block[0] : kernel_.block[0] * kernel_.block[1];
    const std::string group =
        "static_cast<int>(threadIdx." + std::string(axis_letter(a)) + "), " + w + ", " + std::to_string(stride);
    if (pair)
      line("cusched::block_allreduce_parts_strided<" + op + ">(" + group + ", " + parts + ");");
    else
      line(value + " = cusched::block_allreduce_strided<" + op + ">(" + value + ", " + group + ", " + scratch + ");");
  }
  close();
}

// Across the blocks of the cluster through distributed shared memory. When the stage
// combined across the whole block first, every thread holds the same value and each
// block pushes that one value into every block's slots; otherwise each thread combines
// the slots of its own thread index in every block. A tuple reduction (pair or triple)
// moves each of its parts through a scratch array of its own.
void KernelWriter::cluster_all_reduce(const StmtNode& s, const EmittedBuffer& vb, const EmittedBuffer* sb,
                                      const EmittedBuffer* tb) {
  if (s.reduce_axis != GpuAxis::ClusterX || s.width != kernel_.cluster || kernel_.cluster < 2)
    fail("malformed-ir",
         "Kernel '" + kernel_.name + "' has a cluster all-reduce over " + std::to_string(s.width) + " blocks on " +
             gpu_axis_name(s.reduce_axis) + " but a cluster of " + std::to_string(kernel_.cluster) + ".",
         "Combine across cluster.x with the cluster's full width; this is a lowering bug.");
  const int64_t threads = kernel_.block[0] * kernel_.block[1] * kernel_.block[2];
  const int a = thread_axis_index(s.combined_axis);
  const bool uniform = a >= 0 && s.combined_width == kernel_.block[a] && threads == kernel_.block[a];
  const std::string value = expr_.element(s.buffer, s.index), op = reduce_op_struct(s.reduce_op);
  const std::string w = std::to_string(s.width), scratch = "cusched_reduce" + std::to_string(reductions_++);
  const int64_t slots = uniform ? 2 * s.width : threads;  // two phases of one slot per block, or one per thread
  open("");
  shared_array(scratch, vb.dtype, slots);
  if (!sb) {
    if (uniform)
      line(value + " = cusched::cluster_allreduce_uniform_push<" + op + ", " + w + ">(" + value + ", " + scratch +
           ", cusched_cluster_phase, cusched_cluster_pending);");
    else
      line(value + " = cusched::cluster_allreduce<" + op + ">(" + value + ", " + w + ", " + scratch +
           ", cusched_cluster_pending);");
    close();
    return;
  }
  std::string parts = "cusched::reduce_part(" + value + ", " + scratch + ")";
  shared_array(scratch + "_index", sb->dtype, slots);
  parts += ", cusched::reduce_part(" + expr_.element(s.pair_buffer, s.index) + ", " + scratch + "_index)";
  if (tb) {
    shared_array(scratch + "_count", tb->dtype, slots);
    parts += ", cusched::reduce_part(" + expr_.element(s.third_buffer, s.index) + ", " + scratch + "_count)";
  }
  if (uniform)
    line("cusched::cluster_allreduce_parts_uniform_push<" + op + ", " + w +
         ">(cusched_cluster_phase, cusched_cluster_pending, " + parts + ");");
  else
    line("cusched::cluster_allreduce_parts<" + op + ">(" + w + ", cusched_cluster_pending, " + parts + ");");
  close();
}

}  // namespace cusched::cuda_emit
