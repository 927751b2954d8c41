// The runtime's own kernels (the device checks, the input generator) compile with NVRTC
// for Hopper with their options (no GPU needed), with every entry point the runtime looks
// up and no spills.
#include <set>

#include <gtest/gtest.h>

#include "runtime/device_check.h"
#include "runtime/device_inputs.h"
#include "runtime/runtime_kernels.h"

namespace cusched::runtime {
namespace {

// The kernels that `source` compiles into; every one without spills.
std::set<std::string> kernels_of(const std::string& source, const std::string& file) {
  CompileOptions o = runtime_kernel_options("sm_90a");
  o.use_cache = false;
  CompiledModule m = compile_cuda(source, {}, o, file);
  EXPECT_FALSE(m.cubin.empty()) << m.log;
  std::set<std::string> kernels;
  for (const auto& r : m.resources) {
    kernels.insert(r.kernel);
    EXPECT_EQ(r.spill_store_bytes, 0) << r.kernel;
  }
  return kernels;
}

TEST(DeviceCheckSource, CompilesWithEveryKernel) {
  const auto kernels = kernels_of(device_check_source(), "cusched_device_check.cu");
  for (const char* k : {"cusched_check_reference", "cusched_check_output", "cusched_find_worst",
                        "cusched_first_difference", "cusched_checksum"})
    EXPECT_TRUE(kernels.count(k)) << k << " missing";
}

TEST(DeviceInputsSource, CompilesIntoTheGeneratorKernel) {
  EXPECT_EQ(kernels_of(device_inputs_source(), "cusched_device_inputs.cu"), std::set<std::string>{"cusched_generate"});
}

}  // namespace
}  // namespace cusched::runtime
