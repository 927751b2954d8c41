// The KernelBench problem files (problems/kernelbench/level*/<KernelBench file stem>.json):
// each parses, names the KernelBench module it reproduces (its level folder and file stem,
// a 40-hex commit, every input placed once), and verifies in the CPU interpreter against
// the float64 reference at the small size with its baseline schedule and with a few random
// legal schedules (a count and a time bound per file); the baseline lowers at the bench size
// to grids CUDA can launch.
#include <chrono>
#include <filesystem>
#include <random>
#include <regex>

#include <gtest/gtest.h>

#include "codegen/bundle.h"
#include "codegen/lower.h"
#include "dsl/random_schedule.h"
#include "dsl/schedule.h"
#include "problems/automatic_baseline.h"
#include "problems/problem_file.h"
#include "runtime/compiled_code_scan.h"
#include "runtime/interp_verification.h"
#include "runtime/nvrtc_compiler.h"
#include "tests/kernelbench/file_test_name.h"
#include "tests/kernelbench/problem_files.h"

namespace cusched {
namespace {

namespace fs = std::filesystem;

const fs::path kRoot = kernelbench_tests::problem_root();
using kernelbench_tests::problem_files;

class KernelBenchFile : public ::testing::TestWithParam<std::string> {
 protected:
  Problem load() const { return load_problem_file((kRoot / GetParam()).string()); }
};

TEST_P(KernelBenchFile, NamesItsKernelBenchModule) {
  const Problem p = load();
  ASSERT_TRUE(p.source.has_value()) << "no source key";
  const ProblemSource& s = *p.source;
  EXPECT_EQ(s.benchmark, "KernelBench");
  const fs::path rel(GetParam());
  const std::string level = rel.parent_path().string();  // "level1"
  ASSERT_TRUE(std::regex_match(level, std::regex("level[1-4]"))) << "a file outside the level folders: " << rel;
  EXPECT_EQ(p.level, level.substr(5));
  // The KernelBench path: level<N>/<number>_<name>.py, the same stem as this file.
  EXPECT_TRUE(std::regex_match(s.file, std::regex(R"(level[1-4]/[0-9]+_[A-Za-z0-9_]+\.py)"))) << s.file;
  EXPECT_EQ(s.file, level + "/" + rel.stem().string() + ".py");
  EXPECT_TRUE(std::regex_match(s.commit, std::regex("[0-9a-f]{40}"))) << s.commit;
  EXPECT_TRUE(s.init_args.is_null() || s.init_args.is_array());
  EXPECT_FALSE(s.forward_args.empty()) << "forward() takes at least one argument";
  EXPECT_TRUE(p.sizes.count("bench")) << "no bench size (KernelBench's shapes)";
  EXPECT_EQ(p.default_size, "bench");
  // The file is in the form the writer gives back (no key lost, none added).
  EXPECT_EQ(problem_to_json(problem_from_json(problem_to_json(p), "again")), problem_to_json(p));
}

TEST_P(KernelBenchFile, SmallSizeIsSmall) {
  const Problem p = load();
  const SizeBindings& small = p.size("small");
  int64_t outputs = 0;
  for (const auto& name : p.pipeline.outputs()) {
    const FuncDef* f = p.pipeline.find_stage(name);
    int64_t n = 1;
    for (const auto& e : f->extents) n *= eval_int(e, small);
    outputs += n;
  }
  EXPECT_LE(outputs, 20000) << "the small size is for the CPU interpreter";
}

TEST_P(KernelBenchFile, BaselineVerifiesInTheInterpreter) {
  const Problem p = load();
  const nlohmann::json steps = baseline_schedule_of(p);
  ValidationResult v = validate_schedule(p.context("small"), steps);
  ASSERT_TRUE(v.ok) << v.error.code << ": " << v.error.message;
  auto r = runtime::verify_with_interpreter(p, Schedule::from_json(p.context("small"), steps), "small", 1, 2);
  EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << r.message << " " << r.error.code << ": " << r.error.message;
}

// The baseline's compiled code passes the scans every candidate's PTX gets before it runs
// (runtime/compiled_code_scan.h): no precision narrower than declared, no state kept
// between launches. Precise math functions read module-scope tables, which must not count.
TEST_P(KernelBenchFile, BaselineCompiledCodePassesTheScans) {
  const Problem p = load();
  KernelBundle b = make_bundle(lower(Schedule::from_json(p.context("small"), baseline_schedule_of(p)), p.name));
  runtime::CompileOptions o;
  o.arch = "sm_90a";
  runtime::CompiledModule m = runtime::compile_bundle(b, o);
  ASSERT_FALSE(m.ptx.empty()) << m.log;
  auto rejected = runtime::compiled_code_rejection(b, m.ptx);
  EXPECT_FALSE(rejected.has_value()) << rejected->message;
}

TEST_P(KernelBenchFile, BaselineLowersAtTheBenchSize) {
  const Problem p = load();
  const nlohmann::json steps = baseline_schedule_of(p);
  ValidationResult v = validate_schedule(p.context("bench"), steps);
  ASSERT_TRUE(v.ok) << v.error.code << ": " << v.error.message;
  try {
    LoweredProgram program = lower(Schedule::from_json(p.context("bench"), steps), p.name);
    EXPECT_FALSE(program.kernels.empty());
    // CUDA's grid limits: 2^31 - 1 blocks along x, 65535 along y and z.
    for (const auto& k : program.kernels) {
      EXPECT_LE(k.grid[0], int64_t{2147483647}) << k.name << ": too many blocks along x to launch";
      EXPECT_LE(k.grid[1], 65535) << k.name;
      EXPECT_LE(k.grid[2], 65535) << k.name;
    }
  } catch (const UserError& e) {
    FAIL() << e.error().code << ": " << e.error().message;
  }
}

TEST_P(KernelBenchFile, RandomLegalSchedulesVerify) {
  const Problem p = load();
  const ScheduleContext ctx = p.context("small");
  std::mt19937_64 rng(std::hash<std::string>{}(GetParam()));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(4);
  int tried = 0, verified = 0;
  for (; tried < 3 && std::chrono::steady_clock::now() < deadline; ++tried) {
    nlohmann::json steps = random_schedule(ctx, rng);
    auto r = runtime::verify_with_interpreter(p, Schedule::from_json(ctx, steps), "small", 7 + tried, 1);
    if (r.verdict == cusched::runtime::Verdict::rejected) {
      EXPECT_FALSE(r.error.code.empty()) << steps.dump();
      continue;
    }
    // A schedule that rounds operands below f32 (tf32, bf16, f16) may miss the tolerance on
    // the adversarial inputs only: a variance of values whose mean is large against their
    // spread, rounded to tf32, is what those inputs are there to expose.
    const bool adversarial_only = r.message.find("(adversarial inputs)") != std::string::npos;
    if (r.verdict != cusched::runtime::Verdict::ok && adversarial_only &&
        lower(Schedule::from_json(ctx, steps), p.name).precision != Precision::f32)
      continue;
    EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << r.message << "\nschedule: " << steps.dump();
    verified += r.verdict == cusched::runtime::Verdict::ok;
  }
  RecordProperty("random_schedules", tried);
  RecordProperty("random_verified", verified);
}

INSTANTIATE_TEST_SUITE_P(Files, KernelBenchFile, ::testing::ValuesIn(problem_files()),
                         kernelbench_tests::file_test_name);

// KernelBench's levels 1 and 2: one file for each of their 100 modules.
TEST(KernelBenchFiles, TheSetIsThere) {
  std::map<std::string, int> per_level;
  for (const auto& f : problem_files()) ++per_level[fs::path(f).parent_path().string()];
  EXPECT_EQ(per_level["level1"], 100) << "under " << kRoot;
  EXPECT_EQ(per_level["level2"], 100) << "under " << kRoot;
}

// A file that declares its output constant is one whose reference is constant: without the
// declaration its baseline is refused as reference_degenerate.
TEST(KernelBenchFiles, DeclaredConstantOutputsAreConstant) {
  int declared = 0;
  for (const auto& f : problem_files()) {
    Problem p = load_problem_file((kRoot / f).string());
    if (p.constant_output.empty()) continue;
    ++declared;
    p.constant_output.clear();
    const nlohmann::json steps = baseline_schedule_of(p);
    auto r = runtime::verify_with_interpreter(p, Schedule::from_json(p.context("small"), steps), "small", 1, 1);
    EXPECT_EQ(r.verdict, cusched::runtime::Verdict::reference_degenerate) << f << ": " << r.message;
  }
  EXPECT_EQ(declared, 3) << "level 2 #36, #80 and #83";
}

}  // namespace
}  // namespace cusched
