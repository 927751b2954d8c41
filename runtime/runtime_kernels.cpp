#include "runtime/runtime_kernels.h"

#include <map>
#include <mutex>
#include <utility>

namespace cusched::runtime {

CompileOptions runtime_kernel_options(const std::string& arch) {
  CompileOptions options;
  options.arch = arch;
  options.extra_options = {"--fmad=false"};
  return options;
}

const std::string& runtime_kernel_cubin(const GpuContext& ctx, const std::string& source, const std::string& file) {
  static std::mutex mu;
  static std::map<std::pair<std::string, std::string>, std::string> compiled;  // (file, arch) -> CUBIN
  const CompileOptions options =
      runtime_kernel_options(arch_for_compute_capability(ctx.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                                                         ctx.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)));
  std::lock_guard<std::mutex> lock(mu);
  const auto key = std::make_pair(file, options.arch);
  auto it = compiled.find(key);
  if (it == compiled.end()) it = compiled.emplace(key, compile_cuda(source, {}, options, file).cubin).first;
  return it->second;
}

int runtime_kernel_dtype_code(DType t) {
  switch (t) {
    case DType::f32:
      return 0;
    case DType::f64:
      return 1;
    case DType::f16:
      return 2;
    case DType::bf16:
      return 3;
    case DType::i32:
      return 4;
    case DType::i64:
      return 5;
    case DType::boolean:
      return 6;
  }
  return 0;
}

}  // namespace cusched::runtime
