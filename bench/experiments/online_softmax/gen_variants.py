#!/usr/bin/env python3
"""Hand-written probes of a one-reduction softmax for `cusched check`: the best-schedule
kernel as emitted (control), and the same block structure with the row maximum and the
sum of exponentials combined as one (max, sum) pair per thread, per block and across the
cluster (one cluster barrier instead of two; the partial sums rescaled by exp(m - M) when
combined). "smem": the slice still goes through shared memory; "regs": each thread keeps
its 32 values in registers. Usage: gen_variants.py OUT_DIR (CUSCHED names the binary)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from emitted_kernel import emitted_for_check, write_variants  # noqa: E402

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
control = emitted_for_check("softmax")
head, rest = control.split("    #pragma unroll\n    for (int X_shared_c0", 1)
_, tail = rest.split("    for (int Y_jo = 0;", 1)
tail = "    for (int Y_jo = 0;" + tail

PAIR = r"""
    // (max, sum) pair of this thread, then of the warp, the block and the cluster.
    auto combine = [](float& m, float& s, float om, float os) {
      const float mm = fmaxf(m, om);
      s = s * __expf(m - mm) + os * __expf(om - mm);
      m = mm;
    };
    for (int off = 16; off > 0; off /= 2) {
      const float om = __shfl_xor_sync(0xffffffffu, m_t, off), os = __shfl_xor_sync(0xffffffffu, s_t, off);
      combine(m_t, s_t, om, os);
    }
    __shared__ float warp_m[8], warp_s[8];
    __shared__ float slot_m[8], slot_s[8];
    if ((threadIdx.x & 31) == 0) { warp_m[threadIdx.x >> 5] = m_t; warp_s[threadIdx.x >> 5] = s_t; }
    __syncthreads();
    if (threadIdx.x < 8) {
      float bm = warp_m[0], bs = warp_s[0];
      for (int w = 1; w < 8; ++w) combine(bm, bs, warp_m[w], warp_s[w]);
      const unsigned int rank = cusched::cluster_rank<8>();
      *cusched::cluster_peer(&slot_m[rank], threadIdx.x) = bm;
      *cusched::cluster_peer(&slot_s[rank], threadIdx.x) = bs;
    }
    cusched::cluster_barrier();
    float row_m = slot_m[0], row_s = slot_s[0];
    for (int b = 1; b < 8; ++b) combine(row_m, row_s, slot_m[b], slot_s[b]);
"""

def variant(keep_in_registers):
    body = "    float m_t = -cusched::inf_f32();\n"
    if keep_in_registers:
        body += "    float4 xv[8];\n"
    body += "    #pragma unroll\n    for (int c0 = 0; c0 < 8; ++c0) {\n"
    body += "      const float4 v = *reinterpret_cast<const float4*>(&X[c0 * 1024 + Y_i * 65536 + Y_jc * 8192 + threadIdx.x * 4]);\n"
    if keep_in_registers:
        body += "      xv[c0] = v;\n"
    else:
        body += "      *reinterpret_cast<float4*>(&X_shared[c0 * 1024 + threadIdx.x * 4]) = v;\n"
    body += "      m_t = fmaxf(m_t, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));\n    }\n"
    body += "    float s_t = 0.0f;\n    #pragma unroll\n    for (int c0 = 0; c0 < 8; ++c0) {\n"
    body += ("      const float4 v = xv[c0];\n" if keep_in_registers else
             "      const float4 v = *reinterpret_cast<const float4*>(&X_shared[c0 * 1024 + threadIdx.x * 4]);\n")
    body += "      s_t += __expf(v.x - m_t) + __expf(v.y - m_t) + __expf(v.z - m_t) + __expf(v.w - m_t);\n    }\n"
    body += PAIR
    body += "    const float inv = 1.0f / row_s;\n    #pragma unroll\n    for (int c0 = 0; c0 < 8; ++c0) {\n"
    body += ("      const float4 v = xv[c0];\n" if keep_in_registers else
             "      const float4 v = *reinterpret_cast<const float4*>(&X_shared[c0 * 1024 + threadIdx.x * 4]);\n")
    body += ("      *reinterpret_cast<float4*>(&Y[Y_i * 65536 + Y_jc * 8192 + c0 * 1024 + threadIdx.x * 4]) = "
             "make_float4(__expf(v.x - row_m) * inv, __expf(v.y - row_m) * inv, __expf(v.z - row_m) * inv, __expf(v.w - row_m) * inv);\n    }\n")
    end = tail[tail.index("  }\n  cusched::cluster_settle"):]
    text = head + body + end
    if keep_in_registers:
        text = text.replace("    __shared__ __align__(16) float X_shared[8192];\n", "")
    return text

write_variants(out, {"control": control, "online_smem": variant(False), "online_regs": variant(True)}, "control",
               prefix="softmax_")
