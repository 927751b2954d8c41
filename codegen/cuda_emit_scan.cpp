// The CUDA of Scan: shuffles within a warp, and across the warps of a block one
// value per warp in shared memory (the device library's cusched_scan.cuh).
#include "codegen/cuda_kernel_writer.h"
#include "dsl/error.h"

namespace cusched::cuda_emit {

void KernelWriter::scan(const StmtNode& s) {
  const EmittedBuffer* vb = lookup(s.buffer);
  const EmittedBuffer* tb = lookup(s.source);
  for (const auto& [name, b] : {std::pair{s.buffer, vb}, std::pair{s.source, tb}}) {
    if (!b)
      fail("unknown-buffer", "Kernel '" + kernel_.name + "' scans '" + name + "', which is not allocated in scope.",
           "Allocate the scanned value and its total in registers around the Scan.");
    if (b->scope != MemScope::Register)
      fail("scan-needs-register",
           "Kernel '" + kernel_.name + "' scans '" + name + "' across threads, but it is a " +
               mem_scope_name(b->scope) + " buffer.",
           "Scan combines per-thread values: allocate the value and the total in registers.");
  }
  const int64_t dim = kernel_.block[0], width = s.width;
  const bool pow2 = width > 0 && (width & (width - 1)) == 0;
  if (width < 1 || dim % width != 0 || !((pow2 && width <= 32) || width % 32 == 0))
    fail("scan-width-mismatch",
         "Kernel '" + kernel_.name + "' scans over groups of " + std::to_string(width) +
             " threads along threadIdx.x, which is not a power of two up to 32 or a multiple of 32 dividing the "
             "block's " +
             std::to_string(dim) + " threads there.",
         "Scan over a power of two up to 32 threads, or a multiple of 32 that divides blockDim.x.");
  const std::string value = expr_.element(s.buffer, s.index), total = expr_.element(s.source, make_int(0));
  const std::string op = reduce_op_struct(s.reduce_op) + ", " + dtype_c_name(vb->dtype), w = std::to_string(width);
  const std::string identity = s.reduce_op == ReduceOp::Product ? "1" : "0";
  if (width <= 32) {
    line(value + " = cusched::warp_exclusive_scan<" + op + ">(" + value + ", " + identity + ", " + w + ", " + total +
         ");");
    return;
  }
  const int64_t threads = kernel_.block[0] * kernel_.block[1] * kernel_.block[2];
  const std::string scratch = "cusched_scan" + std::to_string(reductions_++);
  open("");
  shared_array(scratch, vb->dtype, threads / 32);
  line(value + " = cusched::block_exclusive_scan<" + op + ">(" + value + ", " + identity + ", " + w + ", " + total +
       ", " + scratch + ");");
  close();
}

}  // namespace cusched::cuda_emit
