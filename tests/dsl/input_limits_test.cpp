// Limits on inputs and the names rule: every input past a limit, and every name that
// would become broken C++, is a structured error, not a crash, a hang or silence.
#include "dsl/input_limits.h"

#include <sstream>

#include <gtest/gtest.h>

#include "dsl/names.h"
#include "dsl/primitives/tensor_core_tile.h"
#include "dsl/schedule.h"
#include "problems/problem.h"

namespace cusched {
namespace {

std::string code_of_parse(const std::string& text) {
  try {
    parse_json_input(text, "The test document", "fix it");
  } catch (const UserError& e) {
    EXPECT_FALSE(e.error().message.empty());
    EXPECT_FALSE(e.error().hint.empty()) << e.error().code;
    return e.error().code;
  }
  return "ok";
}

std::string code_of_schedule(const nlohmann::json& steps, const std::string& size = "small") {
  try {
    Schedule::from_json(find_problem("matmul").context(size), steps);
  } catch (const UserError& e) {
    return e.error().code;
  }
  return "ok";
}

TEST(JsonInput, RefusesDepthNumbersDuplicatesAndBadText) {
  EXPECT_EQ(code_of_parse(std::string(1000000, '[') + std::string(1000000, ']')), "json-too-deep");
  EXPECT_EQ(code_of_parse(std::string(kMaxJsonDepth + 1, '[') + std::string(kMaxJsonDepth + 1, ']')), "json-too-deep");
  EXPECT_EQ(code_of_parse(std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']')), "ok");
  EXPECT_EQ(code_of_parse("[\"[[[[[[\"]"), "ok") << "brackets inside strings do not count";
  EXPECT_EQ(code_of_parse("[1e400]"), "json-number-out-of-range");
  EXPECT_EQ(code_of_parse("{\"a\": 1, \"a\": 2}"), "duplicate-json-key");
  EXPECT_EQ(code_of_parse("[{\"a\": 1}, {\"a\": 2}]"), "ok") << "the same key in two objects is fine";
  EXPECT_EQ(code_of_parse("{\"a\": {\"b\": 1}, \"b\": 2}"), "ok");
  EXPECT_EQ(code_of_parse("[\"\xff\"]"), "bad-json");
  EXPECT_EQ(code_of_parse(""), "bad-json");
  EXPECT_EQ(code_of_parse(std::string(kMaxJsonBytes + 1, ' ')), "json-too-large");
}

TEST(JsonInput, ErrorsQuotingInvalidUtf8PrintAsJson) {
  try {
    parse_json_input("[\"spl\xff\"", "The schedule", "fix it");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NO_THROW(e.error().to_json().dump());
  }
  EXPECT_EQ(valid_utf8("a\xff"
                       "b\xc3\xa9"),
            "a?b\xc3\xa9");
  EXPECT_EQ(valid_utf8("\xed\xa0\x80"), "???");
}

// The code of the error that `read` raises, "ok" when it raises none.
template <typename Read>
std::string code_of_read(Read read) {
  try {
    read();
  } catch (const UserError& e) {
    EXPECT_FALSE(e.error().hint.empty()) << e.error().code;
    return e.error().code;
  }
  return "ok";
}

TEST(JsonInput, BoundedReadsStop) {
  std::istringstream endless(std::string(1000, 'x'));
  EXPECT_EQ(code_of_read([&] { read_bounded(endless, 100, "The input"); }), "input-too-large");
  std::istringstream small("abc");
  EXPECT_EQ(read_bounded(small, 100, "The input"), "abc");
}

TEST(JsonInput, FileReadsNameWhatIsWrongWithThePath) {
  EXPECT_EQ(code_of_read([] { read_file_bounded("/nonexistent/cusched/schedule.json", 100, "The schedule file"); }),
            "unreadable-file");
  EXPECT_EQ(code_of_read([] { read_file_bounded("/tmp", 100, "The schedule file"); }), "not-a-file");
}

TEST(Names, KeywordsBuiltinsAndGeneratedNamesAreRefused) {
  for (const char* n :
       {"int", "float", "threadIdx", "blockDim", "cusched_smem", "k0_C", "__x", "_Big", "expf", "9a", "a b", ""})
    EXPECT_TRUE(name_error(n, "a copy").has_value()) << n;
  EXPECT_TRUE(name_error(std::string(kMaxNameLength + 1, 'a'), "a copy").has_value());
  for (const char* n : {"A_shared", "io", "ii", "k", "ko", "kt", "x_1", "Y", "keep", "k_", "integer"})
    EXPECT_FALSE(name_error(n, "a copy").has_value()) << n;
}

TEST(Names, ScheduleStepsApplyTheRule) {
  using nlohmann::json;
  EXPECT_EQ(code_of_schedule(json::array({{{"op", "cache_read"},
                                           {"stage", "C"},
                                           {"source", "A"},
                                           {"scope", "shared"},
                                           {"at", "i"},
                                           {"name", "int"}}})),
            "bad-name");
  EXPECT_EQ(code_of_schedule(
                json::array({{{"op", "split"}, {"stage", "C"}, {"loop", "i"}, {"factor", 4}, {"outer", "threadIdx"}}})),
            "bad-name");
  EXPECT_EQ(
      code_of_schedule(json::array({{{"op", "split"}, {"stage", "C"}, {"loop", "i"}, {"factor", 4}, {"outer", "io"}}})),
      "ok");
}

TEST(ScheduleLimits, HugeIntegersAndLongChainsAreRefused) {
  using nlohmann::json;
  for (json f : {json(int64_t{1} << 62), json(INT64_MAX), json(uint64_t{1} << 63), json(UINT64_MAX), json(INT64_MIN)})
    EXPECT_EQ(code_of_schedule(json::array({{{"op", "split"}, {"stage", "C"}, {"loop", "i"}, {"factor", f}}})),
              "argument-out-of-range")
        << f;
  json chain = json::array();
  for (size_t n = 0; n <= kMaxScheduleSteps; ++n)
    chain.push_back({{"op", "reorder"}, {"stage", "C"}, {"loops", n % 2 ? json{"i", "j"} : json{"j", "i"}}});
  EXPECT_EQ(code_of_schedule(chain), "too-many-steps");
  chain.erase(chain.end() - 1);
  EXPECT_EQ(code_of_schedule(chain), "ok");
}

TEST(TensorCoreTile, AWarpTileBeyondTheRegistersIsRefusedAtTheStep) {
  using nlohmann::json;
  json tc = {{"op", "tensor_core"}, {"stage", "C"}, {"shape", "m16n8k8"}, {"precision", "tf32"}};
  EXPECT_EQ(code_of_schedule(json::array({tc}), "bench"), "tensor-core-tile-too-large");
  try {
    require_lowerable_tensor_core_tile("C", "m16n8k8", 64, 32, false);
    ADD_FAILURE() << "an unsplit reduction must be refused";
  } catch (const UserError& e) {
    EXPECT_EQ(e.error().code, "tensor-core-reduction-not-split");
  }
  EXPECT_NO_THROW(require_lowerable_tensor_core_tile("C", "m16n8k8", 64, 32, true));
  EXPECT_NO_THROW(require_lowerable_tensor_core_tile("C", "m64nNk8", 64, 256, true));
  EXPECT_THROW(require_lowerable_tensor_core_tile("C", "m64nNk8", 128, 512, true), UserError);
  EXPECT_EQ(
      code_of_schedule(json::array({{{"op", "split"}, {"stage", "C"}, {"loop", "k"}, {"factor", 8}}, tc}), "bench"),
      "tensor-core-tile-too-large");
}

}  // namespace
}  // namespace cusched
