#pragma once
// Limits on what a person, script or agent can hand to cusched, and the readers that
// apply them. Every limit that is exceeded is answered with a structured error
// (dsl/error.h) naming the limit; none of these readers crashes or waits forever.
#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace cusched {

// Bytes of one JSON document (schedule, problem file, proposal, reply).
constexpr size_t kMaxJsonBytes = size_t{16} << 20;
// Nesting of arrays and objects in one JSON document.
constexpr int kMaxJsonDepth = 64;
// Steps of one schedule.
constexpr size_t kMaxScheduleSteps = 256;
// Largest absolute value of an integer argument of a step.
constexpr int64_t kMaxStepInteger = (int64_t{1} << 31) - 1;
// Bytes of a .cu file given to `audit` or `check`.
constexpr size_t kMaxSourceBytes = size_t{8} << 20;

// Reads all of `in`, at most `limit` bytes; more is the error "input-too-large".
// `what` names the input in the message ("The schedule on standard input").
std::string read_bounded(std::istream& in, size_t limit, const std::string& what);
// Reads the file at `path` the same way; a missing or unreadable file is "unreadable-file",
// a directory or other non-regular file is "not-a-file".
std::string read_file_bounded(const std::string& path, size_t limit, const std::string& what);

// Parses one JSON document. Besides syntax (code "bad-json"), refuses: more than
// kMaxJsonBytes ("json-too-large"), nesting deeper than kMaxJsonDepth ("json-too-deep"),
// a number beyond double range ("json-number-out-of-range") and an object that names
// a key twice ("duplicate-json-key"). `what` names the document ("The schedule");
// `hint` is the fix given with a syntax error.
nlohmann::json parse_json_input(std::string_view text, const std::string& what, const std::string& hint);

// `text` with every byte sequence that is not valid UTF-8 replaced by '?', so that
// any message can be printed as JSON.
std::string valid_utf8(std::string_view text);

}  // namespace cusched
