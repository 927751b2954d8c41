// The device-side check kernels compile with NVRTC for Hopper (no GPU needed),
// with every entry point the runtime looks up.
#include <filesystem>
#include <set>

#include <gtest/gtest.h>
#include <unistd.h>

#include "runtime/device_check.h"
#include "runtime/nvrtc_compiler.h"

namespace cusched::runtime {
namespace {

TEST(DeviceCheckSource, CompilesWithEveryKernel) {
  CompileOptions o;
  o.arch = "sm_90a";
  o.extra_options = {"--fmad=false"};
  o.use_cache = false;
  CompiledModule m = compile_cuda(device_check_source(), {}, o, "cusched_device_check.cu");
  EXPECT_FALSE(m.cubin.empty());
  std::set<std::string> kernels;
  for (const auto& r : m.resources) {
    kernels.insert(r.kernel);
    EXPECT_EQ(r.spill_store_bytes, 0) << r.kernel;
  }
  for (const char* k : {"cusched_check_reference", "cusched_check_output", "cusched_find_worst",
                        "cusched_first_difference", "cusched_checksum"})
    EXPECT_TRUE(kernels.count(k)) << k << " missing from " << m.log;
}

}  // namespace
}  // namespace cusched::runtime
