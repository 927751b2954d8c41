#include "search/steered_kernel.h"

#include "dsl/schedule.h"

namespace cusched::search {

AddedCandidate add_kernel_candidate(Store& store, const Problem& problem, int64_t run, int64_t round, int64_t idea,
                                    const nlohmann::json& payload) {
  auto dim = [&](const char* key) {
    std::array<int64_t, 3> d{1, 1, 1};
    for (size_t i = 0; i < 3 && i < payload[key].size(); ++i) d[i] = payload[key][i].get<int64_t>();
    return d;
  };
  const std::string source = payload.value("source", "");
  KernelBundle b = handwritten_bundle(problem, source, payload.value("size", "bench"),
                                      parse_precision(payload.value("precision", "f32")), dim("grid"), dim("block"),
                                      payload.value("dynamic_smem", int64_t{0}));
  std::string hash = "kernel-" + schedule_hash(nlohmann::json::array({source, b.to_json()}));
  AddedCandidate added = store.add_candidate({run, round, idea, std::nullopt, nlohmann::json::array(), hash});
  if (added.is_new) store.save_artifacts(added.id, {b.source, "", b.to_json(), nlohmann::json::array(), nullptr});
  return added;
}

CandidateOutcome prepare_kernel_candidate(const Problem& problem, const Store& store, const CandidateRecord& c,
                                          const EvalConfig& cfg) {
  CandidateOutcome out;
  out.schedule_hash = c.schedule_hash;
  out.steps = nlohmann::json::array();
  auto a = store.artifacts(c.id);
  if (!a || a->kernel_bundle.is_null()) {
    out.verdict = runtime::Verdict::rejected;
    out.reason = "The hand-written kernel's bundle is missing from the store.";
    return out;
  }
  try {
    out.bundle = KernelBundle::from_json(a->kernel_bundle);
  } catch (const std::exception& e) {
    out.verdict = runtime::Verdict::rejected;
    out.reason = std::string("The hand-written kernel's stored bundle does not read back: ") + e.what();
    return out;
  }
  out.precision = out.bundle.precision;
  out.ir_text = "(a hand-written kernel has no loop IR)";
  if (cfg.audit) {
    bool bad = false;
    out.audit_findings = audit_bundle(problem, out.bundle, &bad, &out.audit_ms);
    if (bad) {
      out.verdict = runtime::Verdict::audit_rejected;
      out.reason = "The audit found an error-level problem in the kernel.";
      return out;
    }
  }
  scan_compiled_kernel(out.bundle, out);
  if (!out.verdict && cfg.backend == "interp") {
    out.verdict = runtime::Verdict::no_gpu;
    out.reason =
        "The audit and the precision scan passed; a hand-written kernel is verified and timed on a GPU only (the "
        "interpreter runs schedules), so it is not ranked in this run.";
  }
  return out;
}

}  // namespace cusched::search
