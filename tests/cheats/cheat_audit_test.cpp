// What the corpus of cheating kernels must give without a GPU: each kernel whose only
// allowed verdict is audit_rejected fails the audit that `cusched check` and the search
// run (with the problem's kernel contract); each kernel whose only verdict without the
// audit is undeclared_precision or persistent_state gets it from the scans of its
// compiled code; the honest controls and the kernels meant for runtime checks pass both.
#include <gtest/gtest.h>

#include <map>

#include "cheat_corpus.h"
#include "codegen/bundle.h"
#include "codegen/lower.h"
#include "problems/problem.h"
#include "search/candidate_evaluation.h"

namespace cusched::cheats {
namespace {

class CheatCorpus : public ::testing::TestWithParam<CorpusEntry> {};

TEST_P(CheatCorpus, AuditAndCompiledCodeScansGiveTheExpectedVerdict) {
  const CorpusEntry& e = GetParam();
  KernelBundle b = corpus_bundle(CUSCHED_CHEATS_DIR, e);
  // The scans of the compiled code hold with or without the audit.
  search::CandidateOutcome out;
  search::scan_compiled_kernel(b, out);
  const bool audit_only = e.expect == std::set<std::string>{"audit_rejected"};
  const std::set<std::string> scan_verdicts{"undeclared_precision", "persistent_state"};
  if (e.expect_no_audit.size() == 1 && scan_verdicts.count(*e.expect_no_audit.begin())) {
    EXPECT_EQ(out.verdict_text(), *e.expect_no_audit.begin()) << e.file << ": " << out.reason;
  } else if (!audit_only) {
    EXPECT_EQ(out.verdict_text(), "") << e.file << ": " << out.reason;
  }
  bool bad = false;
  double ms = 0;
  nlohmann::json findings = search::audit_bundle(find_problem(e.problem), b, &bad, &ms);
  if (audit_only) {
    EXPECT_TRUE(bad) << e.file << " passed the audit";
  }
  if (!e.expect.count("audit_rejected")) {
    EXPECT_FALSE(bad) << e.file << " was rejected by the audit: " << findings.dump(2);
  }
}

TEST(CheatCorpusManifest, CoversEveryClassWithControls) {
  std::map<std::string, int> per_class;
  for (const auto& e : corpus_entries(CUSCHED_CHEATS_DIR)) ++per_class[e.kind];
  for (const char* c : {"control", "state across launches", "kernel contract", "input written and restored",
                        "out-of-bounds write", "undeclared precision", "numerics on hard inputs", "race"})
    EXPECT_GE(per_class[c], 1) << "no kernel of class " << c;
  EXPECT_GE(per_class["control"], 3);
}

INSTANTIATE_TEST_SUITE_P(Corpus, CheatCorpus, ::testing::ValuesIn(corpus_entries(CUSCHED_CHEATS_DIR)),
                         [](const ::testing::TestParamInfo<CorpusEntry>& info) {
                           std::string n = info.param.file.substr(0, info.param.file.size() - 3);
                           for (auto& c : n)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

}  // namespace
}  // namespace cusched::cheats

namespace cusched::cheats {
namespace {

// Generated candidates get one contract per launch: inputs const, each output written
// by the last launch that receives it, scratch of any type.
TEST(BundleContracts, OneContractPerLaunchWithOutputsInTheLastLaunchThatTakesThem) {
  const Problem& p = find_problem("layernorm");
  KernelBundle b = make_bundle(lower(Schedule::from_json(p.context("small"), p.baseline_schedule), p.name));
  ASSERT_GE(b.launches.size(), 2u);
  nlohmann::json contracts = search::bundle_contracts(b);
  ASSERT_EQ(contracts.size(), b.launches.size());
  int outputs = 0;
  for (size_t k = 0; k < b.launches.size(); ++k) {
    EXPECT_EQ(contracts[k]["kernel_name"], b.launches[k].kernel);
    for (const auto& prm : contracts[k]["params"]) {
      const BufferSpec* buf = b.find_buffer(prm["name"]);
      ASSERT_NE(buf, nullptr);
      if (buf->role == BufferRole::Input) {
        EXPECT_EQ(prm["type"], "const float*");
      }
      if (buf->role == BufferRole::Scratch) {
        EXPECT_EQ(prm["type"], "");
      }
      outputs += prm["is_output"].get<bool>();
    }
  }
  EXPECT_EQ(outputs, 1);
}

// No false rejection: the generated multi-launch bundles audit clean against them.
TEST(BundleContracts, GeneratedBaselineAndBestAuditClean) {
  for (const char* name : {"layernorm", "softmax", "matmul"}) {
    const Problem& p = find_problem(name);
    for (const auto* steps : {&p.baseline_schedule, &p.best_schedule}) {
      KernelBundle b = make_bundle(lower(Schedule::from_json(p.context("bench"), *steps), p.name));
      bool bad = false;
      double ms = 0;
      nlohmann::json findings = search::audit_bundle(p, b, &bad, &ms);
      EXPECT_FALSE(bad) << name << ": " << findings.dump(2);
    }
  }
}

}  // namespace
}  // namespace cusched::cheats
