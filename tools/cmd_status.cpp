// `cusched status DB`: where a search stands (round, evaluated, best so far and its
// curve, time per candidate, goal, steering, stalls), read while the search writes.
#include <chrono>
#include <cmath>
#include <ctime>
#include <iostream>
#include <sstream>
#include <thread>

#include "search/review.h"
#include "search/run_outcome_store.h"
#include "search/search_status.h"
#include "search/steering.h"
#include "search/store.h"
#include "tools/command.h"
#include "tools/flag_checks.h"
#include "tools/problem_source.h"
#include "tools/schedule_source.h"

namespace cusched::tools {
namespace {

using nlohmann::json;

struct StatusCommandOptions {
  std::string db;
  int64_t run = 0;
  bool json = false, watch = false;
  double interval = 2;
};

// Seconds since the epoch of a store timestamp (UTC, ISO 8601), NaN when it does not read.
double seconds_of(const std::string& t) {
  std::tm tm{};
  int ms = 0;
  if (std::sscanf(t.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &tm.tm_sec, &ms) < 6)
    return NAN;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<double>(timegm(&tm)) + ms / 1000.0;
}

// Lower is better: the lowest value gets the lowest block.
std::string sparkline(const std::vector<std::optional<double>>& values) {
  static const char* kBlocks[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& v : values)
    if (v) lo = std::min(lo, *v), hi = std::max(hi, *v);
  std::string out;
  for (const auto& v : values) {
    if (!v) {
      out += "·";
      continue;
    }
    int k = hi > lo ? static_cast<int>(std::lround((*v - lo) / (hi - lo) * 7)) : 0;
    out += kBlocks[std::clamp(k, 0, 7)];
  }
  return out;
}

json status_json(const search::Store& store, const search::RunInfo& run) {
  const bool interp = run.backend == "interp";
  json j = {{"ok", true}, {"run", run.id}, {"problem", run.problem}, {"backend", run.backend}, {"size", run.size}};
  j["status"] = run.status;
  j["proposer"] = run.config.value("proposer", "");
  j["time_unit"] = interp ? "ms (cost model estimate at the bench size, not measured)" : "ms (GPU median)";
  auto rounds = store.round_summaries(run.id);
  int finished = 0, candidates = 0, evaluated = 0, verified = 0, rejected = 0;
  double busy_s = 0;
  int timed = 0;
  json curve = json::array();
  std::vector<std::optional<double>> best_curve;
  for (const auto& r : rounds) {
    finished += !r.round.finished.empty();
    candidates += r.candidates;
    evaluated += r.evaluated;
    verified += r.verified;
    rejected += r.evaluated - r.verified;
    json c = {{"round", r.round.index + 1},
              {"candidates", r.candidates},
              {"evaluated", r.evaluated},
              {"verified", r.verified},
              {"finished", !r.round.finished.empty()}};
    c["best_in_round_ms"] = r.best_in_round ? json(*r.best_in_round) : json();
    c["best_so_far_ms"] = r.best_so_far ? json(*r.best_so_far) : json();
    curve.push_back(c);
    best_curve.push_back(r.best_so_far);
    if (!r.round.finished.empty() && r.evaluated > 0) {
      double d = seconds_of(r.round.finished) - seconds_of(r.round.started);
      if (std::isfinite(d)) busy_s += d, timed += r.evaluated;
    }
  }
  j["rounds_planned"] = run.config.value("rounds", 0);
  j["rounds_finished"] = finished;
  j["round"] = rounds.empty() ? 0 : rounds.back().round.index + 1;
  j["round_in_progress"] = !rounds.empty() && rounds.back().round.finished.empty();
  j["candidates"] = candidates;
  j["evaluated"] = evaluated;
  j["verified"] = verified;
  j["rejected"] = rejected;
  j["seconds_per_candidate"] = timed ? json(busy_s / timed) : json();
  j["curve"] = curve;
  j["sparkline"] = sparkline(best_curve);
  auto top = store.leaderboard(run.id, 1);
  if (!top.empty()) {
    const auto& e = top[0].evaluation;
    std::optional<double> ms = interp ? e.cost_estimate : e.median_ms;
    j["best"] = {{"candidate", top[0].candidate.id},
                 {"ms", ms ? json(*ms) : json()},
                 {"idea", top[0].candidate.idea_text},
                 {"round", top[0].candidate.round_index + 1}};
    if (e.pct_of_floor) j["best"]["pct_of_floor"] = *e.pct_of_floor;
  } else {
    j["best"] = nullptr;
  }
  if (auto g = search::find_goal(store, run.id))
    j["goal"] = g->to_json();
  else
    j["goal"] = nullptr;
  int pending = 0;
  auto actions = search::steering_actions(store, run.id);
  for (const auto& a : actions) pending += a.pending();
  j["steering"] = {{"actions", actions.size()}, {"pending", pending}};
  auto stalls = search::stalls_of_run(store, run.id);
  j["stalls"] = stalls.size();
  if (!stalls.empty())
    j["last_stall"] = {{"round", stalls.back().round_index + 1},
                       {"reason", stalls.back().diagnosis.value("reason", "")}};
  j["reviews"] = search::reviews_of_run(store, run.id).size();
  return j;
}

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(digits);
  s << v;
  return s.str();
}

void print_text(const json& j) {
  std::cout << "run " << j["run"] << " " << j["problem"].get<std::string>() << " (" << j["backend"].get<std::string>()
            << ", " << j["size"].get<std::string>() << ", proposer " << j["proposer"].get<std::string>()
            << "): " << j["status"].get<std::string>() << "\n";
  std::cout << "  round " << j["round"] << "/" << j["rounds_planned"]
            << (j["round_in_progress"].get<bool>() ? " (in progress)" : "") << " | evaluated " << j["evaluated"] << "/"
            << j["candidates"] << " | verified " << j["verified"] << " | rejected " << j["rejected"];
  if (j["seconds_per_candidate"].is_number())
    std::cout << " | " << fixed(j["seconds_per_candidate"].get<double>(), 2) << " s per candidate";
  std::cout << "\n";
  if (j["best"].is_object() && j["best"]["ms"].is_number())
    std::cout << "  best so far: candidate " << j["best"]["candidate"] << " at "
              << fixed(j["best"]["ms"].get<double>(), 4) << " " << j["time_unit"].get<std::string>() << ", round "
              << j["best"]["round"] << ": " << j["best"]["idea"].get<std::string>() << "\n";
  else
    std::cout << "  best so far: none verified\n";
  std::string values;
  for (const auto& c : j["curve"])
    values += (values.empty() ? "" : " ") +
              (c["best_so_far_ms"].is_number() ? fixed(c["best_so_far_ms"].get<double>(), 4) : std::string("-"));
  std::cout << "  best so far by round (ms, lower is better): " << j["sparkline"].get<std::string>() << "  " << values
            << "\n";
  if (j["goal"].is_object()) {
    const json& g = j["goal"];
    std::cout << "  goal " << g["text"].get<std::string>() << ": ";
    if (g["met"].get<bool>())
      std::cout << "met in round " << g["met_round"] << " by candidate " << g["met_candidate"] << " at "
                << g["met_at"].get<std::string>() << "\n";
    else
      std::cout << "not met yet\n";
  }
  std::cout << "  steering: " << j["steering"]["actions"] << " action(s), " << j["steering"]["pending"]
            << " pending | reviews: " << j["reviews"];
  if (j.contains("last_stall"))
    std::cout << " | stalled in round " << j["last_stall"]["round"] << ": "
              << j["last_stall"]["reason"].get<std::string>();
  std::cout << "\n";
}

CommandRegistration status_command{
    {"status", "Show where a search stands (round, best so far, its curve, goal, steering); --watch refreshes",
     [](CLI::App& sub) -> std::function<int()> {
       auto o = std::make_shared<StatusCommandOptions>();
       sub.add_option("db", o->db, "The search's SQLite store")->required();
       sub.add_option("--run", o->run, "Run (default: the latest)")->check(integer_in(1, INT64_MAX));
       sub.add_flag("--json", o->json, "Print JSON");
       sub.add_flag("--watch", o->watch, "Print again every --interval seconds while the run is running");
       sub.add_option("--interval", o->interval, "Seconds between refreshes with --watch (default 2)")
           ->check(finite_in(0.1, 3600));
       return [o] {
         try {
           while (true) {
             json j;
             {
               search::Store store(o->db, search::Store::Mode::read_only);
               j = status_json(store, resolve_run(store, o->run, "status-no-run"));
             }
             if (o->json)
               std::cout << j.dump(o->watch ? -1 : 2) << std::endl;
             else
               print_text(j), std::cout << std::flush;
             if (!o->watch || j["status"] != search::status_name(search::SearchStatus::running)) break;
             std::this_thread::sleep_for(std::chrono::duration<double>(o->interval));
             if (!o->json) std::cout << "\n";
           }
           return kExitOk;
         } catch (const UserError& e) {
           print_error_json(e.error());
           return kExitUsage;
         }
       };
     }}};

}  // namespace
}  // namespace cusched::tools
