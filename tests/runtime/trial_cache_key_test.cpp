// The trial cache's key: what must change it (anything that changes the
// inputs or the reference's outputs) and what must not (the candidate, the
// tolerance, timing). No GPU needed.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <unistd.h>

#include "runtime/trial_cache.h"
#include "tests/user_error_code.h"

namespace cusched::runtime {
namespace {

EvalRequest base_request() {
  EvalRequest r;
  r.candidate.problem = "add";
  r.candidate.source =
      "extern \"C\" __global__ void add(const float* A, float* C) { C[threadIdx.x] = A[threadIdx.x]; }";
  r.candidate.buffers = {{"A", DType::f32, {256}, BufferRole::Input, false},
                         {"C", DType::f32, {256}, BufferRole::Output, false}};
  r.candidate.launches = {{"add", {1, 1, 1}, {256, 1, 1}, 0, {"A", "C"}}};
  r.reference = r.candidate;
  r.reference.source =
      "extern \"C\" __global__ void add(const float* A, double* C) { C[threadIdx.x] = A[threadIdx.x]; }";
  r.reference.buffers[1].dtype = DType::f64;
  r.inputs = {{"A", {"normal", 0, 1}, std::nullopt}};
  r.base_seed = 7;
  r.seeds = 3;
  return r;
}

TEST(TrialCacheKey, SameRequestSameKey) {
  EXPECT_EQ(trial_cache_key(base_request()), trial_cache_key(base_request()));
  EXPECT_EQ(trial_cache_key(base_request()).size(), 32u);
}

TEST(TrialCacheKey, CandidateToleranceAndTimingDoNotEnter) {
  const std::string key = trial_cache_key(base_request());
  EvalRequest r = base_request();
  r.candidate.source += "\n// another schedule";
  r.candidate.launches[0].grid = {2, 1, 1};
  r.tol = {1, 1, 1};
  r.timing.repeats = 3;
  r.time_it = false;
  r.watchdog_s = 1;
  r.host_check = true;
  EXPECT_EQ(trial_cache_key(r), key);
}

TEST(TrialCacheKey, EverythingThatShapesTheTrialsChangesIt) {
  const std::string key = trial_cache_key(base_request());
  std::vector<std::pair<const char*, std::function<void(EvalRequest&)>>> changes = {
      {"reference source", [](EvalRequest& r) { r.reference.source += " "; }},
      {"reference launch", [](EvalRequest& r) { r.reference.launches[0].block = {128, 1, 1}; }},
      {"reference header", [](EvalRequest& r) { r.reference.headers["h.h"] = "#define X 1"; }},
      {"input shape",
       [](EvalRequest& r) {
         r.candidate.buffers[0].shape = {512};
         r.reference.buffers[0].shape = {512};
       }},
      {"input dtype",
       [](EvalRequest& r) {
         r.candidate.buffers[0].dtype = DType::f16;
         r.reference.buffers[0].dtype = DType::f16;
       }},
      {"distribution kind", [](EvalRequest& r) { r.inputs[0].standard.kind = "uniform"; }},
      {"distribution parameter", [](EvalRequest& r) { r.inputs[0].standard.b = 2; }},
      {"adversarial distribution",
       [](EvalRequest& r) { r.inputs[0].adversarial = Distribution{"normal", 1000, 0.01}; }},
      {"base seed", [](EvalRequest& r) { r.base_seed = 8; }},
      {"seed count", [](EvalRequest& r) { r.seeds = 4; }},
      {"inputs dir", [](EvalRequest& r) { r.inputs_dir = "/nonexistent-dir"; }},
      {"device", [](EvalRequest& r) { r.device = 1; }},
  };
  for (auto& [what, change] : changes) {
    EvalRequest r = base_request();
    change(r);
    EXPECT_NE(trial_cache_key(r), key) << what;
  }
}

TEST(TrialCacheKey, FewerThanThreeSeedsCountAsThree) {
  EvalRequest a = base_request(), b = base_request();
  a.seeds = 1;
  b.seeds = 3;
  EXPECT_EQ(trial_cache_key(a), trial_cache_key(b));
}

TEST(TrialCacheKey, RewrittenInputFileChangesIt) {
  auto dir = std::filesystem::temp_directory_path() / ("cusched-trial-key-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  EvalRequest r = base_request();
  r.inputs_dir = dir.string();
  const std::string without_file = trial_cache_key(r);
  { std::ofstream(dir / "A.npy") << "first contents"; }
  const std::string with_file = trial_cache_key(r);
  EXPECT_NE(with_file, without_file);
  EXPECT_EQ(trial_cache_key(r), with_file);
  { std::ofstream(dir / "A.npy") << "other, longer contents"; }
  EXPECT_NE(trial_cache_key(r), with_file);
  std::filesystem::remove_all(dir);
}

TEST(GpuMemoryShare, UnsetOrEmptyIsTheWholeDevice) {
  EXPECT_EQ(parse_gpu_memory_share(nullptr), 1.0);
  EXPECT_EQ(parse_gpu_memory_share(""), 1.0);
}

TEST(GpuMemoryShare, AFractionAboveZeroUpToOneIsTaken) {
  EXPECT_DOUBLE_EQ(parse_gpu_memory_share("0.3333"), 0.3333);
  EXPECT_DOUBLE_EQ(parse_gpu_memory_share("1"), 1.0);
  EXPECT_DOUBLE_EQ(parse_gpu_memory_share("1e-3"), 1e-3);
}

TEST(GpuMemoryShare, OtherValuesAreTheErrorBadEnv) {
  for (const char* bad : {"0", "-0.5", "1.5", "half", "0.5x", " ", "nan", "inf"}) {
    std::string message;
    EXPECT_EQ(test::error_code([&] { parse_gpu_memory_share(bad); }, &message), "bad-env") << bad;
    EXPECT_NE(message.find("CUSCHED_GPU_SHARE"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace cusched::runtime
