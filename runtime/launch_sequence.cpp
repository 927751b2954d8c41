#include "runtime/launch_sequence.h"

#include <cstdlib>
#include <string>

#include "runtime/gpu_context.h"
#include "runtime/tensor_map.h"

namespace cusched::runtime {

LoadedModule::LoadedModule(const std::string& cubin) {
  check_cuda(driver().ModuleLoadData(&module_, cubin.data()), "cuModuleLoadData");
}

LoadedModule::~LoadedModule() {
  if (module_ && !context_broken()) driver().ModuleUnload(module_);
}

CUfunction LoadedModule::function(const std::string& name) const {
  CUfunction f = nullptr;
  CUresult r = driver().ModuleGetFunction(&f, module_, name.c_str());
  if (r == CUDA_ERROR_NOT_FOUND)
    fail("unknown-kernel", "The compiled module has no kernel named '" + name + "'.",
         "Declare the kernel extern \"C\" __global__ so that its name is not mangled.");
  check_cuda(r, "cuModuleGetFunction(" + name + ")");
  return f;
}

LaunchSequence::LaunchSequence(const KernelBundle& bundle, const LoadedModule& module,
                               const std::map<std::string, CUdeviceptr>& buffers) {
  for (const auto& b : bundle.buffers)
    if (b.role == BufferRole::Scratch || b.zero_before_launch) zeroed_.emplace_back(buffers.at(b.name), b.bytes());
  for (const auto& spec : bundle.launches) {
    Bound bound{module.function(spec.kernel), &spec, {}, {}};
    auto address = [&](const std::string& name) {
      auto it = buffers.find(name);
      if (it == buffers.end() || !bundle.find_buffer(name))
        fail("bad-bundle",
             "Launch of '" + spec.kernel + "' names the buffer '" + name + "', which the bundle does not declare.",
             "List every kernel argument in the bundle's buffers.");
      return it->second;
    };
    for (const auto& arg : spec.args) bound.args.push_back(address(arg));
    for (const auto& m : spec.tensor_maps)
      bound.tensor_maps.push_back(encode_tensor_map(m, *bundle.find_buffer(m.buffer), address(m.buffer)));
    if (spec.dynamic_smem_bytes > 48 * 1024)
      check_cuda(driver().FuncSetAttribute(bound.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                           static_cast<int>(spec.dynamic_smem_bytes)),
                 "Granting " + std::to_string(spec.dynamic_smem_bytes) + " bytes of dynamic shared memory to '" +
                     spec.kernel + "'");
    // A cluster of more than 8 blocks (the portable limit) is a non-portable size that the
    // kernel must be allowed to use.
    int cluster_width = 0;
    check_cuda(driver().FuncGetAttribute(&cluster_width, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, bound.function),
               "Reading the cluster width of '" + spec.kernel + "'");
    if (cluster_width > 8)
      check_cuda(driver().FuncSetAttribute(bound.function, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
                 "Allowing '" + spec.kernel + "' its cluster of " + std::to_string(cluster_width) + " blocks");
    launches_.push_back(std::move(bound));
  }
}

namespace {

// CUSCHED_SERIAL_LAUNCHES=1: every kernel starts after the previous one has ended (no
// programmatic dependent launch), to tell a dependent-launch fault from a kernel fault.
bool serial_launches() {
  const char* env = std::getenv("CUSCHED_SERIAL_LAUNCHES");
  return env && std::string(env) == "1";
}

}  // namespace

void LaunchSequence::enqueue(CUstream stream) const {
  const CudaDriver& d = driver();
  for (const auto& [ptr, bytes] : zeroed_)
    if (bytes) check_cuda(d.MemsetD8Async(ptr, 0, bytes, stream), "cuMemsetD8Async");
  const bool serial = serial_launches();
  for (size_t i = 0; i < launches_.size(); ++i) launch(stream, launches_[i], i > 0 && !serial);
}

void LaunchSequence::enqueue_launch(CUstream stream, size_t index) const { launch(stream, launches_.at(index), false); }

void LaunchSequence::launch(CUstream stream, const Bound& l, bool dependent) const {
  const CudaDriver& d = driver();
  std::vector<void*> params;
  auto args = l.args;  // cuLaunchKernel reads each parameter through a pointer
  for (auto& a : args) params.push_back(&a);
  for (const auto& m : l.tensor_maps) params.push_back(const_cast<CUtensorMap*>(&m));
  const auto& g = l.spec->grid;
  const auto& b = l.spec->block;
  CUlaunchConfig config{};
  config.gridDimX = static_cast<unsigned>(g[0]);
  config.gridDimY = static_cast<unsigned>(g[1]);
  config.gridDimZ = static_cast<unsigned>(g[2]);
  config.blockDimX = static_cast<unsigned>(b[0]);
  config.blockDimY = static_cast<unsigned>(b[1]);
  config.blockDimZ = static_cast<unsigned>(b[2]);
  config.sharedMemBytes = static_cast<unsigned>(l.spec->dynamic_smem_bytes);
  config.hStream = stream;
  CUlaunchAttribute programmatic{};
  programmatic.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  programmatic.value.programmaticStreamSerializationAllowed = 1;
  if (dependent) {
    config.attrs = &programmatic;
    config.numAttrs = 1;
  }
  check_cuda(d.LaunchKernelEx(&config, l.function, params.data(), nullptr), "Launching '" + l.spec->kernel + "'");
}

}  // namespace cusched::runtime
