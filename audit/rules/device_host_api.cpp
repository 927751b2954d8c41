// device-host-api: host/runtime APIs, allocation, printf and library calls in kernel source.
#include <array>
#include <cctype>
#include <string_view>

#include "audit/rules/rules.h"

namespace cusched::audit {
namespace {

constexpr std::array<std::string_view, 18> kForbiddenNames = {
    "malloc",         "calloc",          "realloc",           "free",         "aligned_alloc", "memalign",
    "posix_memalign", "printf",          "vprintf",           "fprintf",      "puts",          "operator new",
    "operator new[]", "operator delete", "operator delete[]", "__assertfail", "exit",          "abort"};
constexpr std::array<std::string_view, 11> kLibraryPrefixes = {
    "cublas", "cudnn", "cufft", "curand", "cusparse", "cusolver", "cutensor", "nccl", "nvshmem", "nvtx", "cupti"};

// cudaMalloc, cudaStreamCreate, cudaEventRecord, cudaGraphLaunch, cudaLaunchDevice, ...
bool is_cuda_runtime_name(const std::string& name) {
  return name.size() > 4 && name.compare(0, 4, "cuda") == 0 && std::isupper(static_cast<unsigned char>(name[4]));
}

class DeviceHostApiRule : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{
        "device-host-api", Severity::Error,
        "Kernel source calls a host or runtime API, allocates memory, prints, or calls a library.",
        "A kernel must compute its result itself, inside the launch the runtime times. The rule flags, anywhere in "
        "the audited source: CUDA runtime calls (any `cuda` + capitalised name: streams, events, graphs, "
        "cudaMalloc, cudaMemcpy, device-side launches), kernel launches `k<<<...>>>` from device code, memory "
        "allocation (malloc, calloc, realloc, free, new, delete; placement new is allowed), printf and "
        "friends, exit/abort/__assertfail, calls into libraries (cuBLAS, cuDNN, cuFFT, cuRAND, cuSPARSE, "
        "cuSOLVER, cuTENSOR, NCCL, NVSHMEM, NVTX, CUPTI), and calls to functions that are declared but defined "
        "nowhere in the source or the device library, since those would have to come from a linked library. "
        "Functions from the CUDA headers and libdevice (`__nv_*`) are allowed."};
    return i;
  }

  void check_source(const SourceFacts& facts, const AuditOptions&, Report& report) const override {
    for (const auto& c : facts.calls) {
      if (c.is_kernel_launch) {
        report.add(info(), c.location, "The kernel launches another kernel ('" + c.callee + "') from device code.",
                   "Put the work in this kernel, or list the second kernel as its own launch in the launch plan.");
        continue;
      }
      if (c.callee.empty()) continue;
      bool forbidden = false;
      for (auto n : kForbiddenNames) forbidden |= (c.callee == n);
      if (forbidden) {
        bool alloc =
            c.callee.find("alloc") != std::string::npos || c.callee == "free" || c.callee.find("operator") == 0;
        report.add(info(), c.location,
                   "Device code calls '" + c.callee + "', " +
                       (alloc ? "which allocates or frees memory inside the kernel."
                              : "which is host-side or diagnostic I/O, not part of the computation."),
                   alloc ? "Use __shared__ arrays or registers, or ask the launch plan for a scratch buffer."
                         : "Remove the call; report problems through the output and the verifier instead.");
        continue;
      }
      if (is_cuda_runtime_name(c.callee) && !(c.callee_defined && !c.callee_in_system_header)) {
        report.add(info(), c.location,
                   "Device code calls the CUDA runtime API '" + c.callee +
                       "' (streams, events, graphs, memory or launches are managed by the cusched runtime).",
                   "Remove the call: the runtime allocates buffers and launches and times kernels on one stream.");
        continue;
      }
      bool library = false;
      for (auto p : kLibraryPrefixes) library |= (c.callee.rfind(p, 0) == 0);
      if (library && !(c.callee_defined && !c.callee_in_system_header)) {
        report.add(info(), c.location, "Device code calls the library function '" + c.qualified_callee + "'.",
                   "Compute the result in the kernel itself; library calls are not part of a cusched schedule.");
        continue;
      }
      if (!c.callee_defined && !c.is_builtin && !c.callee_in_system_header && c.callee.rfind("__nv_", 0) != 0) {
        report.add(info(), c.location,
                   "Device code calls '" + c.qualified_callee +
                       "', which is declared but not defined in the source or the device library, so it would "
                       "come from a library linked in.",
                   "Define the function in the kernel source (or the device library), or remove the call.");
      }
    }
  }
};
}  // namespace
std::unique_ptr<Rule> make_device_host_api_rule() { return std::make_unique<DeviceHostApiRule>(); }
}  // namespace cusched::audit
