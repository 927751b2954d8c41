#!/usr/bin/env python3
"""Hand-written probes of softmax's memory stream for `cusched check`, each a text change of
the best-schedule kernel as emitted (control):
  l2_256    X loaded with the L2 prefetch-size hint `ld.global.L2::256B` (a 256-byte fetch
            per miss instead of the default);
  nc_256    the same through the non-coherent path (`ld.global.nc.L2::256B`);
  mbar      the two cluster reductions without cluster barriers: each block pushes its value
            into every peer's slot with `st.async` that completes bytes on the peer's
            mbarrier, and waits on its own mbarrier for the 8 values (one cluster barrier
            in all, after the mbarriers are initialised, overlapping the loads);
  bulk_store  Y written by one bulk copy (cp.async.bulk shared -> global) of the slice
            normalised in place in shared memory;
  and their combinations;
  regsR_bB  the last R of each thread's 8 float4 chunks kept in registers (the shared copy
            4 KiB per chunk smaller, so that more blocks fit on a multiprocessor), with
            __launch_bounds__(256, B).
Usage: gen_variants.py OUT_DIR (CUSCHED names the binary)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from emitted_kernel import emitted_for_check, write_variants  # noqa: E402

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
control = emitted_for_check("softmax")


def replaced(text, old, new):
    if old not in text:
        sys.exit(f"text not found in the emitted kernel: {old[:80]!r}")
    return text.replace(old, new)


LOAD = "const float4 X_vec0 = *reinterpret_cast<const float4*>(&X["
HELPERS = r"""
__device__ __forceinline__ float4 load_256(const float* p) {
  float4 v;
  asm volatile("ld.global.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  return v;
}
__device__ __forceinline__ float4 load_nc_256(const float* p) {
  float4 v;
  asm volatile("ld.global.nc.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  return v;
}
__device__ __forceinline__ void mbar_init(unsigned long long* bar, unsigned int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(cusched::shared_address(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_expect(unsigned long long* bar, unsigned int bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(cusched::shared_address(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_wait(unsigned long long* bar, unsigned int parity) {
  asm volatile(
      "{\n .reg .pred done;\n wait_%=:\n"
      " mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      " @!done bra wait_%=;\n}" ::"r"(cusched::shared_address(bar)), "r"(parity) : "memory");
}
// Stores v into `slot` of block `rank` and completes 4 bytes on that block's `bar`.
__device__ __forceinline__ void push_to_peer(float* slot, unsigned long long* bar, unsigned int rank, float v) {
  unsigned int remote_slot, remote_bar;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_slot) : "r"(cusched::shared_address(slot)), "r"(rank));
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_bar) : "r"(cusched::shared_address(bar)), "r"(rank));
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::"r"(remote_slot),
               "r"(__float_as_uint(v)), "r"(remote_bar) : "memory");
}
// The cluster's combination of every block's v: each block's value lands in every block's
// slots[rank]; this block waits until its 8 slots are full.
template <typename Op>
__device__ __forceinline__ float cluster_allreduce_mbar(float v, float* slots, unsigned long long* bar) {
  if (threadIdx.x == 0) mbar_expect(bar, 8 * sizeof(float));
  if (threadIdx.x < 8) push_to_peer(&slots[cusched::cluster_rank<8>()], bar, threadIdx.x, v);
  mbar_wait(bar, 0);
  float r = slots[0];
  #pragma unroll
  for (int b = 1; b < 8; ++b) r = Op::combine(r, slots[b]);
  return r;
}
"""

with_helpers = replaced(control, '#include "cusched_device.cuh"\n', '#include "cusched_device.cuh"\n' + HELPERS)


def l2_256(text, nc):
    fn = "load_nc_256" if nc else "load_256"
    start = text.index(LOAD)
    end = text.index("]);", start)
    address = text[start + len(LOAD):end]
    return text[:start] + f"const float4 X_vec0 = {fn}(&X[{address}]);" + text[end + 3:]


def mbar(text):
    text = replaced(text, "    __shared__ __align__(16) float S[1];\n",
                    "    __shared__ __align__(16) float S[1];\n"
                    "    __shared__ __align__(8) unsigned long long reduce_bar[2];\n"
                    "    __shared__ float max_slots[8], sum_slots[8];\n"
                    "    if (threadIdx.x == 0) {\n"
                    "      mbar_init(&reduce_bar[0], 1);\n"
                    "      mbar_init(&reduce_bar[1], 1);\n"
                    "      asm volatile(\"fence.mbarrier_init.release.cluster;\" ::: \"memory\");\n"
                    "    }\n"
                    "    cusched::cluster_arrive();\n")
    text = replaced(text, "    __syncthreads();\n    for (int M_i = 0;", "    __syncthreads();\n    cusched::cluster_wait();\n    for (int M_i = 0;")
    for op, acc, slots, k, n in (("MaxOp", "M", "max_slots", 0, 1), ("SumOp", "S", "sum_slots", 1, 3)):
        old = (f"          __shared__ __align__(16) float cusched_reduce{n}[16];\n"
               f"          {acc}_acc[{acc}_c] = cusched::cluster_allreduce_uniform_push<cusched::{op}, 8>({acc}_acc[{acc}_c], "
               f"cusched_reduce{n}, cusched_cluster_phase, cusched_cluster_pending);\n")
        new = f"          {acc}_acc[{acc}_c] = cluster_allreduce_mbar<cusched::{op}>({acc}_acc[{acc}_c], {slots}, &reduce_bar[{k}]);\n"
        text = replaced(text, old, new)
    return text


def bulk_store(text):
    start = text.index("          *reinterpret_cast<float4*>(&Y[")
    end = text.index(";\n", start) + 2
    line = text[start:end]
    value = line[line.index("make_float4("):-2]
    text = text[:start] + f"          *reinterpret_cast<float4*>(&X_shared[Y_jo * 1024 + Y_jt * 4]) = {value};\n" + text[end:]
    return replaced(text, "    }\n  }\n  cusched::cluster_settle(cusched_cluster_pending);\n",
                    "    }\n"
                    "    asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\");\n"
                    "    __syncthreads();\n"
                    "    if (threadIdx.x == 0) {\n"
                    "      asm volatile(\"cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 32768;\" ::\"l\"(__cvta_generic_to_global(&Y[Y_i * 65536 + Y_jc * 8192])),\n"
                    "                   \"r\"(cusched::shared_address(X_shared)) : \"memory\");\n"
                    "      asm volatile(\"cp.async.bulk.commit_group;\" ::: \"memory\");\n"
                    "      asm volatile(\"cp.async.bulk.wait_group.read 0;\" ::: \"memory\");\n"
                    "    }\n"
                    "  }\n  cusched::cluster_settle(cusched_cluster_pending);\n")


def registers_last(text, in_registers, min_blocks):
    """The last `in_registers` of each thread's 8 float4 chunks kept in registers instead of
    shared memory (X_shared shrinks by 4 KiB per chunk), the reading loops unrolled so that
    each chunk's place is known at compile time, and __launch_bounds__(256, min_blocks)."""
    kept = 8 - in_registers
    text = replaced(text, "void __cluster_dims__(8, 1, 1) softmax_kernel(",
                    f"void __cluster_dims__(8, 1, 1) __launch_bounds__(256, {min_blocks}) softmax_kernel(")
    text = replaced(text, "    __shared__ __align__(16) float X_shared[8192];\n",
                    f"    __shared__ __align__(16) float X_shared[{kept * 1024}];\n    float4 X_reg[{in_registers}];\n")
    store = "        *reinterpret_cast<float4*>(&X_shared[X_shared_c0 * 1024 + cusched::linear_thread_index() * 4]) = make_float4(X_vec0.x, X_vec0.y, X_vec0.z, X_vec0.w);\n"
    text = replaced(text, store, f"        if (X_shared_c0 < {kept}) {{\n  " + store +
                    f"        }} else {{\n          X_reg[X_shared_c0 - {kept}] = X_vec0;\n        }}\n")
    for loop, vec in (("M_ko", "X_shared_vec1"), ("S_ko", "X_shared_vec2"), ("Y_jo", "X_shared_vec3")):
        text = replaced(text, f"        for (int {loop} = 0; {loop} < 8; ++{loop}) {{\n",
                        f"        #pragma unroll\n        for (int {loop} = 0; {loop} < 8; ++{loop}) {{\n") if loop != "Y_jo" else replaced(
                        text, f"    for (int {loop} = 0; {loop} < 8; ++{loop}) {{\n",
                        f"    #pragma unroll\n    for (int {loop} = 0; {loop} < 8; ++{loop}) {{\n")
        start = text.index(f"const float4 {vec} = ")
        end = text.index(";\n", start)
        load = text[start + len(f"const float4 {vec} = "):end]
        text = text[:start] + f"const float4 {vec} = {loop} < {kept} ? {load} : X_reg[{loop} - {kept}]" + text[end:]
    return text


variants = {
    "control": control,
    "l2_256": l2_256(with_helpers, False),
    "nc_256": l2_256(with_helpers, True),
    "mbar": mbar(with_helpers),
    "bulk_store": bulk_store(with_helpers),
    "mbar_l2_256": l2_256(mbar(with_helpers), False),
    "mbar_bulk_store": bulk_store(mbar(with_helpers)),
    "regs1_b7": registers_last(control, 1, 7),
    "regs1_b6": registers_last(control, 1, 6),
    "regs2_b8": registers_last(control, 2, 8),
    "regs2_b7": registers_last(control, 2, 7),
}
write_variants(out, variants, "control", prefix="softmax_")
