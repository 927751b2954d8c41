#include "search/run_outcome_store.h"

#include "search/store_sql.h"

namespace cusched::search {

using namespace sql;

nlohmann::json GoalRecord::to_json() const {
  nlohmann::json j = goal.to_json();
  j["describe"] = goal.describe();
  j["set_at"] = set_at;
  j["met"] = met_round.has_value();
  if (met_round) {
    j["met_round"] = *met_round + 1;
    j["met_candidate"] = met_candidate ? nlohmann::json(*met_candidate) : nlohmann::json();
    j["met_value"] = met_value ? nlohmann::json(*met_value) : nlohmann::json();
    j["met_at"] = met_at;
  }
  return j;
}

void save_goal(Store& store, int64_t run, const Goal& goal) {
  sqlite3* db = store.connection();
  Transaction t(db);
  Statement(db, "INSERT OR REPLACE INTO run_goals(run, goal, set_at) VALUES (?,?,?)")
      .bind_row(run, goal.to_json(), now_utc())
      .run();
  t.commit();
}

std::optional<GoalRecord> find_goal(const Store& store, int64_t run) {
  sqlite3* db = store.connection();
  if (!has_table(db, "run_goals")) return std::nullopt;
  Statement s(db,
              "SELECT goal, set_at, met_round, met_candidate, met_value, COALESCE(met_at, '') FROM run_goals WHERE "
              "run = ?");
  s.bind_row(run);
  if (!s.step()) return std::nullopt;
  GoalRecord g;
  g.goal = Goal::from_json(s.json(0));
  g.set_at = s.text(1);
  if (auto r = s.opt_i64(2)) g.met_round = static_cast<int>(*r);
  g.met_candidate = s.opt_i64(3);
  g.met_value = s.opt_f64(4);
  g.met_at = s.text(5);
  return g;
}

void record_goal_met(Store& store, int64_t run, int round_index, int64_t candidate, double value) {
  sqlite3* db = store.connection();
  Transaction t(db);
  Statement(db,
            "UPDATE run_goals SET met_round = ?, met_candidate = ?, met_value = ?, met_at = ? WHERE run = ? AND "
            "met_round IS NULL")
      .bind_row(round_index, candidate, value, now_utc(), run)
      .run();
  t.commit();
}

void add_stall(Store& store, int64_t run, int round_index, const nlohmann::json& diagnosis) {
  sqlite3* db = store.connection();
  Transaction t(db);
  Statement(db, "INSERT INTO stalls(run, round_index, diagnosis, created) VALUES (?,?,?,?)")
      .bind_row(run, round_index, diagnosis, now_utc())
      .run();
  t.commit();
}

std::vector<StallRecord> stalls_of_run(const Store& store, int64_t run) {
  std::vector<StallRecord> out;
  sqlite3* db = store.connection();
  if (!has_table(db, "stalls")) return out;
  Statement s(db, "SELECT id, round_index, diagnosis, created FROM stalls WHERE run = ? ORDER BY id");
  s.bind_row(run);
  while (s.step()) out.push_back({s.i64(0), static_cast<int>(s.i64(1)), s.json(2), s.text(3)});
  return out;
}

}  // namespace cusched::search
