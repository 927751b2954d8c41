// Problem files: every built-in problem written as a file and read back has the
// identical pipeline (stage by stage, node by node), the identical file text, FLOP
// counts and sizes, and its baseline and best schedules emit the identical CUDA at
// every size; bad files give structured errors with their codes.
#include "problems/problem_file.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "codegen/bundle.h"
#include "codegen/lower.h"
#include "dsl/expr_equal.h"
#include "dsl/schedule.h"

namespace cusched {
namespace {

std::string cuda_of(const Problem& p, const nlohmann::json& steps, const std::string& size) {
  Schedule s = Schedule::from_json(p.context(size), steps);
  return make_bundle(lower(s, p.name)).source;
}

class BuiltinRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(BuiltinRoundTrip, IdenticalPipelineAndCuda) {
  const Problem& p = find_problem(GetParam());
  nlohmann::json j = problem_to_json(p);
  Problem q = problem_from_json(nlohmann::json::parse(j.dump(2)), "<" + p.name + ">");
  EXPECT_EQ(problem_to_json(q), j);
  ASSERT_EQ(q.pipeline.stages().size(), p.pipeline.stages().size());
  for (size_t i = 0; i < p.pipeline.stages().size(); ++i) {
    std::string why;
    EXPECT_TRUE(same_stage(*p.pipeline.stages()[i], *q.pipeline.stages()[i], &why)) << why;
  }
  EXPECT_EQ(q.pipeline.outputs(), p.pipeline.outputs());
  ASSERT_EQ(q.pipeline.inputs().size(), p.pipeline.inputs().size());
  for (size_t i = 0; i < p.pipeline.inputs().size(); ++i) {
    EXPECT_EQ(q.pipeline.inputs()[i]->name, p.pipeline.inputs()[i]->name);
    EXPECT_EQ(q.pipeline.inputs()[i]->dtype, p.pipeline.inputs()[i]->dtype);
  }
  EXPECT_EQ(q.sizes, p.sizes);
  EXPECT_EQ(q.default_size, p.default_size);
  EXPECT_EQ(q.atol, p.atol);
  EXPECT_EQ(q.strict_rtol, p.strict_rtol);
  for (const auto& [name, sizes] : p.sizes) {
    EXPECT_EQ(q.flops(sizes), p.flops(sizes)) << name;
    EXPECT_EQ(q.min_bytes(sizes), p.min_bytes(sizes)) << name;
    for (const auto* steps : {&p.baseline_schedule, &p.best_schedule}) {
      if (steps->is_null()) continue;
      EXPECT_EQ(cuda_of(q, *steps, name), cuda_of(p, *steps, name)) << name;
    }
  }
}

std::vector<std::string> builtin_names() {
  std::vector<std::string> out;
  for (const auto& p : all_problems()) out.push_back(p.name);
  return out;
}

INSTANTIATE_TEST_SUITE_P(All, BuiltinRoundTrip, ::testing::ValuesIn(builtin_names()));

// A small valid file that each bad-file case breaks in one place.
nlohmann::json good_file() {
  return nlohmann::json::parse(R"json({
    "name": "row_sumsq", "title": "Sum of squares of each row",
    "sizes": {"small": {"R": 4, "D": 7}, "bench": {"R": 1024, "D": 999}},
    "inputs": [{"name": "X", "dtype": "f32", "shape": ["R", "D"], "distribution": {"kind": "normal", "a": 0, "b": 1}}],
    "stages": ["S(i in R) = sum(k in D: X(i, k) * X(i, k))"],
    "outputs": ["S"],
    "flops": "2.0 * R * D",
    "baseline_schedule": [{"op": "bind", "stage": "S", "loop": "i", "axis": "threadIdx.x"}]
  })json");
}

std::string load_error(const nlohmann::json& j, std::string* message = nullptr) {
  try {
    problem_from_json(j, "bad.json");
  } catch (const UserError& e) {
    EXPECT_FALSE(e.error().hint.empty()) << e.error().code;
    EXPECT_EQ(e.error().message.rfind("Problem file 'bad.json', at /", 0), 0u) << e.error().message;
    if (message) *message = e.error().message;
    return e.error().code;
  }
  return "";
}

TEST(ProblemFile, GoodFileLoads) {
  Problem p = problem_from_json(good_file(), "good.json");
  EXPECT_EQ(p.default_size, "bench");
  EXPECT_EQ(p.flops(p.size("small")), 56.0);
  EXPECT_EQ(p.pipeline.outputs(), std::vector<std::string>{"S"});
}

TEST(ProblemFile, BadFilesGiveTheirCodes) {
  struct Case {
    const char* pointer;
    nlohmann::json value;
    const char* code;
  };
  std::vector<Case> cases = {
      {"/stages/0", "S(i in R) = sum(k in D: Z(i, k))", "unknown-tensor"},
      {"/inputs/0/shape/1", "Q", "unbound-size"},
      {"/flops", "2.0 * R * Q", "unbound-size"},
      {"/stages/0", "S(i in R) = sum(k in D: X(k, i))", "shape-mismatch"},
      {"/stages/0", "S(i in R) = sum(k in D: X(i))", "wrong-index-count"},
      {"/stages/0", "S(i in R) = select(i > 0, sum(k in D: X(i - 1, k)), 0.0f)", "nested-reduction"},
      {"/stages/0", "S(i in R) = sum(k in D: X(i, k) ^ 2)", "type-error"},
      {"/inputs/0/dtype", "f31", "unknown-dtype"},
      {"/inputs/0/colour", "red", "unknown-key"},
      {"/colour", "red", "unknown-key"},
      {"/inputs/0/name", "R", "duplicate-name"},
      {"/stages/0", "S(i in R) = sum(k in D: X(i, k)", "expr-syntax"},
      {"/sizes/small/D", 0, "bad-size"},
      {"/sizes/small/D", -3, "bad-size"},
      {"/outputs/0", "T", "unknown-tensor"},
      {"/default_size", "huge", "missing-size"},
      {"/inputs/0/distribution/kind", "cauchy", "bad-distribution"},
      {"/tolerance", nlohmann::json{{"atol", -1}}, "bad-value"},
      {"/name", "row sumsq", "bad-name"},
  };
  for (const auto& c : cases) {
    nlohmann::json j = good_file();
    j[nlohmann::json::json_pointer(c.pointer)] = c.value;
    std::string message;
    EXPECT_EQ(load_error(j, &message), c.code) << c.pointer << " = " << c.value.dump() << ": " << message;
  }
}

nlohmann::json file_with_source() {
  nlohmann::json j = good_file();
  j["inputs"].push_back({{"name", "W"}, {"dtype", "f32"}, {"shape", {"D"}}});
  j["stages"][0] = "S(i in R) = sum(k in D: X(i, k) * W(k))";
  j["source"] = {{"benchmark", "KernelBench"},
                 {"file", "level1/4_Matrix_vector_multiplication_.py"},
                 {"commit", "423217d9fda91e0c2d67e4a43bf62f96f6d104f1"},
                 {"forward_args", {"X", 0.5}},
                 {"parameters", {{"W", "linear.weight"}}},
                 {"init_args", {7, 1}}};
  return j;
}

TEST(ProblemFile, SourceReadsAndRoundTrips) {
  Problem p = problem_from_json(file_with_source(), "source.json");
  ASSERT_TRUE(p.source.has_value());
  EXPECT_EQ(p.source->benchmark, "KernelBench");
  EXPECT_EQ(p.source->file, "level1/4_Matrix_vector_multiplication_.py");
  EXPECT_EQ(p.source->forward_args, (nlohmann::json{"X", 0.5}));
  EXPECT_EQ(p.source->parameters.at("W"), "linear.weight");
  EXPECT_EQ(p.source->init_args, (nlohmann::json{7, 1}));
  nlohmann::json written = problem_to_json(p);
  EXPECT_EQ(written["source"], file_with_source()["source"]);
  Problem again = problem_from_json(written, "again.json");
  EXPECT_EQ(problem_to_json(again), written);

  nlohmann::json j = file_with_source();
  j["source"].erase("init_args");
  j["source"].erase("parameters");
  j["source"]["forward_args"] = {"X", "W"};
  Problem bare = problem_from_json(j, "bare.json");
  EXPECT_TRUE(bare.source->init_args.is_null());
  EXPECT_FALSE(problem_to_json(bare)["source"].contains("init_args"));
  EXPECT_FALSE(problem_from_json(good_file(), "none.json").source.has_value());
  EXPECT_FALSE(problem_to_json(problem_from_json(good_file(), "none.json")).contains("source"));
}

TEST(ProblemFile, ModeAndConstantOutputReadAndRoundTrip) {
  nlohmann::json j = file_with_source();
  EXPECT_EQ(problem_from_json(j, "train.json").source->mode, "train");
  EXPECT_TRUE(problem_from_json(j, "train.json").constant_output.empty());
  EXPECT_FALSE(problem_to_json(problem_from_json(j, "train.json"))["source"].contains("mode"));
  EXPECT_FALSE(problem_to_json(problem_from_json(j, "train.json")).contains("constant_output"));
  j["source"]["mode"] = "eval";
  j["constant_output"] = "The output is 0 for every input.";
  Problem p = problem_from_json(j, "eval.json");
  EXPECT_EQ(p.source->mode, "eval");
  EXPECT_EQ(p.constant_output, "The output is 0 for every input.");
  nlohmann::json written = problem_to_json(p);
  EXPECT_EQ(written["source"]["mode"], "eval");
  EXPECT_EQ(written["constant_output"], "The output is 0 for every input.");
  EXPECT_EQ(problem_to_json(problem_from_json(written, "again.json")), written);
}

TEST(ProblemFile, MalformedSourcesPointAtTheBadValue) {
  struct Case {
    const char* pointer;
    nlohmann::json value;
    const char* code;
    const char* where;
  };
  std::vector<Case> cases = {
      {"/source/commit", "423217d9", "bad-source", "/source/commit"},
      {"/source/commit", "423217D9FDA91E0C2D67E4A43BF62F96F6D104F1", "bad-source", "/source/commit"},
      {"/source/file", "/abs/path.py", "bad-source", "/source/file"},
      {"/source/benchmark", "", "bad-source", "/source/benchmark"},
      {"/source/forward_args", nlohmann::json{"X", "Q"}, "bad-source", "/source/forward_args/1"},
      {"/source/forward_args", nlohmann::json{"X", true}, "bad-source", "/source/forward_args/1"},
      {"/source/forward_args", nlohmann::json{"X", "W"}, "bad-source", "/source/parameters/W"},
      {"/source/forward_args", nlohmann::json::array(), "bad-source", "at /source:"},
      {"/source/parameters", nlohmann::json{{"W", "linear weight"}}, "bad-source", "/source/parameters/W"},
      {"/source/parameters", nlohmann::json{{"W", 3}}, "bad-value", "/source/parameters/W"},
      {"/source/forward_args", "X", "bad-value", "/source/forward_args"},
      {"/source/init_args", nlohmann::json{{"a", 1}}, "bad-value", "/source/init_args"},
      {"/source/colour", "red", "unknown-key", "/source/colour"},
      {"/source", "KernelBench", "bad-value", "/source"},
      {"/source/mode", "inference", "bad-source", "/source/mode"},
      {"/source/mode", 1, "bad-value", "/source/mode"},
      {"/constant_output", false, "bad-value", "/constant_output"},
  };
  for (const auto& c : cases) {
    nlohmann::json j = file_with_source();
    j[nlohmann::json::json_pointer(c.pointer)] = c.value;
    std::string message;
    EXPECT_EQ(load_error(j, &message), c.code) << c.pointer << " = " << c.value.dump() << ": " << message;
    EXPECT_NE(message.find(c.where), std::string::npos) << message;
  }
  nlohmann::json j = file_with_source();
  j["source"].erase("commit");
  EXPECT_EQ(load_error(j), "missing-key");
}

TEST(ProblemFile, StructuralErrors) {
  nlohmann::json j = good_file();
  j["stages"].push_back("S(i in R) = X(i, 0)");
  EXPECT_EQ(load_error(j), "duplicate-name");
  j = good_file();
  j["stages"].push_back("T(i in R) = X(i, 0)");
  EXPECT_EQ(load_error(j), "unused-stage");
  j = good_file();
  j["inputs"].push_back({{"name", "W"}, {"dtype", "f32"}, {"shape", {"D"}}});
  EXPECT_EQ(load_error(j), "unused-input");
  j = good_file();
  j["sizes"]["bench"].erase("D");
  EXPECT_EQ(load_error(j), "unbound-size");
  j = good_file();
  j["sizes"].erase("small");
  EXPECT_EQ(load_error(j), "missing-size");
  j = good_file();
  j.erase("stages");
  EXPECT_EQ(load_error(j), "missing-key");
}

TEST(ProblemFile, ErrorPointsAtLineAndColumnInsideAStage) {
  nlohmann::json j = good_file();
  j["stages"][0] = "S(i in R) = sum(k in D: X(i, k) * Y(i, k))";
  std::string message;
  EXPECT_EQ(load_error(j, &message), "unknown-tensor");
  EXPECT_NE(message.find("/stages/0"), std::string::npos) << message;
  EXPECT_NE(message.find("column 35"), std::string::npos) << message;
}

TEST(ProblemFile, FilesOnDiskAndUnreadableFiles) {
  std::string path = std::string(CUSCHED_TEST_BINARY_DIR) + "/row_sumsq.json";
  {
    std::ofstream out(path);
    out << good_file().dump(2);
  }
  EXPECT_EQ(load_problem_file(path).name, "row_sumsq");
  try {
    load_problem_file(path + ".missing");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(e.error().code, "unreadable-problem-file");
  }
  {
    std::ofstream out(path);
    out << "{\"name\": ";
  }
  try {
    load_problem_file(path);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(e.error().code, "bad-json");
  }
}

}  // namespace
}  // namespace cusched
