// The cheating-kernel corpus on the GPU as search candidates: each kernel is audited
// with its contract, scanned for undeclared precision and verified and timed by one
// worker process (the search's path for a bundle), with and without the audit where the
// manifest asks; every cheat must get one of its expected verdicts and every control
// must pass. The racy kernel must get racecheck findings. Skips without a CUDA driver.
#include <iostream>

#include <gtest/gtest.h>

#include "cheat_corpus.h"
#include "problems/problem.h"
#include "runtime/cuda_driver.h"
#include "runtime/sanitizer.h"
#include "runtime/worker.h"
#include "search/candidate_evaluation.h"
#include "tests/source_tree.h"

namespace cusched::cheats {
namespace {

std::string cheats_dir() { return source_tree() + "/tests/cheats"; }

// Whether this build has the Clang audit (the carried GPU build does not: the audit's
// verdicts on the corpus are cheat_tests' on the CPU).
#ifdef CUSCHED_HAVE_AUDIT
constexpr bool kAuditInBuild = true;
#else
constexpr bool kAuditInBuild = false;
#endif

// The findings say whether the source was audited: a build without the audit adds its
// one audit-not-built warning, a build with it never does. Needs no GPU.
TEST(AuditFindings, SayWhetherTheSourceWasAudited) {
  const CorpusEntry honest = corpus_entries(cheats_dir()).front();
  ASSERT_EQ(honest.kind, "control");
  bool bad = false;
  double ms = 0;
  nlohmann::json findings =
      search::audit_bundle(find_problem(honest.problem), corpus_bundle(cheats_dir(), honest), &bad, &ms);
  EXPECT_FALSE(bad) << findings.dump(2);
  int not_built = 0;
  for (const auto& f : findings) not_built += f["rule"] == "audit-not-built";
  EXPECT_EQ(not_built, kAuditInBuild ? 0 : 1) << findings.dump(2);
}

runtime::Worker& shared_worker() {
  static runtime::Worker w(0);
  return w;
}

std::string outcome_of(const CorpusEntry& e, bool audit, std::string* reason) {
  const Problem& p = find_problem(e.problem);
  search::CandidateOutcome out;
  out.bundle = corpus_bundle(cheats_dir(), e);
  out.precision = out.bundle.precision;
  if (audit) {
    bool bad = false;
    out.audit_findings = search::audit_bundle(p, out.bundle, &bad, &out.audit_ms);
    if (bad) out.verdict = cusched::runtime::Verdict::audit_rejected;
  }
  if (!out.verdict) search::scan_compiled_kernel(out.bundle, out);
  if (!out.verdict) {
    search::EvalConfig cfg;
    cfg.size = e.size;
    search::verify_bundle_on_gpu(p, cfg, &shared_worker(), out);
  }
  *reason = out.reason;
  return out.verdict_text();
}

class CheatCorpusGpu : public ::testing::TestWithParam<CorpusEntry> {};

TEST_P(CheatCorpusGpu, GetsAnExpectedVerdict) {
  if (auto err = runtime::driver_available()) GTEST_SKIP() << err->message;
  const CorpusEntry& e = GetParam();
  std::string reason;
  if (kAuditInBuild || !e.expect_no_audit.empty()) {
    std::string v = outcome_of(e, true, &reason);
    std::cout << "| " << e.file << " | " << e.kind << " | audit | " << v << " |\n";
    bool allowed = e.expect.count(v) || (!kAuditInBuild && e.expect_no_audit.count(v));
    EXPECT_TRUE(allowed) << e.file << ": " << v << ": " << reason;
  } else {
    std::cout << "| " << e.file << " | " << e.kind << " | audit | audit (CPU: cheat_tests) |\n";
  }
  if (!e.expect_no_audit.empty()) {
    std::string v2 = outcome_of(e, false, &reason);
    std::cout << "| " << e.file << " | " << e.kind << " | no audit | " << v2 << " |\n";
    EXPECT_TRUE(e.expect_no_audit.count(v2)) << e.file << " without the audit: " << v2 << ": " << reason;
  }
  if (!e.sanitize_expect.empty()) {
    if (!runtime::find_compute_sanitizer()) GTEST_SKIP() << "compute-sanitizer not found";
    const Problem& p = find_problem(e.problem);
    search::EvalConfig cfg;
    cfg.size = e.size;
    auto runs =
        runtime::sanitize(search::make_eval_request(p, corpus_bundle(cheats_dir(), e), cfg), {e.sanitize_expect});
    ASSERT_EQ(runs.size(), 1u);
    std::cout << "| " << e.file << " | " << e.kind << " | " << e.sanitize_expect << " | " << runs[0].errors
              << " errors |\n";
    EXPECT_GT(runs[0].errors, 0) << e.file << ": " << runs[0].to_json().dump();
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, CheatCorpusGpu, ::testing::ValuesIn(corpus_entries(cheats_dir())),
                         [](const ::testing::TestParamInfo<CorpusEntry>& info) {
                           std::string n = info.param.file.substr(0, info.param.file.size() - 3);
                           for (auto& c : n)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

// compute-sanitizer on every problem's best schedule at the small size: clean.
class BestScheduleSanitizer : public ::testing::TestWithParam<std::string> {};

TEST_P(BestScheduleSanitizer, IsClean) {
  if (auto err = runtime::driver_available()) GTEST_SKIP() << err->message;
  if (!runtime::find_compute_sanitizer()) GTEST_SKIP() << "compute-sanitizer not found";
  const Problem& p = find_problem(GetParam());
  nlohmann::json report = search::sanitize_schedule(p, p.best_schedule, false);
  std::cout << "| " << p.name << " | best | sanitizer | " << (report.value("clean", false) ? "clean" : report.dump())
            << " |\n";
  EXPECT_TRUE(report.value("clean", false)) << report.dump(2);
}

std::vector<std::string> problem_names() {
  std::vector<std::string> out;
  for (const auto& p : all_problems()) out.push_back(p.name);
  return out;
}

INSTANTIATE_TEST_SUITE_P(EveryProblem, BestScheduleSanitizer, ::testing::ValuesIn(problem_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace cusched::cheats
