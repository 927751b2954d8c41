// The KernelBench files that define a sum and the variance of the same values (the
// statistics of BatchNorm, InstanceNorm, GroupNorm written one-pass, and LayerNorm): the
// built-in proposer's sketches store the sum from the variance's kernel
// (sum_with_variance), legal at KernelBench's shapes, with no kernel of the sum's own,
// verify in the CPU interpreter at the small size and compile with NVRTC for sm_90a at
// the bench size; the set of such files is the documented one.
#include <filesystem>
#include <set>

#include <gtest/gtest.h>

#include "codegen/bundle.h"
#include "codegen/lower.h"
#include "dsl/schedule.h"
#include "dsl/sum_with_variance.h"
#include "problems/problem_file.h"
#include "runtime/compiled_code_scan.h"
#include "runtime/interp_verification.h"
#include "search/class_sketches.h"
#include "tests/kernelbench/file_test_name.h"
#include "tests/kernelbench/problem_files.h"
#include "tests/runtime/bench_kernel_compile.h"

namespace cusched {
namespace {

using kernelbench_tests::problem_files;
using kernelbench_tests::problem_root;

// The sum stages of `p` that have a variance partner, as "sum:variance".
std::vector<std::string> pairs_of(const Problem& p) {
  const ScheduleState st(p.context(p.default_size));
  std::vector<std::string> out;
  for (const auto& f : p.pipeline.stages())
    if (const std::string q = variance_partner(st, f->name); !q.empty()) out.push_back(f->name + ":" + q);
  return out;
}

class SumWithVarianceFile : public ::testing::TestWithParam<std::string> {};

TEST_P(SumWithVarianceFile, ASketchStoresTheSumFromTheVarianceAndVerifies) {
  const Problem p = load_problem_file((problem_root() / GetParam()).string());
  const auto pairs = pairs_of(p);
  if (pairs.empty()) GTEST_SKIP() << "no sum and variance of the same values";
  const std::string sum = pairs[0].substr(0, pairs[0].find(':'));
  int carrying = 0, verified = 0;
  for (const auto& s : search::class_sketches(p, search::classify_pipeline(p.pipeline))) {
    if (s.idea.find("(sum_with_variance)") == std::string::npos) continue;
    ++carrying;
    ASSERT_TRUE(validate_schedule(p.context("bench"), s.schedule).ok) << s.idea;
    const Schedule bench = Schedule::from_json(p.context("bench"), s.schedule);
    EXPECT_EQ(bench.state().stage(sum).with_variance, pairs[0].substr(pairs[0].find(':') + 1)) << s.idea;
    for (const auto& k : lower(bench, p.name).kernels)
      EXPECT_NE(k.name.substr(k.name.find('_') + 1), sum) << "a kernel of its own for " << sum << ": " << s.idea;
    if (verified > 0) continue;  // one verified and compiled sketch per file keeps the suite fast
    const auto r =
        runtime::verify_with_interpreter(p, Schedule::from_json(p.context("small"), s.schedule), "small", 11, 1);
    EXPECT_EQ(r.verdict, runtime::Verdict::ok) << s.idea << ": " << r.message << r.error.message;
    // Its CUDA at the bench size compiles for sm_90a and passes the compiled-code scans.
    const KernelBundle b = make_bundle(lower(bench, p.name));
    const runtime::CompiledModule m = runtime::testing::sm90a_module(b);
    EXPECT_FALSE(m.ptx.empty()) << m.log;
    const auto rejected = runtime::compiled_code_rejection(b, m.ptx);
    EXPECT_FALSE(rejected.has_value()) << rejected->message;
    ++verified;
  }
  EXPECT_GE(carrying, 1) << "no sketch stores " << sum << " from its variance";
}

INSTANTIATE_TEST_SUITE_P(Files, SumWithVarianceFile, ::testing::ValuesIn(problem_files()),
                         kernelbench_tests::file_test_name);

// The files above with a pair are the ones docs/kernelbench.md lists.
TEST(SumWithVarianceSet, TheFilesWithASumAndItsVarianceAreTheDocumentedOnes) {
  std::set<std::string> found;
  for (const auto& f : problem_files())
    if (!pairs_of(load_problem_file((problem_root() / f).string())).empty())
      found.insert(f.substr(5, 1) + "/" + f.substr(f.find('/') + 1, f.find('_') - f.find('/') - 1));
  const std::set<std::string> documented = {"1/33", "1/34", "1/35", "1/40", "2/11", "2/15", "2/17", "2/19", "2/21",
                                            "2/23", "2/27", "2/28", "2/30", "2/33", "2/34", "2/37", "2/39", "2/3",
                                            "2/41", "2/52", "2/60", "2/61", "2/62", "2/72", "2/73", "2/75", "2/77",
                                            "2/79", "2/83", "2/84", "2/85", "2/88", "2/92", "2/94", "2/97"};
  EXPECT_EQ(found, documented) << "update the list in docs/kernelbench.md with sum_with_variance's reach";
}

}  // namespace
}  // namespace cusched
