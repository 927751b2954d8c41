// presum: the operand sum and the contraction it inserts, the contraction it removes, the
// split of a summand with terms that do not read the contraction, and each error.
#include "problems/problem_file.h"
#include "tests/dsl/schedule_test_support.h"

namespace cusched::testing {
namespace {

// A problem of the given stages over those of x (B x IN), weight (HID x IN) and bias (HID)
// that they read.
Problem stages_problem(const std::vector<std::string>& stages) {
  json inputs = json::array();
  for (const auto& [name, shape] :
       std::vector<std::pair<std::string, json>>{{"x", {"B", "IN"}}, {"weight", {"HID", "IN"}}, {"bias", {"HID"}}}) {
    bool read = false;
    for (const auto& st : stages) read = read || st.find(name + "(") != std::string::npos;
    if (read) inputs.push_back({{"name", name}, {"dtype", "f32"}, {"shape", shape}});
  }
  json j = {{"format_version", 1},
            {"name", "presum_case"},
            {"title", "a sum over a contraction's output"},
            {"sizes", {{"small", {{"B", 3}, {"IN", 5}, {"HID", 4}}}}},
            {"default_size", "small"},
            {"inputs", inputs},
            {"stages", stages},
            {"outputs", {"Out"}}};
  return problem_from_json(j, "presum_test");
}

// presum of RowSum in the problem of `stages` fails with `code`.
void expect_presum_error(const std::vector<std::string>& stages, const std::string& code) {
  const Problem p = stages_problem(stages);
  expect_step_error(p.context("small"), json::parse(R"([{"op": "presum", "stage": "RowSum"}])"), 0, "presum", code);
}

std::vector<std::string> stage_names(const Schedule& s) {
  std::vector<std::string> names;
  for (const auto& f : s.state().stages) names.push_back(f->name);
  return names;
}

TEST(Presum, AScaledRowSumOfAGemmBecomesAColumnSumAndAMatrixVectorProduct) {
  const Problem p =
      stages_problem({"Gemm(i in B, j in HID) = sum(k in IN: x(i, k) * weight(j, k))",
                      "RowSum(i in B) = sum(rj in HID: Gemm(i, rj) / 2)", "Out(i in B, z in 1) = RowSum(i) * 1.5"});
  Schedule s = build(p.context("small"), json::parse(R"([{"op": "presum", "stage": "RowSum"}])"));
  EXPECT_EQ(s.steps()[0]["name"], "weight_presum");
  // The weights' column sum comes first, the GEMM is gone: nothing reads it any more.
  EXPECT_EQ(stage_names(s), (std::vector<std::string>{"weight_presum", "RowSum", "Out"}));
  const FuncDef* sum = s.state().stage_def("weight_presum");
  ASSERT_NE(sum, nullptr);
  EXPECT_EQ(sum->vars, (std::vector<std::string>{"k"}));
  EXPECT_EQ(eval_int(sum->extents[0], s.state().ctx.sizes), 5);
  EXPECT_EQ(to_string(sum->body), "sum(rj; weight[rj, k])");
  // RowSum reduces over the GEMM's k, the divisor kept as a factor.
  const std::string body = to_string(s.state().stage_def("RowSum")->body);
  EXPECT_EQ(body.rfind("sum(k; ", 0), 0u) << body;
  EXPECT_NE(body.find("x[i, k] * weight_presum[k]"), std::string::npos) << body;
  EXPECT_NE(body.find("/ 2"), std::string::npos) << body;
  EXPECT_EQ(s.state().schedules.count("Gemm"), 0u);
  // A later step naming the GEMM fails: it no longer exists.
  expect_step_error(p.context("small"), json::parse(R"([{"op": "presum", "stage": "RowSum"},
      {"op": "split", "stage": "Gemm", "loop": "j", "factor": 2}])"),
                    1, "split", "unknown-stage");
}

TEST(Presum, TermsWithoutTheContractionBecomeASumOfTheirOwn) {
  // Level 2 #18's shape: the bias added to each GEMM output before the row sum.
  const Problem p =
      stages_problem({"Gemm(i in B, j in HID) = sum(k in IN: x(i, k) * weight(j, k))",
                      "RowSum(i in B) = sum(rj in HID: Gemm(i, rj) + bias(rj))", "Out(i in B, z in 1) = RowSum(i)"});
  Schedule s = build(p.context("small"), json::parse(R"([{"op": "presum", "stage": "RowSum", "name": "W1"}])"));
  EXPECT_EQ(stage_names(s), (std::vector<std::string>{"W1", "RowSum_dot", "RowSum_rest", "RowSum", "Out"}));
  EXPECT_EQ(to_string(s.state().stage_def("RowSum_rest")->body), "sum(rj; bias[rj])");
  EXPECT_FALSE(s.state().stage_def("RowSum")->is_reduction());
  EXPECT_NE(to_string(s.state().stage_def("RowSum")->body).find("RowSum_rest[i]"), std::string::npos);
}

TEST(Presum, TheSumKeepsWhereItIsComputed) {
  const Problem p =
      stages_problem({"Gemm(i in B, j in HID) = sum(k in IN: x(i, k) * weight(j, k))",
                      "RowSum(i in B) = sum(rj in HID: Gemm(i, rj) / 2)", "Out(i in B, z in 1) = RowSum(i) * 1.5"});
  Schedule s = build(p.context("small"), json::parse(R"([
    {"op": "compute_at", "stage": "RowSum", "consumer": "Out", "loop": "i"},
    {"op": "presum", "stage": "RowSum"}])"));
  const StageSchedule& row_sum = s.state().schedules.at("RowSum");
  EXPECT_EQ(row_sum.location, ComputeLocation::At);
  EXPECT_EQ(row_sum.at_stage, "Out");
  EXPECT_EQ(row_sum.at_loop, "i");
}

TEST(Presum, AContractionReadElsewhereStays) {
  const Problem p = stages_problem({"Gemm(i in B, j in HID) = sum(k in IN: x(i, k) * weight(j, k))",
                                    "RowSum(i in B) = sum(rj in HID: Gemm(i, rj) * 3)",
                                    "Out(i in B, j in HID) = Gemm(i, j) - RowSum(i)"});
  Schedule s = build(p.context("small"), json::parse(R"([{"op": "presum", "stage": "RowSum"}])"));
  EXPECT_EQ(stage_names(s), (std::vector<std::string>{"Gemm", "weight_presum", "RowSum", "Out"}));
}

TEST(PresumErrors, EachError) {
  const Problem gemm =
      stages_problem({"Gemm(i in B, j in HID) = sum(k in IN: x(i, k) * weight(j, k))",
                      "RowSum(i in B) = sum(rj in HID: Gemm(i, rj) / 2)", "Out(i in B, z in 1) = RowSum(i) * 1.5"});
  const auto ctx = gemm.context("small");
  expect_step_error(ctx, json::parse(R"([{"op": "presum", "stage": "Out"}])"), 0, "presum", "presum-not-sum");
  expect_step_error(ctx, json::parse(R"([{"op": "presum", "stage": "Gemm"}])"), 0, "presum", "presum-no-contraction");
  expect_step_error(ctx, json::parse(R"([{"op": "presum", "stage": "RowSum", "name": "x"}])"), 0, "presum",
                    "duplicate-name");
  expect_step_error(ctx, json::parse(R"([{"op": "compute_at", "stage": "Gemm", "consumer": "RowSum", "loop": "i"},
                                         {"op": "presum", "stage": "RowSum"}])"),
                    1, "presum", "presum-hosts-producer");
  // The GEMM of the cases below, and an output of the row sum.
  const std::string g = "Gemm(i in B, j in HID) = sum(k in IN: x(i, k) * weight(j, k))";
  const std::string out = "Out(i in B, z in 1) = RowSum(i)";
  expect_presum_error({g, "RowSum(k in B) = sum(rj in HID: Gemm(k, rj))", out}, "presum-names");
  // A summand that is not linear in the contraction.
  expect_presum_error({g, "RowSum(i in B) = sum(rj in HID: Gemm(i, rj) * Gemm(i, rj))", out}, "presum-no-contraction");
  // A factor that varies along the sum.
  expect_presum_error({g, "RowSum(i in B) = sum(rj in HID: Gemm(i, rj) * bias(rj))", out}, "presum-no-contraction");
  // Three factors: not a contraction of two operands.
  expect_presum_error({"Gemm(i in B, j in HID) = sum(k in IN: x(i, k) * weight(j, k) * bias(j))",
                       "RowSum(i in B) = sum(rj in HID: Gemm(i, rj))", out},
                      "presum-no-contraction");
  // Both operands read j.
  expect_presum_error({"Gemm(i in B, j in HID) = sum(k in IN: weight(j, k) * weight(j, k))",
                       "RowSum(i in B) = sum(rj in HID: Gemm(i, rj))", out},
                      "presum-operand");
  // The sum reads the GEMM at an index that is not its variable alone, or over part of j.
  expect_presum_error({g, "RowSum(i in B) = sum(rj in 2: Gemm(i, rj + 1))", out}, "presum-index");
  expect_presum_error({g, "RowSum(i in B) = sum(rj in 2: Gemm(i, rj))", out}, "presum-index");
  // The sum variable at two of the GEMM's indices (its diagonal).
  expect_presum_error({"Gemm(i in HID, j in HID) = sum(k in IN: weight(i, k) * weight(j, k))",
                       "RowSum(i in B) = sum(rj in HID: Gemm(rj, rj))", out},
                      "presum-index");
  // The sum runs over the GEMM's i, which x reads, not over j: x is summed.
  const Problem over_rows =
      stages_problem({g, "ColSum(j in HID) = sum(ri in B: Gemm(ri, j))", "Out(j in HID, z in 1) = ColSum(j)"});
  Schedule cols = build(over_rows.context("small"), json::parse(R"([{"op": "presum", "stage": "ColSum"}])"));
  EXPECT_EQ(to_string(cols.state().stage_def("x_presum")->body), "sum(ri; x[ri, k])");
}

}  // namespace
}  // namespace cusched::testing
