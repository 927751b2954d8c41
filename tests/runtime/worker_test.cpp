// The parent side of the worker protocol, driven by stand-in worker programs,
// plus the real cusched-worker on a machine without a GPU.
#include "runtime/worker.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/cuda_driver.h"

namespace cusched::runtime {
namespace {

class WorkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("cusched-worker-test-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // A stand-in worker: a shell script whose protocol socket is fd 3.
  std::string script(const std::string& name, const std::string& body) {
    std::string path = (dir_ / name).string();
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    chmod(path.c_str(), 0755);
    return path;
  }

  EvalRequest request() {
    EvalRequest r;
    r.candidate.problem = "relu";
    r.candidate.precision = Precision::f32;
    r.candidate.source = "extern \"C\" __global__ void k(float* C) { C[threadIdx.x] = 1.0f; }";
    r.candidate.buffers.push_back({"C", DType::f32, {32}, BufferRole::Output, false});
    r.candidate.launches.push_back({"k", {1, 1, 1}, {32, 1, 1}, 0, {"C"}});
    r.reference = r.candidate;
    r.watchdog_s = 0.5;
    return r;
  }

  std::filesystem::path dir_;
};

TEST_F(WorkerTest, WorkerThatExitsIsCrashedAndTheNextRequestGetsAFreshOne) {
  Worker w(0, script("exit.sh", "exit 3"));
  EvalResult r = w.evaluate(request());
  EXPECT_EQ(r.verdict, Verdict::crashed);
  EXPECT_NE(r.message.find("exited with status 3"), std::string::npos) << r.message;
  EXPECT_EQ(r.precision, Precision::f32);
  w.evaluate(request());
  // The second request starts a fresh process; when that one exits before the request
  // is written, the worker tries once more with another (so 2 or 3, never 1).
  EXPECT_GE(w.processes_started(), 2);
  EXPECT_LE(w.processes_started(), 3);
}

TEST_F(WorkerTest, WorkerKilledBySignalIsCrashed) {
  Worker w(0, script("segv.sh", "kill -SEGV $$"));
  EvalResult r = w.evaluate(request());
  EXPECT_EQ(r.verdict, Verdict::crashed);
  EXPECT_NE(r.message.find("signal 11"), std::string::npos) << r.message;
}

TEST_F(WorkerTest, SilentWorkerIsKilledByTheWatchdog) {
  Worker w(0, script("hang.sh", "exec sleep 30"));
  w.backstop_s = 0.5;
  auto start = std::chrono::steady_clock::now();
  EvalResult r = w.evaluate(request());
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.verdict, Verdict::timeout);
  EXPECT_LT(took, 10.0);
  EXPECT_GE(took, 0.9);
}

TEST_F(WorkerTest, HeartbeatsThenResultAreRead) {
  // Reads the request line, answers with two heartbeats and a result.
  std::string body =
      "read line <&3\n"
      "printf '%s\\n' '{\"heartbeat\": \"compiled\"}' '{\"heartbeat\": \"trial 0\"}' "
      "'{\"result\": {\"verdict\": \"wrong_output\", \"message\": \"off by one\", \"trials\": 1}}' >&3\n"
      "read line <&3";
  Worker w(0, script("answer.sh", body));
  EvalResult r = w.evaluate(request());
  EXPECT_EQ(r.verdict, Verdict::wrong_output);
  EXPECT_EQ(r.message, "off by one");
  EXPECT_EQ(r.trials, 1);
}

TEST_F(WorkerTest, GarbageFromTheWorkerIsAnInternalError) {
  Worker w(0, script("garbage.sh", "read line <&3\necho 'not json' >&3\nsleep 5"));
  EvalResult r = w.evaluate(request());
  EXPECT_EQ(r.verdict, Verdict::internal_error);
}

TEST_F(WorkerTest, RealWorkerWithoutAGpuSaysNoGpu) {
  if (!driver_available()) GTEST_SKIP() << "A CUDA driver is present on this machine.";
  Worker w(0);  // the built cusched-worker
  EvalRequest req = request();
  req.watchdog_s = 20;
  EvalResult r = w.evaluate(req);
  EXPECT_EQ(r.verdict, Verdict::no_gpu);
  EXPECT_EQ(r.message, kNoDriverMessage);
  // no_gpu does not break a context: the same process answers the next request.
  w.evaluate(req);
  EXPECT_EQ(w.processes_started(), 1);
}

TEST_F(WorkerTest, PoolReturnsResultsInRequestOrder) {
  WorkerPool pool({0, 1}, script("exit.sh", "exit 5"));
  std::vector<EvalRequest> reqs(3, request());
  auto results = pool.evaluate_all(reqs);
  ASSERT_EQ(results.size(), 3u);
  for (const auto& r : results) EXPECT_EQ(r.verdict, Verdict::crashed);
}

TEST(WorkerBinary, EnvironmentOverrideMustBeExecutable) {
  setenv("CUSCHED_WORKER", "/nonexistent/cusched-worker", 1);
  try {
    find_worker_binary();
    ADD_FAILURE() << "a missing worker was accepted";
  } catch (const UserError& e) {
    EXPECT_EQ(e.error().code, "worker-not-found");
  }
  unsetenv("CUSCHED_WORKER");
  EXPECT_FALSE(find_worker_binary().empty());
}

}  // namespace
}  // namespace cusched::runtime
