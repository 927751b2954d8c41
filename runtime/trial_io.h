#pragma once
// The trials an evaluation writes for a check against another implementation
// (EvalRequest::save_io_dir, save_io_trials): trial<k>_<buffer>.npy for the inputs and the
// candidate's outputs, trial<k>_<buffer>.reference.npy for the reference's outputs. The
// host check and the device check both write them, each from where its data lives.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/evaluation.h"

namespace cusched::runtime {

// Whether `req` asks for trial `index`'s data.
bool saves_trial(const EvalRequest& req, int index);

// A buffer's bytes by its name.
using BufferBytes = std::function<std::vector<uint8_t>(const std::string&)>;

// Writes trial `index`'s inputs, candidate outputs and reference outputs into
// req.save_io_dir (created where missing).
void save_trial_io(const EvalRequest& req, int index, const BufferBytes& input, const BufferBytes& output,
                   const BufferBytes& reference);

}  // namespace cusched::runtime
