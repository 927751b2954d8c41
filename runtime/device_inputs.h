#pragma once
// Seeded trial inputs drawn on the GPU: the streams of input_generator.h (SplitMix64 of
// the seed and the element index, the same distributions and the same stores), computed by
// a kernel into device memory, so that a large input costs neither host time nor an upload.
// Integer, uniform and randint values equal the host's bit for bit; a normal value comes
// from the device's logf, cosf and sinf and may differ from the host's in its last bits.
#include <string>

#include "runtime/candidate_buffers.h"
#include "runtime/gpu_context.h"
#include "runtime/trial_plan.h"

namespace cusched::runtime {

// The inputs of one trial of `req` as device buffers, from trial_input_sources: a file of
// the request's inputs_dir read (read_input_file) and uploaded, else drawn on the GPU.
// Throws UserError ("bad-distribution", "bad-npy").
DeviceTensors device_trial_inputs(const EvalRequest& req, const TrialPlan& plan, const GpuContext& ctx);

// The same inputs, downloaded to the host.
HostTensors downloaded(const DeviceTensors& buffers);

// The CUDA source of the generator kernel (tests compile it on machines without a GPU).
const std::string& device_inputs_source();

}  // namespace cusched::runtime
