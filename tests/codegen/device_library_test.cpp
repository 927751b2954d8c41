// The embedded device header library: what it contains and that every function in
// it compiles under NVRTC for sm_90a.
#include "codegen/device_library.h"

#include <gtest/gtest.h>

#include "nvrtc_check.h"

namespace cusched {
namespace {

TEST(DeviceLibrary, EmbedsTheUmbrellaHeaderAndItsParts) {
  const auto& h = device_headers();
  ASSERT_TRUE(h.count("cusched_device.cuh"));
  for (const char* part : {"cusched_numeric.cuh", "cusched_reduce.cuh", "cusched_scan.cuh", "cusched_mma.cuh",
                           "cusched_async_copy.cuh", "cusched_copy.cuh", "cusched_wgmma.cuh"}) {
    ASSERT_TRUE(h.count(part)) << part;
    EXPECT_NE(h.at("cusched_device.cuh").find(std::string("#include \"") + part + "\""), std::string::npos) << part;
  }
}

TEST(DeviceLibrary, InlineAsmIsOnlyMmaLdmatrixCopiesBarriersCvtShflGridDependenciesCachePoliciesOrApproximateTanh) {
  int empty = 0;
  for (const auto& [name, text] : device_headers()) {
    for (size_t at = text.find("asm"); at != std::string::npos; at = text.find("asm", at + 3)) {
      size_t quote = text.find('"', at);
      ASSERT_NE(quote, std::string::npos);
      if (text[quote + 1] == '"') {  // an empty asm: only a use of its operands' registers
        ++empty;
        continue;
      }
      // The first instruction, past an opening scope and its register declarations.
      size_t start = quote + 1;
      for (;;) {
        if (text.compare(start, 2, "\\n") == 0)
          start += 2;
        else if (std::string(" \n\"{").find(text[start]) != std::string::npos)
          start += 1;
        else if (text.compare(start, 4, ".reg") == 0)
          start = text.find(';', start) + 1;
        else
          break;
      }
      std::string instr = text.substr(start, text.find_first_of(" .", start) - start);
      EXPECT_TRUE(instr == "mma" || instr == "ldmatrix" || instr == "cp" || instr == "cvt" || instr == "shfl" ||
                  instr == "mbarrier" || instr == "fence" || instr == "barrier" || instr == "mapa" ||
                  instr == "griddepcontrol" || instr == "wgmma" || instr == "createpolicy" || instr == "ld" ||
                  instr == "tanh")
          << name << " uses inline asm '" << instr << "'";
    }
  }
  EXPECT_EQ(empty, 1) << "hold_register is the library's one empty asm";
}

// Instantiates every template and calls every function of the library.
const char* kEveryFunction = R"(
#include "cusched_device.cuh"
extern "C" __global__ void every_function(const float* __restrict__ a, float* __restrict__ o, long long* oi) {
  float v = a[threadIdx.x];
  long long i = threadIdx.x;
  int n = threadIdx.x;
  __shared__ float s[256];
  __shared__ long long si[256];
  __shared__ double sd[256];
  __shared__ int sn[256];
  v = cusched::warp_allreduce<cusched::SumOp>(v, 16);
  n = cusched::warp_allreduce<cusched::MaxOp>(n, 8);
  v = cusched::block_allreduce<cusched::MaxOp>(v, 64, s);
  v = cusched::block_allreduce_strided<cusched::MinOp>(v, threadIdx.y, 2, 64, s);
  double d = cusched::block_allreduce_strided<cusched::ProductOp>(static_cast<double>(v), threadIdx.y, 2, 64, sd);
  n = cusched::block_allreduce<cusched::MinOp>(n, 32, sn);
  cusched::warp_allreduce_parts<cusched::ArgMaxOp>(32, v, i);
  cusched::block_allreduce_parts<cusched::ArgMinOp>(64, cusched::reduce_part(v, s), cusched::reduce_part(i, si));
  cusched::block_allreduce_parts_strided<cusched::ArgMaxOp>(threadIdx.y, 2, 64, cusched::reduce_part(d, sd),
                                                            cusched::reduce_part(n, sn));
  __half h = cusched::convert<__half>(d);
  __nv_bfloat16 b = cusched::convert<__nv_bfloat16>(h);
  h = cusched::warp_allreduce<cusched::SumOp>(h, 32);
  b = cusched::max_of(b, cusched::convert<__nv_bfloat16>(v));
  h = cusched::min_of(h, cusched::convert<__half>(b));
  v += cusched::convert<float>(h) + cusched::convert<float>(b) + cusched::round_tf32(v) + cusched::round_bf16(v) +
       cusched::round_f16(v) + cusched::inf_f32() + cusched::nan_f32() + static_cast<float>(cusched::nan_f64() + cusched::inf_f64());
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  unsigned int fa[4], fb[2];
  __shared__ __align__(16) float tile[512];
  cusched::cp_async_16(&tile[(threadIdx.x * 4) % 512], &a[threadIdx.x * 4]);
  cusched::cp_async_16_zfill(&tile[(threadIdx.x * 4 + 4) % 512], &a[threadIdx.x * 4], 0);
  cusched::cp_async_commit();
  cusched::cp_async_wait<1>();
  cusched::cp_async_wait_all();
  __shared__ __align__(16) long long bar[1];
  if (threadIdx.x == 0) cusched::mbarrier_init(&bar[0], 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    cusched::mbarrier_arrive_expect_tx(&bar[0], 256);
    cusched::bulk_copy_global_to_shared(&tile[256], &a[64], 256, &bar[0]);
  }
  cusched::mbarrier_wait_parity(&bar[0], 0);
  __syncthreads();
  cusched::ldmatrix_x4(fa, &tile[(threadIdx.x % 32) * 4]);
  cusched::ldmatrix_x4_trans(fb, &tile[(threadIdx.x % 32) * 4]);
  cusched::mma_m16n8k8_tf32(acc, fa, fb, acc);
  cusched::mma_m16n8k8_tf32(acc, tile, tile + 4, acc);
  cusched::mma_m16n8k16_bf16(acc, fa, fb, acc);
  cusched::mma_m16n8k16_f16(acc, fa, fb, acc);
  cusched::async_proxy_fence();
  __syncthreads();
  const unsigned long long desc = cusched::wgmma_descriptor_sw128(&tile[0]);
  cusched::wgmma_fence();
  cusched::wgmma_commit();
  cusched::wgmma_wait<1>();
  cusched::wgmma_wait<0>();
  fa[3] = static_cast<unsigned int>(desc);
  cusched::hold_register(fa[3]);
  // A kernel without __cluster_dims__ is a cluster of one block: rank 0 is this block.
  __shared__ float cs[256];
  __shared__ long long csi[256];
  cusched::allow_next_grid();
  cusched::wait_for_previous_grid();
  bool pending = false;
  unsigned int phase = 0;
  v = cusched::cluster_allreduce<cusched::SumOp>(v, 1, cs, pending);
  cusched::cluster_allreduce_parts<cusched::ArgMaxOp>(1, pending, cusched::reduce_part(v, cs),
                                                      cusched::reduce_part(i, csi));
  v = cusched::cluster_allreduce_uniform_push<cusched::MaxOp, 1>(v, cs, phase, pending);
  cusched::cluster_allreduce_parts_uniform_push<cusched::ArgMinOp, 1>(phase, pending, cusched::reduce_part(v, cs),
                                                                     cusched::reduce_part(i, csi));
  __shared__ float squares_scratch[256], count_scratch[256];
  float squares = v * v, count = 1.0f;
  cusched::cluster_allreduce_parts<cusched::VarianceOp>(1, pending, cusched::reduce_part(v, cs),
                                                        cusched::reduce_part(squares, squares_scratch),
                                                        cusched::reduce_part(count, count_scratch));
  cusched::cluster_allreduce_parts_uniform_push<cusched::VarianceOp, 1>(
      phase, pending, cusched::reduce_part(v, cs), cusched::reduce_part(squares, squares_scratch),
      cusched::reduce_part(count, count_scratch));
  v += squares / count;
  cusched::cluster_settle(pending);
  float scan_total = 0;
  double scan_product = 1;
  v = cusched::warp_inclusive_scan<cusched::SumOp>(v, 16) +
      cusched::warp_exclusive_scan<cusched::SumOp, float>(v, 0, 32, scan_total) + scan_total;
  d = cusched::warp_exclusive_scan<cusched::ProductOp, double>(d, 1, 8, scan_product) * scan_product;
  {
    __shared__ float scan_scratch[32];
    v = cusched::block_exclusive_scan<cusched::SumOp, float>(v, 0, 64, scan_total, scan_scratch) + scan_total;
  }
  const unsigned long long keep = cusched::l2_policy_evict_last(0.05f), drop = cusched::l2_policy_evict_first(1.0f);
  v += cusched::load_l2(a, keep) + cusched::load_l2(reinterpret_cast<const float2*>(a), drop).y +
       cusched::load_l2(reinterpret_cast<const float4*>(a), cusched::l2_policy_evict_normal(0.5f)).w;
  fa[0] = cusched::pack_bf16x2(v, v) ^ cusched::pack_f16x2(v, v);
  o[threadIdx.x] = v + static_cast<float>(d) + acc[0] + acc[1] + acc[2] + acc[3] + static_cast<float>(fa[0]);
  oi[threadIdx.x] = i + n + cusched::linear_thread_index() + cusched::max_of(1LL, i) + cusched::min_of(2, 3);
}
)";

TEST(DeviceLibrary, EveryFunctionCompilesForSm90a) {
  test::NvrtcOutcome r = test::compile_with_nvrtc(kEveryFunction, device_headers());
  EXPECT_TRUE(r.compiled) << r.log;
  EXPECT_GT(r.cubin_bytes, 0u);
}

}  // namespace
}  // namespace cusched
