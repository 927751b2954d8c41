#include "runtime/trial_cache.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "dsl/error.h"
#include "runtime/compile_cache.h"

namespace cusched::runtime {

namespace {

std::string file_stamp(const std::string& path) {
  std::error_code ec;
  auto size = std::filesystem::file_size(path, ec);
  if (ec) return "absent";
  auto mtime = std::filesystem::last_write_time(path, ec);
  if (ec) return "unreadable";
  return std::to_string(size) + "@" + std::to_string(mtime.time_since_epoch().count());
}

}  // namespace

std::string trial_cache_key(const EvalRequest& req) {
  std::vector<std::string> parts{"cusched trial cache 1", req.reference.to_json().dump()};
  for (const auto& b : req.candidate.buffers) {
    if (b.role != BufferRole::Input) continue;
    std::string shape;
    for (int64_t d : b.shape) shape += std::to_string(d) + ",";
    parts.push_back("input " + b.name + " " + dtype_name(b.dtype) + " " + shape);
    if (!req.inputs_dir.empty()) parts.push_back(file_stamp(req.inputs_dir + "/" + b.name + ".npy"));
  }
  nlohmann::json inputs = nlohmann::json::array();
  for (const auto& in : req.inputs) {
    nlohmann::json e{{"buffer", in.buffer}, {"standard", {in.standard.kind, in.standard.a, in.standard.b}}};
    if (in.adversarial) e["adversarial"] = {in.adversarial->kind, in.adversarial->a, in.adversarial->b};
    inputs.push_back(e);
  }
  parts.push_back(inputs.dump());
  parts.push_back("seeds " + std::to_string(std::max(3, req.seeds)));
  parts.push_back("base_seed " + std::to_string(req.base_seed));
  parts.push_back("inputs_dir " + req.inputs_dir);
  parts.push_back("device " + std::to_string(req.device));
  return content_hash(parts);
}

size_t DeviceTrial::bytes() const {
  size_t n = 0;
  for (const auto& [name, b] : inputs) n += b.bytes();
  for (const auto& [name, b] : reference_outputs) n += b.bytes();
  return n;
}

void DeviceTrial::seal(const DeviceChecker& checker) {
  checksums.clear();
  for (const auto& [name, b] : inputs) checksums["in:" + name] = checker.checksum(b.ptr(), b.bytes());
  for (const auto& [name, b] : reference_outputs) checksums["ref:" + name] = checker.checksum(b.ptr(), b.bytes());
}

bool DeviceTrial::intact(const DeviceChecker& checker) const {
  auto same = [&](const std::string& key, const DeviceBuffer& b) {
    auto it = checksums.find(key);
    return it != checksums.end() && it->second == checker.checksum(b.ptr(), b.bytes());
  };
  for (const auto& [name, b] : inputs)
    if (!same("in:" + name, b)) return false;
  for (const auto& [name, b] : reference_outputs)
    if (!same("ref:" + name, b)) return false;
  return true;
}

TrialSet::TrialSet(std::string key, int device)
    : key_(std::move(key)), context_(std::make_unique<GpuContext>(device)) {}

size_t TrialSet::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return trials_.size();
}

size_t TrialSet::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (const auto& t : trials_) n += t->bytes();
  return n;
}

std::shared_ptr<const DeviceTrial> TrialSet::trial(size_t index) const {
  std::lock_guard<std::mutex> lock(mu_);
  return index < trials_.size() ? trials_[index] : nullptr;
}

void TrialSet::append(size_t index, std::shared_ptr<const DeviceTrial> trial) {
  std::lock_guard<std::mutex> lock(mu_);
  if (index == trials_.size()) trials_.push_back(std::move(trial));
}

bool TrialSet::intact(const DeviceChecker& checker) const {
  std::vector<std::shared_ptr<const DeviceTrial>> trials;
  {
    std::lock_guard<std::mutex> lock(mu_);
    trials = trials_;
  }
  for (const auto& t : trials)
    if (!t->intact(checker)) return false;
  return true;
}

std::shared_ptr<TrialSet> TrialCache::acquire(const std::string& key, int device, bool* hit) {
  std::lock_guard<std::mutex> lock(mu_);
  if (current_ && current_->key() == key && current_->device() == device) {
    if (hit) *hit = true;
    return current_;
  }
  current_.reset();  // frees the old trials before the new ones are allocated
  current_ = std::make_shared<TrialSet>(key, device);
  if (hit) *hit = false;
  return current_;
}

void TrialCache::clear() {
  std::lock_guard<std::mutex> lock(mu_);
  current_.reset();
}

size_t TrialCache::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_ ? current_->bytes() : 0;
}

TrialCache& process_trial_cache() {
  static TrialCache* cache = new TrialCache;
  return *cache;
}

bool device_has_room(size_t keep_bytes, size_t working_bytes) {
  size_t free_bytes = 0, total_bytes = 0;
  if (driver().MemGetInfo(&free_bytes, &total_bytes) != CUDA_SUCCESS) return false;
  size_t margin = std::max<size_t>(size_t{1} << 30, total_bytes / 20);
  return free_bytes >= keep_bytes + working_bytes + margin;
}

double parse_gpu_memory_share(const char* value) {
  if (!value || !*value) return 1.0;
  char* end = nullptr;
  double v = std::strtod(value, &end);
  if (end == value || *end != '\0' || !(v > 0.0 && v <= 1.0))
    fail("bad-env", std::string("CUSCHED_GPU_SHARE is '") + value + "', which is not a fraction above 0 and at most 1.",
         "Set CUSCHED_GPU_SHARE to the share of the GPU's memory this process may hold (e.g. 0.5), or unset it.");
  return v;
}

double gpu_memory_share() { return parse_gpu_memory_share(std::getenv("CUSCHED_GPU_SHARE")); }

bool within_memory_share(size_t bytes) {
  const double share = gpu_memory_share();
  if (share >= 1.0) return true;
  size_t free_bytes = 0, total_bytes = 0;
  if (driver().MemGetInfo(&free_bytes, &total_bytes) != CUDA_SUCCESS) return false;
  return static_cast<double>(bytes) <= share * static_cast<double>(total_bytes);
}

}  // namespace cusched::runtime
