// The runtime on a real GPU: a correct kernel verifies and is timed at or
// above its floor; fault-injection kernels each get their verdict, and the run
// goes on with the next candidate. Every test skips without a CUDA driver.
#include <chrono>
#include <filesystem>
#include <thread>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include "runtime/cuda_driver.h"
#include "runtime/device_info.h"
#include "runtime/evaluation.h"
#include "runtime/npy.h"
#include "runtime/worker.h"

namespace cusched::runtime {
namespace {

constexpr int64_t kN = 1 << 24;  // 64 MiB per f32 vector: larger than L2

// C = A + B over kN floats, one element per thread. `body` is the kernel body
// with i the element index (i < n checked before it).
KernelBundle vector_add(const std::string& body, const std::string& extra = "",
                        std::vector<LaunchSpec> extra_launches = {}) {
  KernelBundle b;
  b.problem = "vector_add";
  b.precision = Precision::f32;
  b.source = extra +
             "\nextern \"C\" __global__ void add(const float* A, const float* B, float* C) {\n"
             "  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
             "  if (i >= " +
             std::to_string(kN) + "LL) return;\n  " + body + "\n}\n";
  b.buffers = {{"A", DType::f32, {kN}, BufferRole::Input, false},
               {"B", DType::f32, {kN}, BufferRole::Input, false},
               {"C", DType::f32, {kN}, BufferRole::Output, false}};
  b.launches = {{"add", {kN / 256, 1, 1}, {256, 1, 1}, 0, {"A", "B", "C"}}};
  for (auto& l : extra_launches) b.launches.push_back(l);
  return b;
}

KernelBundle reference_add() {
  KernelBundle b;
  b.problem = "vector_add_reference";
  b.precision = Precision::f64;
  b.source =
      "extern \"C\" __global__ void ref(const float* A, const float* B, double* C) {\n"
      "  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < " +
      std::to_string(kN) + "LL) C[i] = (double)A[i] + (double)B[i];\n}\n";
  b.buffers = {{"A", DType::f32, {kN}, BufferRole::Input, false},
               {"B", DType::f32, {kN}, BufferRole::Input, false},
               {"C", DType::f64, {kN}, BufferRole::Output, false}};
  b.launches = {{"ref", {kN / 128, 1, 1}, {128, 1, 1}, 0, {"A", "B", "C"}}};
  return b;
}

const char* kCorrect = "C[i] = A[i] + B[i];";

EvalRequest request(KernelBundle candidate, bool time_it = false) {
  EvalRequest r;
  r.candidate = std::move(candidate);
  r.reference = reference_add();
  r.tol = {1e-5, 1e-5, 1e-6};
  r.floor = {3.0 * 4 * kN, kN, Precision::f32};
  r.base_seed = 42;
  r.time_it = time_it;
  r.watchdog_s = 5;
  return r;
}

class GpuRuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto e = driver_available()) GTEST_SKIP() << e->message;
  }
};

TEST_F(GpuRuntimeTest, DeviceIsDescribed) {
  DeviceInfo d = query_device(0);
  EXPECT_FALSE(d.name.empty());
  EXPECT_GT(d.sm_count, 0);
  EXPECT_GT(d.l2_bytes, 0);
  EXPECT_GE(d.smem_per_block_optin, 48 * 1024);
  if (d.cc_major == 9 && d.cc_minor == 0) {
    EXPECT_EQ(d.arch, "sm_90a");
  }
  std::cout << d.to_json().dump() << "\n";
}

TEST_F(GpuRuntimeTest, CorrectKernelVerifiesAndIsTimedAboveItsFloor) {
  Worker w(0);
  EvalResult r = w.evaluate(request(vector_add(kCorrect), true));
  std::cout << r.to_json().dump() << "\n";
  ASSERT_EQ(r.verdict, Verdict::ok) << r.message;
  EXPECT_GE(r.trials, 3);
  EXPECT_EQ(r.times_ms.size(), 30u);
  EXPECT_GT(r.copy_bandwidth_gbs, 100.0);
  EXPECT_GT(r.floor_ms, 0.0);
  EXPECT_GE(r.median_ms, 0.97 * r.floor_ms);
  EXPECT_LE(r.min_ms, r.median_ms);
  EXPECT_GE(r.max_ms, r.median_ms);
  EXPECT_GT(r.pct_of_floor, 0.0);
  EXPECT_LE(r.pct_of_floor, 100.0 / 0.97);
  EXPECT_EQ(r.compile_report["candidate"]["kernels"][0]["kernel"], "add");
  EXPECT_GT(r.compile_report["candidate"]["kernels"][0]["registers"].get<int>(), 0);
  EXPECT_LE(r.max_abs_err, 1e-5);
}

// A candidate whose first timed run is slower than the cut is timed once; one faster than
// the cut is timed in full.
TEST_F(GpuRuntimeTest, TimingStopsAfterOneRunAboveTheCut) {
  Worker w(0);
  EvalRequest slow = request(vector_add(kCorrect), true);
  slow.timing.cut_ms = 1e-6;
  slow.timing.warmup = 1;
  EvalResult r = w.evaluate(slow);
  ASSERT_EQ(r.verdict, Verdict::ok) << r.message;
  EXPECT_EQ(r.times_ms.size(), 1u);
  EXPECT_TRUE(r.timing_cut);
  EXPECT_EQ(r.timed_runs_verified, 1);
  EvalRequest fast = request(vector_add(kCorrect), true);
  fast.timing.cut_ms = 1e6;
  EvalResult f = w.evaluate(fast);
  ASSERT_EQ(f.verdict, Verdict::ok) << f.message;
  EXPECT_EQ(f.times_ms.size(), 30u);
  EXPECT_FALSE(f.timing_cut);
}

// A timing budget smaller than one run stops the series after min_repeats runs; a budget
// far above thirty runs leaves all thirty.
TEST_F(GpuRuntimeTest, TimingStopsOnceItsBudgetIsSpent) {
  Worker w(0);
  EvalRequest small = request(vector_add(kCorrect), true);
  small.timing.budget_ms = 1e-6;
  EvalResult r = w.evaluate(small);
  ASSERT_EQ(r.verdict, Verdict::ok) << r.message;
  EXPECT_EQ(r.times_ms.size(), static_cast<size_t>(small.timing.min_repeats));
  EXPECT_FALSE(r.timing_cut);
  EvalRequest large = request(vector_add(kCorrect), true);
  large.timing.budget_ms = 1e6;
  EvalResult f = w.evaluate(large);
  ASSERT_EQ(f.verdict, Verdict::ok) << f.message;
  EXPECT_EQ(f.times_ms.size(), 30u);
}

TEST_F(GpuRuntimeTest, EachLaunchIsTimedAloneWhenAsked) {
  // Two launches of the same kernel: each alone takes about half the sequence.
  KernelBundle twice = vector_add(kCorrect, "", {{"add", {kN / 256, 1, 1}, {256, 1, 1}, 0, {"A", "B", "C"}}});
  EvalRequest req = request(twice, true);
  req.time_each_launch = true;
  EvalResult r = Worker(0).evaluate(req);
  ASSERT_EQ(r.verdict, Verdict::ok) << r.message;
  ASSERT_EQ(r.launch_ms.size(), 2u);
  double sum = 0;
  for (const auto& [kernel, ms] : r.launch_ms) {
    EXPECT_EQ(kernel, "add");
    EXPECT_GT(ms, 0.0);
    EXPECT_LT(ms, 0.8 * r.median_ms);
    sum += ms;
  }
  EXPECT_GT(sum, 0.6 * r.median_ms);
  EXPECT_LT(sum, 1.4 * r.median_ms);
  req.time_each_launch = false;
  EXPECT_TRUE(Worker(0).evaluate(req).launch_ms.empty());
}

// After the launches timed alone, the whole sequence runs once more from poisoned outputs
// and is verified: one verified run more than the same request without per-launch times.
TEST_F(GpuRuntimeTest, PerLaunchTimingsEndWithOneMoreVerifiedRun) {
  KernelBundle twice = vector_add(kCorrect, "", {{"add", {kN / 256, 1, 1}, {256, 1, 1}, 0, {"A", "B", "C"}}});
  EvalRequest req = request(twice, true);
  EvalResult plain = Worker(0).evaluate(req);
  req.time_each_launch = true;
  EvalResult per_launch = Worker(0).evaluate(req);
  ASSERT_EQ(plain.verdict, Verdict::ok) << plain.message;
  ASSERT_EQ(per_launch.verdict, Verdict::ok) << per_launch.message;
  EXPECT_EQ(per_launch.timed_runs_verified, plain.timed_runs_verified + 1);
}

TEST_F(GpuRuntimeTest, InProcessEvaluationSavesAndReplaysInputs) {
  std::string dir = (std::filesystem::temp_directory_path() / ("cusched-io-" + std::to_string(getpid()))).string();
  EvalRequest req = request(vector_add(kCorrect));
  req.save_io_dir = dir;
  InputSpec spec;
  spec.buffer = "A";
  spec.standard = {"uniform", -1, 1};
  spec.adversarial = Distribution{"normal", 1000, 0.01};
  req.inputs.push_back(spec);
  EvalResult r = evaluate(req);
  ASSERT_EQ(r.verdict, Verdict::ok) << r.message;
  EXPECT_EQ(r.trials, 4);  // three seeds and the adversarial trial
  NpyArray a = read_npy(dir + "/trial0_A.npy");
  NpyArray c = read_npy(dir + "/trial0_C.npy");
  NpyArray ref = read_npy(dir + "/trial0_C.reference.npy");
  EXPECT_EQ(a.shape, std::vector<int64_t>{kN});
  EXPECT_EQ(c.dtype, DType::f32);
  EXPECT_EQ(ref.dtype, DType::f64);
  NpyArray adversarial = read_npy(dir + "/trial3_A.npy");
  EXPECT_GT(reinterpret_cast<const float*>(adversarial.data.data())[0], 900.0f);
  // Saving needs no host check: the device check downloads the saved trials' buffers,
  // the inputs, the candidate's outputs and the reference's.
  EXPECT_EQ(r.check_path, "device");
  NpyArray b = read_npy(dir + "/trial0_B.npy");
  const float* av = reinterpret_cast<const float*>(a.data.data());
  const float* bv = reinterpret_cast<const float*>(b.data.data());
  const float* cv = reinterpret_cast<const float*>(c.data.data());
  const double* rv = reinterpret_cast<const double*>(ref.data.data());
  for (int64_t i = 0; i < kN; i += 97) {
    EXPECT_EQ(cv[i], av[i] + bv[i]) << "at " << i;
    EXPECT_NEAR(rv[i], static_cast<double>(av[i]) + bv[i], 1e-6) << "at " << i;
  }

  // Replay trial 0's inputs from a folder: one extra first trial.
  std::filesystem::create_directories(dir + "/in");
  std::filesystem::copy_file(dir + "/trial0_A.npy", dir + "/in/A.npy");
  std::filesystem::copy_file(dir + "/trial0_B.npy", dir + "/in/B.npy");
  EvalRequest replay = request(vector_add(kCorrect));
  replay.inputs_dir = dir + "/in";
  EvalResult rr = evaluate(replay);
  EXPECT_EQ(rr.verdict, Verdict::ok) << rr.message;
  EXPECT_EQ(rr.trials, 4);
  std::filesystem::remove_all(dir);

  // save_io_trials: the first trial only, all four still verified.
  EvalRequest first = request(vector_add(kCorrect));
  first.save_io_dir = dir;
  first.save_io_trials = 1;
  first.inputs.push_back(spec);
  EvalResult rf = evaluate(first);
  ASSERT_EQ(rf.verdict, Verdict::ok) << rf.message;
  EXPECT_EQ(rf.trials, 4);
  EXPECT_TRUE(std::filesystem::exists(dir + "/trial0_C.reference.npy"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/trial1_A.npy"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/trial3_A.npy"));
  std::filesystem::remove_all(dir);
}

struct Fault {
  const char* name;
  KernelBundle candidate;
  Verdict expected;
};

TEST_F(GpuRuntimeTest, EveryFaultGetsItsVerdictAndTheRunContinues) {
  LaunchSpec mark{"mark_done", {1, 1, 1}, {1, 1, 1}, 0, {}};
  std::vector<Fault> faults = {
      {"out-of-bounds write", vector_add("C[i + (1LL << 38)] = A[i];"), Verdict::illegal_address},
      {"correct after a fault", vector_add(kCorrect), Verdict::ok},
      {"infinite loop", vector_add("long long t0 = clock64(); while (clock64() >= t0) {} C[i] = A[i] + B[i];"),
       Verdict::timeout},
      {"correct after a hang", vector_add(kCorrect), Verdict::ok},
      {"NaN", vector_add("C[i] = (i == 1234) ? __int_as_float(0x7fc00000) : A[i] + B[i];"), Verdict::nan_or_inf},
      {"writes an input", vector_add("C[i] = A[i] + B[i]; if (i == 77) ((float*)A)[i] = 0.0f;"),
       Verdict::input_modified},
      {"leaves an element unwritten", vector_add("if (i != 4095) C[i] = A[i] + B[i];"), Verdict::unwritten_output},
      {"writes only on its first call",
       vector_add("if (!done) C[i] = A[i] + B[i];",
                  "__device__ int done = 0;\n"
                  "extern \"C\" __global__ void mark_done() { done = 1; }\n",
                  {mark}),
       Verdict::persistent_state},
      {"wrong result", vector_add("C[i] = A[i] - B[i];"), Verdict::wrong_output},
      {"traps", vector_add("if (i == 5) __trap(); C[i] = A[i] + B[i];"), Verdict::launch_error},
      {"does not compile", vector_add("C[i] = A[i] + undefined_thing;"), Verdict::compile_error},
      {"too many threads",
       [] {
         KernelBundle b = vector_add(kCorrect);
         b.launches[0].block = {4096, 1, 1};
         return b;
       }(),
       Verdict::launch_error},
      {"correct at the end", vector_add(kCorrect), Verdict::ok},
  };
  Worker w(0);
  for (const auto& f : faults) {
    EvalRequest req = request(f.candidate);
    req.watchdog_s = 3;
    EvalResult r = w.evaluate(req);
    std::cout << f.name << ": " << verdict_name(r.verdict) << ": " << r.message << "\n";
    EXPECT_EQ(verdict_name(r.verdict), verdict_name(f.expected)) << f.name << ": " << r.message;
    if (std::string(f.name) == "writes only on its first call") {
      EXPECT_EQ(r.failed_trial, -1);  // refused from its compiled code, before any trial runs
    }
  }
  EXPECT_GE(w.processes_started(), 3);  // fresh workers after the fault, the hang and the trap
}

TEST_F(GpuRuntimeTest, ConstantReferenceIsRejectedAsATest) {
  KernelBundle zero = vector_add("C[i] = 0.0f * A[i];");
  EvalRequest req = request(zero);
  req.reference.source =
      "extern \"C\" __global__ void ref(const float* A, const float* B, double* C) {\n"
      "  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < " +
      std::to_string(kN) + "LL) C[i] = 0.0;\n}\n";
  Worker w(0);
  EvalResult r = w.evaluate(req);
  EXPECT_EQ(r.verdict, Verdict::reference_degenerate) << r.message;
}

TEST_F(GpuRuntimeTest, TimeUnderTheFloorIsRejected) {
  EvalRequest req = request(vector_add(kCorrect), true);
  req.floor.bytes *= 100;  // claims the kernel must move 100x the data it does
  Worker w(0);
  EvalResult r = w.evaluate(req);
  EXPECT_EQ(r.verdict, Verdict::under_floor) << r.message;
  EXPECT_GT(r.pct_of_floor, 100.0);
}

// With CUSCHED_GPU_LOCK set, an evaluation in the worker process starts its launches only
// once this process releases the device's lock file, and says how long it waited.
TEST_F(GpuRuntimeTest, AnEvaluationWaitsForTheGpuLock) {
  const std::string base =
      (std::filesystem::temp_directory_path() / ("cusched-eval-lock-" + std::to_string(::getpid()))).string();
  ::setenv("CUSCHED_GPU_LOCK", base.c_str(), 1);
  // Not inherited by the worker: a copy of the descriptor there would hold the lock for it.
  int fd = ::open((base + ".0").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  std::thread release([fd] {
    std::this_thread::sleep_for(std::chrono::milliseconds(3000));
    ::close(fd);
  });
  EvalResult r = Worker(0).evaluate(request(vector_add(kCorrect), true));
  release.join();
  ::unsetenv("CUSCHED_GPU_LOCK");
  EXPECT_EQ(r.verdict, Verdict::ok) << r.message;
  EXPECT_GE(r.phase_ms.gpu_wait, 500.0);
  EvalResult free = Worker(0).evaluate(request(vector_add(kCorrect)));
  EXPECT_EQ(free.verdict, Verdict::ok) << free.message;
  EXPECT_EQ(free.phase_ms.gpu_wait, 0.0);
}

}  // namespace
}  // namespace cusched::runtime
