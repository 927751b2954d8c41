// Every problem's generated kernels (baseline and best schedules, bench size)
// audit clean, each kernel against a contract read from its own signature in
// which every non-const pointer parameter is an output. This runs the output
// rules, which the search pipeline's contract-less audit skips, on real
// generated code, and prints the audit time of each kernel (the first one
// includes building the precompiled header when the cache is cold).
#include <chrono>
#include <iostream>
#include <regex>

#include <gtest/gtest.h>

#include "audit/audit.h"
#include "codegen/bundle.h"
#include "codegen/lower.h"
#include "problems/problem.h"

namespace cusched::audit {
namespace {

// The contract of kernel `name` as its definition in `source` declares it.
KernelContract contract_from_signature(const std::string& source, const std::string& name) {
  std::smatch m;
  // Attributes such as __launch_bounds__(...) or __cluster_dims__(...) may precede the name.
  std::regex signature("__global__ void\\s+(?:__\\w+__\\s*\\([^)]*\\)\\s*)*" + name + "\\s*\\(([^)]*)\\)");
  KernelContract c;
  c.kernel_name = name;
  if (!std::regex_search(source, m, signature)) return c;
  std::string params = m[1];
  std::regex param("\\s*([^,]*?)\\s*(?:__restrict__\\s*)?([A-Za-z_][A-Za-z0-9_]*)\\s*(?:,|$)");
  for (auto it = std::sregex_iterator(params.begin(), params.end(), param); it != std::sregex_iterator(); ++it) {
    if ((*it)[2].length() == 0) continue;
    ContractParam p;
    p.type = (*it)[1];
    p.name = (*it)[2];
    p.is_output = p.type.find('*') != std::string::npos && p.type.rfind("const", 0) != 0;
    c.params.push_back(p);
  }
  return c;
}

TEST(GeneratedKernels, ContractSignatureReaderSkipsKernelAttributes) {
  auto c = contract_from_signature(
      "extern \"C\" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(1024, 2) k0_Y(const float* "
      "__restrict__ X, float* __restrict__ Y) {",
      "k0_Y");
  ASSERT_EQ(c.params.size(), 2u);
  EXPECT_EQ(c.params[1].name, "Y");
}

TEST(GeneratedKernels, ContractSignatureReader) {
  auto c = contract_from_signature(
      "extern \"C\" __global__ void k0_Y(const float* __restrict__ X, float* __restrict__ Y, int n) {", "k0_Y");
  ASSERT_EQ(c.params.size(), 3u);
  EXPECT_EQ(c.params[0].type, "const float*");
  EXPECT_EQ(c.params[0].name, "X");
  EXPECT_FALSE(c.params[0].is_output);
  EXPECT_EQ(c.params[1].name, "Y");
  EXPECT_TRUE(c.params[1].is_output);
  EXPECT_EQ(c.params[2].type, "int");
  EXPECT_FALSE(c.params[2].is_output);
}

class GeneratedKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(GeneratedKernels, AuditCleanWithOutputContracts) {
  const Problem& p = find_problem(GetParam());
  for (const char* which : {"baseline", "best"}) {
    const nlohmann::json& steps = std::string(which) == "baseline" ? p.baseline_schedule : p.best_schedule;
    KernelBundle bundle = make_bundle(lower(Schedule::from_json(p.context("bench"), steps), p.name));
    for (const auto& launch : bundle.launches) {
      AuditOptions o;
      o.headers = bundle.headers;
      for (const auto& l : bundle.launches) o.planned_dynamic_smem_by_kernel[l.kernel] = l.dynamic_smem_bytes;
      o.contract = contract_from_signature(bundle.source, launch.kernel);
      ASSERT_FALSE(o.contract->params.empty()) << p.name << " " << which << ": no signature for " << launch.kernel;
      auto start = std::chrono::steady_clock::now();
      auto findings = audit_source(bundle.source, p.name + ".cu", o);
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      std::cout << "audit time " << p.name << " " << which << " " << launch.kernel << ": " << ms << " ms\n";
      for (const auto& f : findings)
        EXPECT_EQ(f.severity, Severity::Info)
            << p.name << " " << which << " " << launch.kernel << ":\n  " << f.to_string();
    }
  }
}

std::vector<std::string> problem_names() {
  std::vector<std::string> out;
  for (const auto& p : all_problems()) out.push_back(p.name);
  return out;
}

INSTANTIATE_TEST_SUITE_P(EveryProblem, GeneratedKernels, ::testing::ValuesIn(problem_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace cusched::audit
