// Unit tests of the audit's parts: asm parsing, contracts, findings, the
// rule registry, the generated docs, PCH-independence and the ptxas report.
#include "audit/audit.h"

#include <gtest/gtest.h>

#include "audit/asm_text.h"
#include "corpus.h"
#include "dsl/error.h"

namespace cusched::audit {
namespace {

TEST(AsmText, SplitsInstructionsAndDropsDirectivesLabelsAndPredicates) {
  auto ins = asm_instructions(
      "{\n .reg .pred p;\nWAIT: // spin\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra WAIT;\n}");
  ASSERT_EQ(ins.size(), 2u);
  EXPECT_EQ(asm_opcode(ins[0]), "mbarrier.try_wait.parity.shared::cta.b64");
  EXPECT_EQ(asm_opcode(ins[1]), "bra");
}

TEST(AsmText, RecognisesTimersExitsBarriersAndGlobalWrites) {
  EXPECT_TRUE(asm_reads_timer("mov.u64 %0, %%globaltimer;"));
  EXPECT_TRUE(asm_reads_timer("mov.u32 $0, %clock;"));
  EXPECT_FALSE(asm_reads_timer("mov.u32 %0, %laneid;"));
  EXPECT_TRUE(asm_ends_thread("@p exit;"));
  EXPECT_TRUE(asm_ends_thread("trap;"));
  EXPECT_FALSE(asm_ends_thread("cp.async.commit_group;"));
  EXPECT_TRUE(asm_is_barrier("bar.sync 1;"));
  EXPECT_FALSE(asm_is_barrier("bar.sync 1, 128;"));
  EXPECT_TRUE(asm_writes_global("st.global.v4.f32 [%0], {%1,%2,%3,%4};"));
  EXPECT_TRUE(asm_writes_global("red.global.add.f32 [%0], %1;"));
  EXPECT_TRUE(asm_writes_global("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"));
  EXPECT_FALSE(asm_writes_global("st.shared.f32 [%0], %1;"));
  EXPECT_FALSE(asm_writes_global("cp.async.cg.shared.global [%0], [%1], 16;"));
  EXPECT_FALSE(asm_writes_global("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};"));
}

TEST(KernelContract, ReadsJson) {
  auto c = KernelContract::from_json(nlohmann::json::parse(
      R"({"kernel_name": "mm", "params": [{"name": "A", "type": "const float*"}, {"name": "C", "type": "float*", "is_output": true}]})"));
  EXPECT_EQ(c.kernel_name, "mm");
  ASSERT_EQ(c.params.size(), 2u);
  EXPECT_EQ(c.params[0].type, "const float*");
  EXPECT_FALSE(c.params[0].is_output);
  EXPECT_TRUE(c.params[1].is_output);
  EXPECT_EQ(KernelContract::from_json(c.to_json()).params[1].name, "C");
}

TEST(KernelContract, RejectsMalformedJsonWithAStructuredError) {
  for (const char* text :
       {R"([])", R"({"params": []})", R"({"kernel_name": "k"})", R"({"kernel_name": "k", "params": [{"name": "A"}]})",
        R"({"kernel_name": "k", "params": [{"name": "A", "type": "int", "is_output": 1}]})"}) {
    try {
      KernelContract::from_json(nlohmann::json::parse(text));
      ADD_FAILURE() << "accepted " << text;
    } catch (const UserError& e) {
      EXPECT_EQ(e.error().code, "bad-kernel-contract");
      EXPECT_FALSE(e.error().hint.empty());
    }
  }
}

TEST(Finding, JsonHasEveryField) {
  Finding f{"device-timer", Severity::Error, "k.cu", 3, 7, "reads a timer", "remove it"};
  auto j = f.to_json();
  EXPECT_EQ(j["rule"], "device-timer");
  EXPECT_EQ(j["severity"], "error");
  EXPECT_EQ(j["file"], "k.cu");
  EXPECT_EQ(j["line"], 3);
  EXPECT_EQ(j["column"], 7);
  EXPECT_EQ(j["hint"], "remove it");
  EXPECT_TRUE(has_error({f}));
  f.severity = Severity::Warning;
  EXPECT_FALSE(has_error({f}));
}

TEST(Rules, HaveUniqueKebabCaseIdsAndDocs) {
  std::set<std::string> ids;
  for (const auto& r : rules()) {
    EXPECT_TRUE(ids.insert(r.id).second) << "duplicate rule id " << r.id;
    for (char c : r.id) EXPECT_TRUE(std::islower(static_cast<unsigned char>(c)) || c == '-') << r.id;
    EXPECT_GT(r.doc.size(), 100u) << r.id << " needs a paragraph of documentation";
    EXPECT_FALSE(r.summary.empty()) << r.id;
  }
  EXPECT_GE(rules().size(), 11u);
}

TEST(Docs, CheckedInAuditMdIsCurrent) {
  std::string checked_in = testing::read_text(std::string(CUSCHED_SOURCE_DIR) + "/docs/audit.md");
  EXPECT_TRUE(checked_in == audit_reference_markdown())
      << "docs/audit.md is stale; regenerate it with `cusched audit --docs > docs/audit.md`.";
}

TEST(AuditFile, UnreadableFileIsAUserError) {
  try {
    audit_file("/nonexistent/kernel.cu", {});
    FAIL() << "no error for a missing file";
  } catch (const UserError& e) {
    EXPECT_EQ(e.error().code, "audit-file-unreadable");
  }
}

TEST(AuditFile, ReportsTheGivenPath) {
  std::string path = testing::corpus_dir() + "/bad/thread_exit_trap.cu";
  auto findings = audit_file(path, testing::device_library_options());
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings[0].file, path);
  EXPECT_EQ(findings[0].line, 4);
}

TEST(Pch, FindingsAreTheSameWithoutThePrecompiledHeader) {
  auto k = testing::load_corpus_kernel(testing::corpus_dir() + "/bad/divergent_barrier_early_return.cu");
  auto with = audit_source(k.source, k.name, k.options);
  k.options.use_pch = false;
  auto without = audit_source(k.source, k.name, k.options);
  ASSERT_EQ(with.size(), without.size());
  for (size_t i = 0; i < with.size(); ++i) EXPECT_EQ(with[i].to_json(), without[i].to_json());
  ASSERT_EQ(with.size(), 1u);
  EXPECT_EQ(with[0].line, 8);  // the __syncthreads() after the thread-dependent return
}

TEST(PtxasResources, ReportsRegistersSpillsAndOccupancy) {
  auto k = testing::load_corpus_kernel(testing::corpus_dir() + "/bad/ptxas_resources.cu");
  auto findings = audit_source(k.source, k.name, k.options);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::Info);
  const std::string& m = findings[0].message;
  EXPECT_NE(m.find("168 registers"), std::string::npos) << m;
  EXPECT_NE(m.find("64 bytes spill stores"), std::string::npos) << m;
  EXPECT_NE(m.find("96 bytes stack frame"), std::string::npos) << m;
  // 168 registers x 32 lanes = 5376 per warp (already a multiple of 256): 65536 / 5376 = 12 warps.
  EXPECT_NE(m.find("12 of 64 warps"), std::string::npos) << m;
}

TEST(ClangParse, IsAWarningNotAnError) {
  auto k = testing::load_corpus_kernel(testing::corpus_dir() + "/bad/clang_parse.cu");
  auto findings = audit_source(k.source, k.name, k.options);
  ASSERT_FALSE(findings.empty());
  EXPECT_FALSE(has_error(findings));
  EXPECT_EQ(findings[0].rule, "clang-parse");
  EXPECT_EQ(findings[0].line, 6);
}

// The path rule names the output and the condition, and points at the early
// return, or at the branch for a skipped store.
std::vector<Finding> path_findings(const std::string& body) {
  AuditOptions o;
  o.contract = KernelContract::from_json(nlohmann::json::parse(
      R"({"kernel_name": "k", "params": [{"name": "X", "type": "const float*"}, {"name": "Y", "type": "float*", "is_output": true}, {"name": "n", "type": "int"}]})"));
  std::string source =
      "extern \"C\" __global__ void k(const float* __restrict__ X, float* __restrict__ Y, int n) {\n" + body + "}\n";
  std::vector<Finding> out;
  for (auto& f : audit_source(source, "k.cu", o))
    if (f.rule == "output-unwritten-on-path") out.push_back(f);
  return out;
}

TEST(OutputUnwrittenOnPath, PointsAtTheDataDependentReturn) {
  auto f = path_findings(
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i >= n) return;\n"
      "  if (X[i] < 0.0f) return;\n"
      "  Y[i] = X[i];\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::Error);
  EXPECT_EQ(f[0].line, 4);
  EXPECT_EQ(f[0].column, 20);
  EXPECT_NE(f[0].message.find("'Y'"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].message.find("'X[i] < 0.0f' is true"), std::string::npos) << f[0].message;
  EXPECT_FALSE(f[0].hint.empty());
}

TEST(OutputUnwrittenOnPath, PointsAtTheBranchOfAStoreWithoutElse) {
  auto f = path_findings(
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  float v = i < n ? X[i] : 0.0f;\n"
      "  if (i < n && v > 0.0f) Y[i] = v;\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].line, 4);
  EXPECT_EQ(f[0].column, 16);
  EXPECT_NE(f[0].message.find("'v > 0.0f' is false"), std::string::npos) << f[0].message;
}

TEST(OutputUnwrittenOnPath, BoundsGuardsAndCompleteBranchesAreClean) {
  EXPECT_TRUE(path_findings("  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                            "  if (i >= n) return;\n"
                            "  if (X[0] > 0.0f) Y[0] = 1.0f;\n"  // a data-dependent extra store before the guard
                            "  if (i + 1 > n) return;\n"
                            "  if (X[i] > 0.0f) Y[i] = X[i]; else Y[i] = 0.0f;\n")
                  .empty());
  EXPECT_TRUE(path_findings("  for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
                            "    float v = X[i];\n"
                            "    for (int r = 0; r < 3 && v > 1.0f; ++r) v *= 0.5f;\n"
                            "    Y[i] = v;\n"
                            "  }\n")
                  .empty());
}

TEST(OutputUnwrittenOnPath, FindsAFindFirstLoopWithoutDefault) {
  auto f = path_findings(
      "  for (int j = 0; j < n; ++j) {\n"
      "    if (X[j] == 0.0f) {\n"
      "      Y[blockIdx.x] = static_cast<float>(j);\n"
      "      break;\n"
      "    }\n"
      "  }\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].line, 3);
  EXPECT_NE(f[0].message.find("iteration"), std::string::npos) << f[0].message;
}

}  // namespace
}  // namespace cusched::audit
