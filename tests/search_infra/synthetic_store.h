#pragma once
// A small store with three rounds, verified and failed candidates, artifacts
// with audit findings, and parents, for the report tests.
#include <filesystem>
#include <string>

#include <unistd.h>

#include "search/store.h"

namespace cusched::search::testing {

inline std::string fresh_path(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("cusched_report_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  auto p = dir / name;
  // remove_all: a test that made a folder here leaves it; a later process with the same
  // pid (they are reused) must find the name free, not fail on a non-empty folder.
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove_all(p.string() + suffix);
  return p.string();
}

struct SyntheticRun {
  int64_t run = 0;
  int64_t base = 0, faster = 0, fastest = 0, wrong = 0, rejected = 0;
};

inline EvaluationRecord ok_eval(int64_t cand, double ms) {
  EvaluationRecord e;
  e.candidate = cand;
  e.verdict = "ok";
  e.verified = true;
  e.median_ms = ms;
  e.min_ms = ms * 0.95;
  e.max_ms = ms * 1.2;
  e.pct_of_floor = 50 / ms;
  e.precision = "f32";
  e.backend = "gpu";
  return e;
}

inline SyntheticRun fill_synthetic(Store& s) {
  SyntheticRun r;
  RunInfo info;
  info.problem = "softmax<script>";
  info.size = "small";
  info.seed = 3;
  info.config = {{"rounds", 3}, {"proposer", "llm"}};
  r.run = s.create_run(info);
  auto sched = [](int f) { return nlohmann::json::array({{{"op", "split"}, {"loop", "i"}, {"factor", f}}}); };
  int64_t r0 = s.begin_round(r.run, 0), r1 = s.begin_round(r.run, 1), r2 = s.begin_round(r.run, 2);
  int64_t i0 = s.add_idea(r0, "baseline: one thread per row", "builtin");
  int64_t i1 = s.add_idea(r1, "use <warp> shuffles & vector loads", "llm");
  r.base = s.add_candidate({r.run, r0, i0, std::nullopt, sched(32), ""}).id;
  r.faster = s.add_candidate({r.run, r1, i1, r.base, sched(64), ""}).id;
  r.wrong = s.add_candidate({r.run, r1, i1, r.base, sched(128), ""}).id;
  r.fastest = s.add_candidate({r.run, r2, i1, r.faster, sched(256), ""}).id;
  r.rejected = s.add_candidate({r.run, r2, i1, std::nullopt, sched(512), ""}).id;
  const std::string src0 = "extern \"C\" __global__ void k(float* y) {\n  int i = threadIdx.x;\n  y[i] = 0;\n}\n";
  const std::string src1 =
      "extern \"C\" __global__ void k(float* y) {\n  int i = blockIdx.x * 64 + threadIdx.x;\n  y[i] = 0;\n}\n";
  s.save_artifacts(r.base, {src0, "ir", nullptr, nlohmann::json::array(), nullptr});
  s.save_artifacts(
      r.faster,
      {src1, "ir", nullptr,
       nlohmann::json::array(
           {{{"line", 2}, {"severity", "warning"}, {"rule", "uncoalesced-access"}, {"message", "stride <64> & more"}}}),
       nullptr});
  s.save_artifacts(r.fastest, {src1 + "// tuned\n", "ir", nullptr, nlohmann::json::array(), nullptr});
  s.save_evaluation(ok_eval(r.base, 4.0));
  s.save_evaluation(ok_eval(r.faster, 2.5));
  s.save_evaluation(ok_eval(r.fastest, 1.25));
  EvaluationRecord w;
  w.candidate = r.wrong;
  w.verdict = "wrong_output";
  w.reason = "max abs error 0.5 > atol at (3, 7)";
  w.precision = "f32";
  w.backend = "gpu";
  s.save_evaluation(w);
  s.reject(r.rejected, "bad-factor", "factor 512 exceeds the block size");
  s.finish_round(r0, 0, 0);
  s.finish_round(r1, 1000, 200);
  s.finish_round(r2, 1500, 300);
  return r;
}

}  // namespace cusched::search::testing
