#include "runtime/trial_io.h"

#include <filesystem>

#include "runtime/npy.h"
#include "runtime/trial_plan.h"

namespace cusched::runtime {

namespace {

void save_tensor(const std::string& dir, const std::string& file, const BufferSpec& b, const std::vector<uint8_t>& data,
                 DType t) {
  std::filesystem::create_directories(dir);
  write_npy(dir + "/" + file, NpyArray{t, b.shape, data});
}

}  // namespace

bool saves_trial(const EvalRequest& req, int index) {
  return !req.save_io_dir.empty() && (req.save_io_trials <= 0 || index < req.save_io_trials);
}

void save_trial_io(const EvalRequest& req, int index, const BufferBytes& input, const BufferBytes& output,
                   const BufferBytes& reference) {
  const std::string prefix = "trial" + std::to_string(index) + "_";
  for (const auto* b : with_role(req.candidate, BufferRole::Input))
    save_tensor(req.save_io_dir, prefix + b->name + ".npy", *b, input(b->name), b->dtype);
  for (const auto* b : with_role(req.candidate, BufferRole::Output)) {
    save_tensor(req.save_io_dir, prefix + b->name + ".npy", *b, output(b->name), b->dtype);
    const BufferSpec* r = req.reference.find_buffer(b->name);
    save_tensor(req.save_io_dir, prefix + b->name + ".reference.npy", *r, reference(b->name), r->dtype);
  }
}

}  // namespace cusched::runtime
