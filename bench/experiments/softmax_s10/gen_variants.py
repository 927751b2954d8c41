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
  and their combinations. Usage: gen_variants.py OUT_DIR (CUSCHED names the binary)."""
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


variants = {
    "control": control,
    "l2_256": l2_256(with_helpers, False),
    "nc_256": l2_256(with_helpers, True),
    "mbar": mbar(with_helpers),
    "bulk_store": bulk_store(with_helpers),
    "mbar_l2_256": l2_256(mbar(with_helpers), False),
    "mbar_bulk_store": bulk_store(mbar(with_helpers)),
}
write_variants(out, variants, "control", prefix="softmax_")
