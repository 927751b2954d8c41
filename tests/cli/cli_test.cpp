// `cusched validate`, `schema`, `primitives` and `problems`, run as a user runs them.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include "cusched_run.h"

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

struct CommandResult {
  int exit_code = -1;
  std::string out, err;
};

using cli_test::read_file;

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cusched_cli_test_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& text) {
    fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p;
  }

  // Runs `cusched args` with `input` on stdin.
  CommandResult run(const std::string& args, const std::string& input = "") {
    fs::path in = write("stdin.txt", input), out = dir_ / "stdout.txt", err = dir_ / "stderr.txt";
    std::string cmd = std::string("'") + CUSCHED_BINARY + "' " + args + " < '" + in.string() + "' > '" + out.string() +
                      "' 2> '" + err.string() + "'";
    int status = std::system(cmd.c_str());
    CommandResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_file(out);
    r.err = read_file(err);
    return r;
  }

  // Runs validate on `schedule` (JSON text) and expects a structured error.
  json expect_error(const std::string& problem, const std::string& schedule, const std::string& extra = "") {
    fs::path f = write("schedule.json", schedule);
    CommandResult r = run("validate --problem " + problem + " --schedule '" + f.string() + "' " + extra);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    json j = json::parse(r.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << "stdout is not JSON: " << r.out;
    if (j.is_discarded()) return {};
    EXPECT_EQ(j["ok"], false);
    const json& e = j["error"];
    EXPECT_TRUE(e.contains("code") && e.contains("message") && e.contains("hint")) << e.dump();
    return e;
  }

  fs::path dir_;
};

const char* kMatmulSteps = R"([
  {"op": "split", "stage": "C", "loop": "i", "factor": 16},
  {"op": "split", "stage": "C", "loop": "j", "factor": 16, "outer": "bj", "inner": "tj"},
  {"op": "reorder", "loops": ["io", "bj", "ii", "tj"]},
  {"op": "bind", "loop": "io", "axis": "blockIdx.y"},
  {"op": "bind", "loop": "bj", "axis": "blockIdx.x"},
  {"op": "bind", "loop": "ii", "axis": "threadIdx.y"},
  {"op": "bind", "loop": "tj", "axis": "threadIdx.x"}])";

TEST_F(Cli, ValidatePrintsTheNormalisedSteps) {
  fs::path f = write("good.json", kMatmulSteps);
  CommandResult r = run("validate --problem matmul --schedule '" + f.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["hash"].get<std::string>().size(), 16u);
  const json& steps = j["steps"];
  ASSERT_EQ(steps.size(), 7u);
  EXPECT_EQ(steps[0]["outer"], "io");  // derived names are filled in
  EXPECT_EQ(steps[0]["inner"], "ii");
  EXPECT_EQ(steps[2]["stage"], "C");  // the resolved stage is recorded
  EXPECT_EQ(steps[6]["axis"], "threadIdx.x");
}

TEST_F(Cli, ValidateReadsStdin) {
  CommandResult file = run("validate --problem matmul --schedule '" + write("good.json", kMatmulSteps).string() + "'");
  CommandResult in = run("validate --problem matmul --schedule -", kMatmulSteps);
  ASSERT_EQ(in.exit_code, 0) << in.out << in.err;
  EXPECT_EQ(json::parse(in.out), json::parse(file.out));
}

TEST_F(Cli, ValidateTextFormat) {
  CommandResult r = run("validate --problem matmul --schedule - --format text", kMatmulSteps);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "split stage=C loop=i factor=16 outer=io inner=ii");
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 7);
}

TEST_F(Cli, BuiltInSchedulesOfEveryProblem) {
  CommandResult list = run("problems --json");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  json problems = json::parse(list.out);
  ASSERT_GE(problems.size(), 3u);
  for (const auto& p : problems) {
    std::string name = p["name"];
    for (const char* which : {"baseline", "best"}) {
      for (const char* size : {"small", "bench"}) {
        CommandResult r = run("validate --problem " + name + " --schedule " + which + " --size " + size);
        EXPECT_EQ(r.exit_code, 0) << name << " " << which << " " << size << ": " << r.out << r.err;
        EXPECT_EQ(json::parse(r.out)["ok"], true);
      }
    }
  }
}

TEST_F(Cli, EachBadScheduleIsAStructuredError) {
  struct Case {
    const char* problem;
    const char* steps;
    int step;
    const char* op;
    const char* code;
  };
  const Case cases[] = {
      {"matmul", R"([{"op": "parallelize", "loop": "i"}])", 0, "parallelize", "unknown-op"},
      {"matmul", R"([{"op": "split", "stage": "C", "loop": "i"}])", 0, "split", "missing-argument"},
      {"matmul", R"([{"op": "split", "stage": "C", "loop": "i", "factor": "16"}])", 0, "split", "mistyped-argument"},
      {"matmul", R"([{"op": "split", "stage": "D", "loop": "i", "factor": 16}])", 0, "split", "unknown-stage"},
      {"matmul", R"([{"op": "split", "stage": "C", "loop": "q", "factor": 16}])", 0, "split", "unknown-loop"},
      {"matmul", R"([{"op": "split", "stage": "C", "loop": "i", "factor": 0}])", 0, "split", "bad-factor"},
      {"matmul",
       R"([{"op": "split", "stage": "C", "loop": "i", "factor": 4}, {"op": "split", "stage": "C", "loop": "j", "factor": 4, "outer": "io"}])",
       1, "split", "loop-used-twice"},
      {"matmul", R"([{"op": "bind", "stage": "C", "loop": "k", "axis": "blockIdx.x"}])", 0, "bind",
       "reduction-loop-on-block-axis"},
      {"softmax", R"([{"op": "compute_at", "stage": "S", "consumer": "M", "loop": "i"}])", 0, "compute_at",
       "illegal-compute-at"},
      {"matmul",
       R"([{"op": "split", "stage": "C", "loop": "j", "factor": 4}, {"op": "vectorize", "stage": "C", "loop": "jo"}])",
       1, "vectorize", "vectorize-not-innermost"},
      {"matmul",
       R"([{"op": "reorder", "stage": "C", "loops": ["i", "k", "j"]}, {"op": "split", "stage": "C", "loop": "j", "factor": 3},
                    {"op": "vectorize", "stage": "C", "loop": "ji"}])",
       2, "vectorize", "vectorize-bad-extent"},
      {"matmul", R"([{"op": "tile", "stage": "C", "x": "i", "y": "j", "x_factor": 16, "y_factor": 4},
                    {"op": "tensor_core", "stage": "C", "shape": "m16n8k8", "precision": "tf32"}])",
       1, "tensor_core", "tensor-core-shape-does-not-tile"},
      {"matmul", R"("split")", -1, "", "not-a-schedule"},
      {"matmul", R"([7])", 0, "", "step-not-object"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.steps);
    json e = expect_error(c.problem, c.steps);
    EXPECT_EQ(e["code"], c.code);
    if (c.step >= 0) {
      EXPECT_EQ(e["step"], c.step);
    } else {
      EXPECT_FALSE(e.contains("step"));
    }
    if (*c.op) {
      EXPECT_EQ(e["op"], c.op);
    }
  }
}

TEST_F(Cli, StrictToleranceForbidsLowerPrecision) {
  const char* steps = R"([{"op": "precision", "stage": "C", "operands": "tf32"}])";
  CommandResult ok = run("validate --problem matmul --schedule -", steps);
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
  json e = expect_error("matmul", steps, "--strict");
  EXPECT_EQ(e["code"], "precision-exceeds-tolerance");
  EXPECT_EQ(e["step"], 0);
  EXPECT_EQ(e["op"], "precision");
}

TEST_F(Cli, SizeChangesTheExtentsChecked) {
  // K = 40 at the small size is not a multiple of 16; K = 4096 at the bench size is.
  const char* steps =
      R"([{"op": "split", "stage": "C", "loop": "i", "factor": 64}, {"op": "split", "stage": "C", "loop": "j", "factor": 32},
                          {"op": "tensor_core", "stage": "C", "shape": "m16n8k16", "precision": "bf16"}])";
  // At the bench size the shape tiles; lowering refuses the unsplit reduction for another reason.
  json bench = expect_error("matmul", steps, "--size bench");
  EXPECT_NE(bench["code"], "tensor-core-shape-does-not-tile");
  json e = expect_error("matmul", steps, "--size small");
  EXPECT_EQ(e["code"], "tensor-core-shape-does-not-tile");
}

TEST_F(Cli, UnknownProblemUnreadableFileAndBadJson) {
  CommandResult r = run("validate --problem conv9d --schedule baseline");
  EXPECT_EQ(r.exit_code, 1);
  json j = json::parse(r.out);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["error"]["code"], "unknown-problem");
  EXPECT_FALSE(j["error"]["hint"].get<std::string>().empty());

  CommandResult missing = run("validate --problem matmul --schedule '" + (dir_ / "no_such.json").string() + "'");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(json::parse(missing.out)["error"]["code"], "bad-schedule-source");

  CommandResult bad = run("validate --problem matmul --schedule -", "[{\"op\": \"split\",");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(json::parse(bad.out)["error"]["code"], "bad-json");

  CommandResult empty = run("validate --problem matmul --schedule -", "");
  EXPECT_EQ(empty.exit_code, 1);
  EXPECT_EQ(json::parse(empty.out)["error"]["code"], "bad-json");
}

TEST_F(Cli, BadFlagsAreUsageErrors) {
  EXPECT_EQ(run("validate --schedule baseline").exit_code, 2);
  EXPECT_EQ(run("no-such-command").exit_code, 2);
}

TEST_F(Cli, AnUnknownSizeIsAStructuredError) {
  // Size tables have any names (problem files name their own), so the problem answers.
  CommandResult r = run("validate --problem matmul --schedule baseline --size huge");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(json::parse(r.out)["error"]["code"], "unknown-size");
}

TEST_F(Cli, SchemaListsEveryPrimitive) {
  CommandResult r = run("schema");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json schema = json::parse(r.out);
  EXPECT_EQ(schema["type"], "array");
  std::set<std::string> ops;
  for (const auto& alt : schema["items"]["anyOf"]) ops.insert(alt["properties"]["op"]["const"].get<std::string>());
  for (const char* op : {"split",
                         "tile",
                         "reorder",
                         "fuse",
                         "reverse",
                         "bind",
                         "unroll",
                         "vectorize",
                         "compute_at",
                         "compute_inline",
                         "compute_root",
                         "cache_read",
                         "cache_write",
                         "rfactor",
                         "cross_thread_reduce",
                         "pipeline",
                         "tensor_core",
                         "precision",
                         "launch_bounds",
                         "l2_hint",
                         "cross_thread_scan",
                         "fuse_epilogue",
                         "block_raster",
                         "relayout",
                         "presum",
                         "sum_with_variance"})
    EXPECT_TRUE(ops.count(op)) << op;
  EXPECT_EQ(ops.size(), 26u);
}

TEST_F(Cli, PrimitivesPrintsTheCheckedInReference) {
  CommandResult r = run("primitives");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out == read_file(std::string(CUSCHED_SOURCE_DIR) + "/docs/primitives.md"))
      << "docs/primitives.md is stale; run `cusched primitives > docs/primitives.md`";
}

// `cusched check` audits a hand-written kernel against the problem's contract before
// anything runs: a kernel that keeps state in a mutable device global is rejected.
TEST_F(Cli, CheckRejectsAKernelTheAuditFlags) {
  fs::path k = write("relu_bad.cu", R"(
__device__ int calls;
extern "C" __global__ void relu_kernel(const float* __restrict__ X, float* __restrict__ Y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  calls += 1;
  if (i < 2 * 3 * 5 * 7) Y[i] = X[i] > 0.f ? X[i] : 0.f;
}
// cusched-launch size=small grid=1,1,1 block=256,1,1
)");
  if (run("audit --docs").exit_code != 0) GTEST_SKIP() << "the audit stage is not built in this configuration";
  CommandResult r = run("check --problem relu --size small '" + k.string() + "'");
  json j = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out << r.err;
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(j["verdict"], "audit_rejected") << r.out;
  bool global_rule = false;
  for (const auto& f : j["audit_findings"]) global_rule |= f["rule"] == "mutable-device-global";
  EXPECT_TRUE(global_rule) << r.out;
}

// A clean kernel passes the audit; without a GPU the command says so in one line and
// exits 3; with one it verifies and times the kernel.
TEST_F(Cli, CheckAcceptsACleanKernelAndNeedsAGpuToRunIt) {
  fs::path k = write("relu_ok.cu", R"(
extern "C" __global__ void relu_kernel(const float* __restrict__ X, float* __restrict__ Y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 2 * 3 * 5 * 7) Y[i] = X[i] > 0.f ? X[i] : 0.f;
}
// cusched-launch size=small grid=1,1,1 block=256,1,1
)");
  CommandResult r = run("check --problem relu --size small '" + k.string() + "'");
  if (r.exit_code == 3) {
    EXPECT_NE(r.err.find("No CUDA driver"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  } else {
    json j = json::parse(r.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << r.out << r.err;
    EXPECT_EQ(j["verdict"], "ok") << r.out;
    EXPECT_EQ(r.exit_code, 0);
  }
}

// A launch configuration is required, and its absence is a structured error.
TEST_F(Cli, CheckWithoutALaunchConfigurationIsAStructuredError) {
  fs::path k = write("k.cu", "extern \"C\" __global__ void relu_kernel(const float* X, float* Y) {}\n");
  CommandResult r = run("check --problem relu --size small --no-audit '" + k.string() + "'");
  EXPECT_EQ(r.exit_code, 1);
  json j = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["error"]["code"], "missing-launch");
}

// `run --backend interp` verifies a schedule without a GPU and prints no GPU time.
TEST_F(Cli, RunOnTheInterpreterVerifiesAndMeasuresNoGpuTime) {
  CommandResult r = run("run --problem softmax --schedule best --backend interp --no-audit --json");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["verdict"], "ok");
  EXPECT_EQ(j["interp"]["backend"], "interp");
  EXPECT_FALSE(j.contains("gpu"));
  EXPECT_GE(j["interp"]["trials"].get<int>(), 3);
}

// A stage with fast math verifies on the interpreter (which evaluates the exact
// operations) and the outcome says so; without it the outcome says exact.
TEST_F(Cli, RunReportsFastMath) {
  fs::path fast = write("fast.json", R"([{"op": "split", "stage": "Y", "loop": "j", "factor": 64},
    {"op": "bind", "stage": "Y", "loop": "i", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "Y", "loop": "jo", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "Y", "loop": "ji", "axis": "threadIdx.x"},
    {"op": "precision", "stage": "Y", "operands": "f32", "math": "fast"}])");
  CommandResult r = run("run --problem softmax --schedule '" + fast.string() + "' --backend interp --no-audit --json");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["verdict"], "ok");
  EXPECT_EQ(j["math"], "fast");
  CommandResult e = run("run --problem softmax --schedule baseline --backend interp --no-audit --json");
  ASSERT_EQ(e.exit_code, 0) << e.out << e.err;
  EXPECT_EQ(json::parse(e.out)["math"], "exact");
  CommandResult c = run("lower --problem softmax --schedule '" + fast.string() + "' --emit cuda");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_NE(c.out.find("__expf("), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("__fdividef("), std::string::npos) << c.out;
}

// A copy larger than a block's shared memory (matmul's 128 rows of A, 4096 floats each,
// staged at the block loop: 2 MiB) is refused by `lower --emit cuda` with its code, in
// text and JSON, while a tile that fits lowers.
TEST_F(Cli, LowerRefusesSharedMemoryBeyondTheBlockLimit) {
  const std::string steps = R"([
    {"op": "tile", "stage": "C", "x": "i", "y": "j", "x_factor": 128, "y_factor": 128},
    {"op": "bind", "stage": "C", "loop": "io", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "C", "loop": "jo", "axis": "blockIdx.x"},
    {"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "jo", "pad": 0}])";
  const fs::path f = write("big.json", steps);
  CommandResult text = run("lower --problem matmul --schedule '" + f.string() + "' --size bench --emit cuda");
  EXPECT_NE(text.exit_code, 0);
  EXPECT_NE((text.out + text.err).find("shared-memory-too-large"), std::string::npos) << text.out << text.err;
  EXPECT_EQ(text.out.find("__global__"), std::string::npos) << "no source is printed for a kernel that cannot launch";
  CommandResult j = run("lower --problem matmul --schedule '" + f.string() + "' --size bench --emit cuda --json");
  const json e = json::parse(j.out);
  EXPECT_EQ(e["ok"], false);
  EXPECT_EQ(e["error"]["code"], "shared-memory-too-large");
  EXPECT_NE(e["error"]["message"].get<std::string>().find("2097152 bytes"), std::string::npos) << e.dump();
  // At the small size (M 64, K 40) the same copy is 10 KiB and lowers.
  CommandResult small = run("lower --problem matmul --schedule '" + f.string() + "' --size small --emit cuda");
  EXPECT_EQ(small.exit_code, 0) << small.err;
}

// `lower` prints the IR (schedule loop names, scopes, GPU axes, barriers) and the CUDA
// source with its launch plan.
TEST_F(Cli, LowerPrintsIrWithScheduleLoopNamesAndGpuAxes) {
  CommandResult r = run("lower --problem softmax --schedule best --size small --emit ir");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Y_jt"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[threadIdx.x]"), std::string::npos);
  EXPECT_NE(r.out.find("barrier"), std::string::npos);
  EXPECT_NE(r.out.find("in shared"), std::string::npos);
  CommandResult c = run("lower --problem softmax --schedule best --emit cuda");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_NE(c.out.find("extern \"C\" __global__"), std::string::npos);
  EXPECT_NE(c.out.find("float4"), std::string::npos);
  EXPECT_NE(c.out.find("// launch plan"), std::string::npos);
}

// A pipeline on the tensor memory accelerator: the launch plan of `lower --emit cuda` names
// each tensor map with its buffer, box and swizzle, and `--emit bundle` carries them.
TEST_F(Cli, LowerNamesTheTensorMapsOfTheLaunchPlan) {
  fs::path s = write("tma.json", R"([
    {"op": "split", "stage": "Y", "loop": "rc", "factor": 2, "outer": "rco", "inner": "rci"},
    {"op": "reorder", "stage": "Y", "loops": ["n", "o", "rco", "oh", "ow", "rci", "kh", "kw"]},
    {"op": "bind", "stage": "Y", "loop": "n", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "Y", "loop": "oh", "axis": "threadIdx.y"},
    {"op": "bind", "stage": "Y", "loop": "ow", "axis": "threadIdx.x"},
    {"op": "cache_read", "stage": "Y", "source": "R", "scope": "shared", "at": "rco"},
    {"op": "pipeline", "stage": "Y", "loop": "rco", "depth": 2, "engine": "tensor"}])");
  const std::string problem = std::string(CUSCHED_SOURCE_DIR) + "/tests/legality/problems/padded_relu_conv.json";
  CommandResult c = run("lower -p '" + problem + "' --size small -s '" + s.string() + "' --emit cuda");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  // The region of two channels, 8 + 2 rows and 16 + 2 columns from column -1, read from the
  // 16-byte aligned column -4 as 24 columns.
  EXPECT_NE(c.out.find("R_shared_map = tensor map of R, box 1x2x10x24)"), std::string::npos) << c.out;
  CommandResult b = run("lower -p '" + problem + "' --size small -s '" + s.string() + "' --emit bundle --json");
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const auto maps = nlohmann::json::parse(b.out)["bundle"]["launches"].back()["tensor_maps"];
  ASSERT_EQ(maps.size(), 1u) << b.out;
  EXPECT_EQ(maps[0]["box"], nlohmann::json::parse("[1, 2, 10, 24]"));
}

// A problem file with only a small size runs: the cost model ranks at its default size.
TEST_F(Cli, RunVerifiesAProblemFileWithoutABenchSize) {
  const std::string problem = std::string(CUSCHED_SOURCE_DIR) + "/tests/legality/problems/padded_relu_conv.json";
  CommandResult r = run("run -p '" + problem + "' -s baseline --backend interp --json");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.value("verdict", ""), "ok") << r.out;
  EXPECT_GT(j.value("cost_estimate_ms", 0.0), 0.0) << r.out;
}

// `lower --emit ir --after` prints the IR between lowering's passes: `help` names the
// passes (each a function in codegen/passes/NAME.cpp), `all` prints the program after
// each of them in order, the last the same as the plain IR, and a name prints that one.
TEST_F(Cli, LowerDumpsIrAfterEachPass) {
  CommandResult h = run("lower --problem softmax --after help");
  ASSERT_EQ(h.exit_code, 0) << h.err;
  std::vector<std::string> passes;
  std::istringstream lines(h.out);
  for (std::string line; std::getline(lines, line);) passes.push_back(line);
  ASSERT_GE(passes.size(), 3u) << h.out;
  EXPECT_EQ(passes.front(), "plan_global_buffers");
  EXPECT_NE(std::find(passes.begin(), passes.end(), "build_kernels"), passes.end());
  for (const auto& pass : passes)
    EXPECT_TRUE(fs::exists(fs::path(CUSCHED_SOURCE_DIR) / "codegen" / "passes" / (pass + ".cpp"))) << pass;

  CommandResult all = run("lower --problem softmax --schedule best --size small --emit ir --after all");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  std::vector<std::string> sections;  // the IR printed after each pass, in order
  size_t at = 0;
  for (const auto& pass : passes) {
    const std::string header = "# after " + pass + "\n";
    size_t found = all.out.find(header, at);
    ASSERT_NE(found, std::string::npos) << "no IR after " << pass;
    if (!sections.empty()) sections.back() = all.out.substr(at, found - at);
    at = found + header.size();
    sections.push_back("");
  }
  sections.back() = all.out.substr(at);
  // Before build_kernels there are buffers but no kernel; assign_launch_dims replaces
  // the block's thread-count placeholder by the block's size.
  EXPECT_NE(sections[0].find("buffer "), std::string::npos);
  EXPECT_EQ(sections[0].find("kernel "), std::string::npos);
  EXPECT_NE(sections[1].find("kernel "), std::string::npos);
  const size_t launch = std::find(passes.begin(), passes.end(), "assign_launch_dims") - passes.begin();
  ASSERT_LT(launch, passes.size());
  EXPECT_NE(sections[launch - 1].find("__nthreads"), std::string::npos);
  EXPECT_EQ(sections[launch].find("__nthreads"), std::string::npos);
  CommandResult plain = run("lower --problem softmax --schedule best --size small --emit ir");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(sections.back(), plain.out + "\n");

  CommandResult one = run("lower --problem softmax --schedule best --size small --emit ir --after build_kernels");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(one.out, "# after build_kernels\n" + sections[1]);

  CommandResult unknown = run("lower --problem softmax --emit ir --after build_kernel");
  EXPECT_EQ(unknown.exit_code, 1);
  json e = json::parse(unknown.out)["error"];
  EXPECT_EQ(e["code"], "unknown-lowering-pass");
  EXPECT_NE(e["hint"].get<std::string>().find("build_kernels"), std::string::npos) << e.dump();
  CommandResult cuda = run("lower --problem softmax --emit cuda --after all");
  EXPECT_EQ(cuda.exit_code, 1);
  EXPECT_EQ(json::parse(cuda.out)["error"]["code"], "after-needs-ir");
}

// A process that dies of a fatal signal (here SIGSEGV sent once `validate` waits for its
// schedule on stdin, a FIFO the script holds open) says so on stderr with its call stack,
// printed from the handler's own stack, and still ends by that signal.
TEST_F(Cli, AFatalSignalPrintsTheCallStackAndEndsByTheSignal) {
  const fs::path err = dir_ / "stderr.txt", rc = dir_ / "rc.txt", fifo = dir_ / "stdin";
  const fs::path script = write("crash.sh", R"(mkfifo "$FIFO"
"$BIN" validate -p matmul -s - < "$FIFO" 2> "$ERR" &
p=$!
exec 3> "$FIFO"
for i in $(seq 200); do grep -q pipe /proc/$p/wchan 2>/dev/null && break; sleep 0.1; done
kill -SEGV $p
wait $p
echo $? > "$RC"
exec 3>&-
)");
  const std::string env = "BIN='" + std::string(CUSCHED_BINARY) + "' FIFO='" + fifo.string() + "' ERR='" +
                          err.string() + "' RC='" + rc.string() + "' ";
  ASSERT_EQ(std::system((env + "sh '" + script.string() + "'").c_str()), 0);
  EXPECT_EQ(read_file(rc), "139\n") << "128 + SIGSEGV: the default action after the report";
  const std::string text = read_file(err);
  EXPECT_NE(text.find("cusched: fatal signal"), std::string::npos) << text;
  EXPECT_NE(text.find("call stack"), std::string::npos) << text;
}

}  // namespace
