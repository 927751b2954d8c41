// relayout: the copy stage it inserts, the stage's loads it rewrites, its text form, and
// each error.
#include "tests/dsl/schedule_test_support.h"

namespace cusched::testing {
namespace {

TEST(Relayout, InsertsACopyStageAndTheStageReadsIt) {
  Schedule s = build(problem_context("matmul"), json::parse(R"([
    {"op": "relayout", "stage": "C", "source": "B", "order": [1, 0]}])"));
  EXPECT_EQ(s.steps()[0]["name"], "B_relayout");
  // The copy comes before the stage that reads it, at root, its own kernel.
  std::vector<std::string> names;
  for (const auto& f : s.state().stages) names.push_back(f->name);
  EXPECT_EQ(names, (std::vector<std::string>{"B_relayout", "C"}));
  const FuncDef* copy = s.state().stage_def("B_relayout");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->vars, (std::vector<std::string>{"d0", "d1"}));
  EXPECT_EQ(to_string(copy->body), "B[d1, d0]");
  EXPECT_EQ(s.state().schedules.at("B_relayout").location, ComputeLocation::Root);
  // B(k, j) is read as B_relayout(j, k); A is untouched.
  EXPECT_EQ(to_string(s.state().stage_def("C")->body), "sum(k; (A[i, k] * B_relayout[j, k]))");
  EXPECT_EQ(s.state().consumers_of("B_relayout"), (std::vector<std::string>{"C"}));
  // The copy's extents follow the order: B is K x N, the copy N x K.
  const auto& sizes = s.state().ctx.sizes;
  EXPECT_EQ(eval_int(copy->extents[0], sizes), eval_int(s.state().ctx.pipeline.find_input("B")->shape[1], sizes));
  EXPECT_EQ(eval_int(copy->extents[1], sizes), eval_int(s.state().ctx.pipeline.find_input("B")->shape[0], sizes));
}

TEST(Relayout, TheOrderRoundTripsThroughTheTextForm) {
  const auto ctx = problem_context("matmul");
  Schedule s = build(ctx, json::parse(R"([
    {"op": "relayout", "stage": "C", "source": "A", "order": [1, 0], "name": "At"},
    {"op": "split", "stage": "At", "loop": "d0", "factor": 4}])"));
  const std::string text = s.to_text();
  EXPECT_NE(text.find("relayout stage=C source=A order=1,0 name=At"), std::string::npos) << text;
  EXPECT_EQ(Schedule::from_text(ctx, text).to_json(), s.to_json());
}

TEST(RelayoutErrors, EachError) {
  auto ctx = problem_context("matmul");
  expect_step_error(ctx, json::parse(R"([{"op": "relayout", "stage": "C", "source": "C", "order": [1, 0]}])"), 0,
                    "relayout", "relayout-not-input");
  expect_step_error(ctx, json::parse(R"([{"op": "relayout", "stage": "C", "source": "B", "order": [0, 0]}])"), 0,
                    "relayout", "bad-relayout-order");
  expect_step_error(ctx, json::parse(R"([{"op": "relayout", "stage": "C", "source": "B", "order": [1]}])"), 0,
                    "relayout", "bad-relayout-order");
  expect_step_error(ctx, json::parse(R"([{"op": "relayout", "stage": "C", "source": "B", "order": [0, 2]}])"), 0,
                    "relayout", "bad-relayout-order");
  expect_step_error(ctx, json::parse(R"([{"op": "relayout", "stage": "C", "source": "B", "order": ["1", "0"]}])"), 0,
                    "relayout", "mistyped-argument");
  expect_step_error(ctx, json::parse(R"([{"op": "relayout", "stage": "C", "source": "B", "order": [1, 0],
                                         "name": "A"}])"),
                    0, "relayout", "duplicate-name");
  expect_step_error(ctx, json::parse(R"([{"op": "relayout", "stage": "C", "source": "B", "order": [1, 0]},
                                         {"op": "relayout", "stage": "C", "source": "B", "order": [1, 0],
                                          "name": "B2"}])"),
                    1, "relayout", "relayout-not-read");
  expect_step_error(ctx, json::parse(R"([{"op": "split", "stage": "C", "loop": "k", "factor": 8},
                                         {"op": "cache_read", "stage": "C", "source": "B", "scope": "shared",
                                          "at": "ko"},
                                         {"op": "relayout", "stage": "C", "source": "B", "order": [1, 0]}])"),
                    2, "relayout", "relayout-after-cache-read");
}

}  // namespace
}  // namespace cusched::testing
