// The GPU input generator compiles with NVRTC for Hopper (no GPU needed) into its one
// entry point, without spills.
#include <gtest/gtest.h>

#include "runtime/device_inputs.h"
#include "runtime/nvrtc_compiler.h"

namespace cusched::runtime {
namespace {

TEST(DeviceInputsSource, CompilesIntoTheGeneratorKernel) {
  CompileOptions o;
  o.arch = "sm_90a";
  o.extra_options = {"--fmad=false"};
  o.use_cache = false;
  CompiledModule m = compile_cuda(device_inputs_source(), {}, o, "cusched_device_inputs.cu");
  EXPECT_FALSE(m.cubin.empty());
  ASSERT_EQ(m.resources.size(), 1u) << m.log;
  EXPECT_EQ(m.resources[0].kernel, "cusched_generate");
  EXPECT_EQ(m.resources[0].spill_store_bytes, 0);
}

}  // namespace
}  // namespace cusched::runtime
