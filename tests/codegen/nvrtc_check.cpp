#include "nvrtc_check.h"

#include <vector>

#include <nvrtc.h>

namespace cusched::test {

NvrtcOutcome compile_with_nvrtc(const std::string& source, const std::map<std::string, std::string>& headers) {
  std::vector<const char*> names, bodies;
  for (const auto& [name, body] : headers) {
    names.push_back(name.c_str());
    bodies.push_back(body.c_str());
  }
  NvrtcOutcome out;
  nvrtcProgram prog = nullptr;
  if (nvrtcCreateProgram(&prog, source.c_str(), "emitted.cu", static_cast<int>(names.size()), bodies.data(),
                         names.data()) != NVRTC_SUCCESS) {
    out.log = "nvrtcCreateProgram failed";
    return out;
  }
  const std::string include = std::string("-I") + CUSCHED_TEST_CUDA_INCLUDE;
  const char* options[] = {"-arch=sm_90a", "-std=c++17", include.c_str()};
  nvrtcResult r = nvrtcCompileProgram(prog, 3, options);
  std::size_t log_size = 0;
  nvrtcGetProgramLogSize(prog, &log_size);
  out.log.assign(log_size, '\0');
  if (log_size) nvrtcGetProgramLog(prog, out.log.data());
  if (r == NVRTC_SUCCESS && nvrtcGetCUBINSize(prog, &out.cubin_bytes) == NVRTC_SUCCESS) out.compiled = true;
  nvrtcDestroyProgram(&prog);
  return out;
}

}  // namespace cusched::test
