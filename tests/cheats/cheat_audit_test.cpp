// What the corpus of cheating kernels must give without a GPU: each kernel whose only
// allowed verdict is audit_rejected fails the audit that `cusched check` and the search
// run (with the problem's kernel contract); each kernel whose only allowed verdict is
// undeclared_precision fails the PTX precision scan; the honest controls and the
// kernels meant for runtime checks pass both.
#include <gtest/gtest.h>

#include <map>

#include "cheat_corpus.h"
#include "problems/problem.h"
#include "search/candidate_evaluation.h"

namespace cusched::cheats {
namespace {

class CheatCorpus : public ::testing::TestWithParam<CorpusEntry> {};

TEST_P(CheatCorpus, AuditAndPrecisionScanGiveTheExpectedVerdict) {
  const CorpusEntry& e = GetParam();
  KernelBundle b = corpus_bundle(CUSCHED_CHEATS_DIR, e);
  bool bad = false;
  double ms = 0;
  nlohmann::json findings = search::audit_bundle(find_problem(e.problem), b, &bad, &ms);
  const bool audit_only = e.expect == std::set<std::string>{"audit_rejected"};
  if (audit_only) {
    EXPECT_TRUE(bad) << e.file << " passed the audit";
    return;
  }
  if (!e.expect.count("audit_rejected")) EXPECT_FALSE(bad) << e.file << " was rejected by the audit: " << findings.dump(2);
  search::CandidateOutcome out;
  search::check_declared_precision(b, out);
  if (e.expect == std::set<std::string>{"undeclared_precision"})
    EXPECT_EQ(out.verdict, "undeclared_precision") << e.file;
  else
    EXPECT_EQ(out.verdict, "") << e.file << ": " << out.reason;
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
