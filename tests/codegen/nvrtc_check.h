#pragma once
// Compiles CUDA source with NVRTC for sm_90a, the way the runtime does, so that the
// tests can check that emitted code and the device library build to a real CUBIN.
#include <cstddef>
#include <map>
#include <string>

namespace cusched::test {

struct NvrtcOutcome {
  bool compiled = false;
  std::string log;
  std::size_t cubin_bytes = 0;
};

NvrtcOutcome compile_with_nvrtc(const std::string& source, const std::map<std::string, std::string>& headers);

}  // namespace cusched::test
