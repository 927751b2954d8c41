#pragma once
// Seeded trial inputs drawn on the GPU: the streams of input_generator.h (SplitMix64 of
// the seed and the element index, the same distributions and the same stores), computed by
// a kernel into device memory, so that a large input costs neither host time nor an upload.
// Integer, uniform and randint values equal the host's bit for bit; a normal value comes
// from the device's logf, cosf and sinf and may differ from the host's in its last bits.
#include <map>
#include <string>

#include "runtime/device_buffer.h"
#include "runtime/gpu_context.h"
#include "runtime/trial_plan.h"

namespace cusched::runtime {

// The inputs of one trial of `req` as device buffers: read from the request's inputs_dir
// where the plan says so and the file exists (as trial_inputs reads them), else drawn on
// the GPU. Throws UserError ("bad-distribution", "bad-npy") as trial_inputs does.
std::map<std::string, DeviceBuffer> device_trial_inputs(const EvalRequest& req, const TrialPlan& plan,
                                                        const GpuContext& ctx);

// The same inputs, downloaded to the host.
HostTensors downloaded(const std::map<std::string, DeviceBuffer>& buffers);

// The CUDA source of the generator kernel (tests compile it on machines without a GPU).
const std::string& device_inputs_source();

}  // namespace cusched::runtime
