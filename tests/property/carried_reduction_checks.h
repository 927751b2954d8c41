#pragma once
// What the tests of the reductions that carry several values (logsumexp, variance) check
// alike: an integer body is refused with the reduction's code, and each schedule verifies
// in the interpreter and compiles with NVRTC for sm_90a, calling the device library's
// combine where it combines across threads.
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "codegen/bundle.h"
#include "codegen/lower.h"
#include "dsl/dsl.h"
#include "runtime/interp_verification.h"
#include "runtime/nvrtc_compiler.h"

namespace cusched {

inline void expect_integer_body_refused(Expr (*make)(const RVar&, Expr), const std::string& code) {
  Size D("D");
  Tensor I("I", DType::i32, {D});
  RVar k("k", D);
  try {
    make(k, I(k));
    ADD_FAILURE() << "an integer body was accepted";
  } catch (const UserError& e) {
    EXPECT_EQ(e.error().code, code);
  }
}

using NamedSchedules = std::vector<std::pair<std::string, nlohmann::json>>;

// Each schedule verifies at the small size (seed 7, four trials or more) and compiles at
// the sizes `sizes_of` gives for it; those in `combined` call `device_op` in their CUDA.
inline void expect_verifies_and_compiles(const Problem& p, const NamedSchedules& schedules,
                                         const std::function<std::vector<std::string>(const std::string&)>& sizes_of,
                                         const std::string& device_op, const std::set<std::string>& combined) {
  for (const auto& [name, steps] : schedules) {
    SCOPED_TRACE(name);
    runtime::InterpVerification v =
        runtime::verify_with_interpreter(p, Schedule::from_json(p.context("small"), steps), "small", 7);
    EXPECT_EQ(v.verdict, runtime::Verdict::ok) << v.message << " " << v.error.to_string();
    EXPECT_GE(v.trials, 4);
    for (const std::string& size : sizes_of(name)) {
      KernelBundle b = make_bundle(lower(Schedule::from_json(p.context(size), steps), p.name));
      runtime::CompileOptions o;
      o.arch = "sm_90a";
      EXPECT_GT(runtime::compile_bundle(b, o).cubin.size(), 1000u) << size;
      if (combined.count(name)) {
        EXPECT_NE(b.source.find(device_op), std::string::npos) << b.source;
      }
    }
  }
}

}  // namespace cusched
