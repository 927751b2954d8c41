#include "search/stall_diagnosis.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>

#include "codegen/kernel_bundle.h"
#include "search/cost_model.h"
#include "search/floor_share.h"

namespace cusched::search {
namespace {

using nlohmann::json;

// Theoretical occupancy of one kernel on an sm_90 multiprocessor (resident_blocks).
double occupancy(int64_t threads, int registers, int64_t smem_bytes) {
  if (threads <= 0) return 0;
  return static_cast<double>(resident_blocks(threads, registers, smem_bytes) * ((threads + 31) / 32)) / 64.0;
}

std::optional<double> score_of(const EvaluationRecord& e, bool by_cost) {
  if (!e.verified) return std::nullopt;
  return by_cost ? e.cost_estimate : e.median_ms;
}
}  // namespace

json candidate_resources(const Store& store, int64_t candidate) {
  auto e = store.evaluation(candidate);
  const json* kernels = nullptr;
  if (e && e->result.is_object() && e->result.contains("gpu")) {
    const json& g = e->result["gpu"];
    if (g.contains("compile_report") && g["compile_report"].contains("candidate") &&
        g["compile_report"]["candidate"].contains("kernels"))
      kernels = &g["compile_report"]["candidate"]["kernels"];
  }
  if (!kernels || !kernels->is_array() || kernels->empty())
    return {{"available", false},
            {"why", e && e->backend == "interp"
                        ? "The candidate was verified in the CPU interpreter: ptxas never compiled it, so registers, "
                          "spills and occupancy are not known. Run `cusched run` on a GPU for them."
                        : "The evaluation kept no ptxas report."}};
  std::map<std::string, LaunchSpec> launches;
  if (auto a = store.artifacts(candidate); a && !a->kernel_bundle.is_null()) {
    try {
      for (const auto& l : KernelBundle::from_json(a->kernel_bundle).launches) launches[l.kernel] = l;
    } catch (const std::exception&) {
      // A bundle that does not read back leaves occupancy unknown.
    }
  }
  json out = json::array();
  for (const auto& k : *kernels) {
    json r = {{"kernel", k.value("kernel", "")},
              {"registers", k.value("registers", 0)},
              {"spill_store_bytes", k.value("spill_store_bytes", 0)},
              {"spill_load_bytes", k.value("spill_load_bytes", 0)},
              {"static_smem_bytes", k.value("smem_bytes", 0)}};
    auto it = launches.find(r["kernel"].get<std::string>());
    if (it != launches.end()) {
      const auto& b = it->second.block;
      int64_t threads = b[0] * b[1] * b[2];
      int64_t smem = r["static_smem_bytes"].get<int64_t>() + it->second.dynamic_smem_bytes;
      r["threads_per_block"] = threads;
      r["dynamic_smem_bytes"] = it->second.dynamic_smem_bytes;
      r["occupancy"] = occupancy(threads, r["registers"].get<int>(), smem);
    }
    out.push_back(r);
  }
  return {{"available", true}, {"kernels", out}};
}

json diagnose_stall(const Store& store, const Problem& problem, int64_t run, const StallFinding& finding, int recent) {
  auto info = store.find_run(run);
  const bool by_cost = info && info->backend == "interp";
  json d = {{"reason", finding.reason}, {"rounds", {finding.first_round + 1, finding.last_round + 1}}};
  d["time_unit"] = by_cost ? "ms (cost model estimate at the bench size)" : "ms (GPU median)";

  auto top = store.leaderboard(run, 1);
  if (top.empty()) {
    d["best"] = nullptr;
  } else {
    const auto& b = top[0];
    double ms = *score_of(b.evaluation, by_cost);
    json best = {{"candidate", b.candidate.id}, {"ms", ms}, {"idea", b.candidate.idea_text}};
    std::string size = by_cost ? "bench" : (info ? info->size : "bench");
    double bw = 0;
    if (!by_cost && b.evaluation.result.contains("gpu"))
      bw = b.evaluation.result["gpu"].value("copy_bandwidth_gbs", 0.0) * 1e9;
    try {
      best["floor"] = floor_share(problem, size, b.evaluation.precision, ms, bw).to_json();
      best["floor"]["size"] = size;
    } catch (const std::exception&) {
      best["floor"] = nullptr;
    }
    best["resources"] = candidate_resources(store, b.candidate.id);
    d["best"] = best;
  }

  // Candidates, their rounds and scores.
  std::map<int64_t, CandidateRecord> cands;
  for (auto& c : store.candidates(run)) cands[c.id] = c;
  std::map<int64_t, EvaluationRecord> evals;
  for (auto& e : store.evaluations(run)) evals[e.candidate] = e;

  json rejections = json::array();
  const int from = std::max(finding.last_round - recent + 1, 0);
  for (auto it = evals.rbegin(); it != evals.rend() && rejections.size() < 12; ++it) {
    const auto& e = it->second;
    const auto& c = cands[e.candidate];
    if (e.verified || c.round_index < from) continue;
    rejections.push_back({{"round", c.round_index + 1},
                          {"candidate", c.id},
                          {"verdict", e.verdict},
                          {"reason", e.reason.substr(0, 300)}});
  }
  d["rejections"] = rejections;

  // Ideas in round order: each one's best against the best of the rounds before it.
  struct IdeaStats {
    int round = 0;
    std::string text, source;
    int candidates = 0, verified = 0;
    std::optional<double> best;
  };
  std::map<int64_t, IdeaStats> ideas;
  std::map<int, std::optional<double>> best_of_round;
  for (const auto& [id, c] : cands) {
    if (!c.idea) continue;
    IdeaStats& s = ideas[*c.idea];
    s.round = c.round_index;
    s.text = c.idea_text;
    s.source = c.idea_source;
    ++s.candidates;
    auto e = evals.find(id);
    if (e == evals.end()) continue;
    auto v = score_of(e->second, by_cost);
    if (!v) continue;
    ++s.verified;
    if (!s.best || *v < *s.best) s.best = v;
    auto& r = best_of_round[c.round_index];
    if (!r || *v < *r) r = v;
  }
  json idea_list = json::array();
  for (const auto& [id, s] : ideas) {
    std::optional<double> before;
    for (const auto& [r, v] : best_of_round)
      if (r < s.round && v && (!before || *v < *before)) before = v;
    json j = {{"round", s.round + 1},
              {"idea", s.text},
              {"source", s.source},
              {"candidates", s.candidates},
              {"verified", s.verified}};
    j["best_ms"] = s.best ? json(*s.best) : json();
    if (s.best && before && *before > 0)
      j["gain_pct"] = (*before - *s.best) / *before * 100;
    else
      j["gain_pct"] = nullptr;  // the first round, or nothing verified
    idea_list.push_back(j);
  }
  d["ideas"] = idea_list;
  return d;
}

}  // namespace cusched::search
