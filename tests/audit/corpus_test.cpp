// The corpus: every bad kernel is caught by the rules it names (and only
// those rules raise errors or warnings); every good kernel is clean.
#include "corpus.h"

#include <chrono>
#include <ctime>
#include <filesystem>
#include <iostream>

#include <gtest/gtest.h>

#include "audit/audit.h"

namespace cusched::audit::testing {
namespace {

std::string describe(const std::vector<Finding>& findings) {
  std::string s;
  for (const auto& f : findings) s += "  " + f.to_string() + "\n";
  return s.empty() ? "  (no findings)\n" : s;
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = std::filesystem::path(info.param).stem().string();
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

class BadKernel : public ::testing::TestWithParam<std::string> {};

TEST_P(BadKernel, IsCaughtByItsRule) {
  CorpusKernel k = load_corpus_kernel(GetParam());
  ASSERT_FALSE(k.expected_rules.empty()) << k.name << " names no expected rule";
  auto findings = audit_source(k.source, k.name, k.options);
  for (const auto& rule : k.expected_rules) {
    bool found = false;
    for (const auto& f : findings) found |= f.rule == rule;
    EXPECT_TRUE(found) << k.name << " was not caught by " << rule << ":\n" << describe(findings);
  }
  for (const auto& f : findings) {
    if (f.severity == Severity::Info) continue;
    EXPECT_TRUE(k.expected_rules.count(f.rule)) << k.name << " has an unexpected finding:\n  " << f.to_string();
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, BadKernel, ::testing::ValuesIn(corpus_files("bad")), test_name);

class GoodKernel : public ::testing::TestWithParam<std::string> {};

TEST_P(GoodKernel, IsClean) {
  CorpusKernel k = load_corpus_kernel(GetParam());
  ASSERT_TRUE(k.expected_rules.empty()) << k.name << " is in good/ but expects findings";
  auto findings = audit_source(k.source, k.name, k.options);
  for (const auto& f : findings) EXPECT_EQ(f.severity, Severity::Info) << k.name << ":\n  " << f.to_string();
}

INSTANTIATE_TEST_SUITE_P(Corpus, GoodKernel, ::testing::ValuesIn(corpus_files("good")), test_name);

TEST(Corpus, EveryRuleHasABadKernel) {
  std::set<std::string> covered;
  for (const auto& p : corpus_files("bad"))
    for (const auto& r : load_corpus_kernel(p).expected_rules) covered.insert(r);
  for (const auto& r : rules()) EXPECT_TRUE(covered.count(r.id)) << "no bad kernel in the corpus triggers " << r.id;
  for (const auto& r : covered) {
    bool known = false;
    for (const auto& info : rules()) known |= info.id == r;
    EXPECT_TRUE(known) << "the corpus expects an unknown rule " << r;
  }
}

// The audit time of one generated-style kernel with a warm PCH cache; the
// brief's budget is well under a second on a 2-core machine.
TEST(Corpus, AuditTimePerKernel) {
  double worst = 0;
  for (const auto& p : corpus_files("good")) {
    CorpusKernel k = load_corpus_kernel(p);
    audit_source(k.source, k.name, k.options);  // builds or loads the PCH
    auto start = std::chrono::steady_clock::now();
    std::clock_t cpu_start = std::clock();
    constexpr int kRuns = 3;
    for (int i = 0; i < kRuns; ++i) audit_source(k.source, k.name, k.options);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / kRuns;
    double cpu_ms = 1000.0 * static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC / kRuns;
    std::cout << "audit time " << k.name << ": " << ms << " ms wall, " << cpu_ms << " ms CPU\n";
    RecordProperty("audit_ms_" + std::filesystem::path(p).stem().string(), std::to_string(ms));
    worst = std::max(worst, ms);
  }
  EXPECT_LT(worst, 1000.0) << "an audit with a warm PCH took over a second";
}

}  // namespace
}  // namespace cusched::audit::testing
