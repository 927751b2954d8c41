// The FNV-1a hash against the published 64-bit test vectors.
#include "dsl/fnv_hash.h"

#include <gtest/gtest.h>

#include "dsl/schedule.h"

namespace cusched {

TEST(Fnv1a, MatchesPublishedVectors) {
  EXPECT_EQ(fnv1a(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a("foobar"), 0x85944171f73967e8ULL);
}

TEST(Fnv1a, HexIsSixteenLowerCaseDigits) {
  EXPECT_EQ(fnv1a_hex(""), "cbf29ce484222325");
  EXPECT_EQ(fnv1a_hex("a"), "af63dc4c8601ec8c");
}

TEST(Fnv1a, ContinuingEqualsHashingTheConcatenation) {
  uint64_t h = fnv1a(kFnv1aOffsetBasis, "foo", 3);
  EXPECT_EQ(fnv1a(h, "bar", 3), fnv1a("foobar"));
}

TEST(ScheduleHash, IsTheHashOfTheJsonTextFromTheScheduleBasis) {
  nlohmann::json steps = nlohmann::json::parse(R"([{"op": "split", "stage": "C", "loop": "i", "factor": 4}])");
  EXPECT_EQ(schedule_hash(steps), fnv1a_hex(steps.dump(), kScheduleHashBasis));
  EXPECT_EQ(schedule_hash(steps).size(), 16u);
}

TEST(ScheduleHash, DoesNotDependOnKeyOrder) {
  nlohmann::json a = nlohmann::json::parse(R"([{"op": "unroll", "stage": "C", "loop": "k"}])");
  nlohmann::json b = nlohmann::json::parse(R"([{"loop": "k", "stage": "C", "op": "unroll"}])");
  EXPECT_EQ(schedule_hash(a), schedule_hash(b));
  nlohmann::json c = nlohmann::json::parse(R"([{"op": "unroll", "stage": "C", "loop": "j"}])");
  EXPECT_NE(schedule_hash(a), schedule_hash(c));
}

}  // namespace cusched
