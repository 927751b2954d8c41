#pragma once
// The code of the UserError that `f` throws ("" when it throws none); the error's
// message goes to `message` when given. Every such error must carry a message and a
// hint that names the fix.
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "dsl/error.h"

namespace cusched::test {

inline std::string error_code(const std::function<void()>& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const UserError& e) {
    EXPECT_FALSE(e.error().message.empty()) << e.error().code;
    EXPECT_FALSE(e.error().hint.empty()) << e.error().code;
    if (message) *message = e.error().message;
    return e.error().code;
  }
  return "";
}

}  // namespace cusched::test
