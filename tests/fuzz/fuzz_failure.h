#pragma once
// What the fuzz targets share: how a found bug is reported (a message on stderr, then
// an abort, which libFuzzer records with the input), and the expected answer to bad
// input, a structured error.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "dsl/error.h"

namespace cusched::fuzz {

[[noreturn]] inline void bug(const char* target, const std::string& what, const std::string& detail) {
  std::fprintf(stderr, "%s fuzz: %s\n%s\n", target, what.c_str(), detail.c_str());
  std::abort();
}

// Runs `call`; a UserError is a good answer, any other exception a bug of `what`.
template <typename Call>
void only_structured_errors(const char* target, const std::string& what, Call&& call) {
  try {
    call();
  } catch (const UserError&) {
  } catch (const std::exception& e) {
    bug(target, what + " threw something other than a structured error", e.what());
  }
}

}  // namespace cusched::fuzz
