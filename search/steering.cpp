#include "search/steering.h"

#include <cstdlib>

#include "search/store_sql.h"

namespace cusched::search {

using namespace sql;

std::string steering_kind_name(SteeringKind k) {
  switch (k) {
    case SteeringKind::add_schedule:
      return "add-schedule";
    case SteeringKind::add_kernel:
      return "add-kernel";
    case SteeringKind::hint:
      return "hint";
    case SteeringKind::ban_move:
      return "ban-move";
    case SteeringKind::ban_idea:
      return "ban-idea";
    case SteeringKind::restart_from:
      return "restart-from";
  }
  return "hint";
}

std::optional<SteeringKind> parse_steering_kind(const std::string& name) {
  for (auto k : {SteeringKind::add_schedule, SteeringKind::add_kernel, SteeringKind::hint, SteeringKind::ban_move,
                 SteeringKind::ban_idea, SteeringKind::restart_from})
    if (steering_kind_name(k) == name) return k;
  return std::nullopt;
}

nlohmann::json SteeringAction::to_json() const {
  nlohmann::json j = {{"id", id},
                      {"run", run},
                      {"kind", steering_kind_name(kind)},
                      {"text", text},
                      {"author", author},
                      {"created", created},
                      {"pending", pending()},
                      {"outcome", outcome}};
  if (!payload.is_null()) {
    nlohmann::json p = payload;
    if (p.is_object() && p.contains("source")) p.erase("source");  // the kernel text stays in the store
    j["payload"] = p;
  }
  if (applied_round) {
    j["applied_round"] = *applied_round + 1;
    j["applied_at"] = applied_at;
  }
  return j;
}

int64_t add_steering(Store& store, const SteeringAction& a) {
  return insert_row(store.connection(),
                    "INSERT INTO steering(run, kind, text, payload, author, created) VALUES (?,?,?,?,?,?)", a.run,
                    steering_kind_name(a.kind), a.text, a.payload, a.author, now_utc());
}

std::vector<SteeringAction> steering_actions(const Store& store, int64_t run) {
  std::vector<SteeringAction> out;
  sqlite3* db = store.connection();
  if (!has_table(db, "steering")) return out;
  Statement s(db,
              "SELECT id, run, kind, text, payload, author, created, applied_round, COALESCE(applied_at, ''), outcome "
              "FROM steering WHERE run = ? ORDER BY id");
  s.bind_row(run);
  while (s.step()) {
    SteeringAction a;
    a.id = s.i64(0);
    a.run = s.i64(1);
    a.kind = parse_steering_kind(s.text(2)).value_or(SteeringKind::hint);
    a.text = s.text(3);
    a.payload = s.json(4);
    a.author = s.text(5);
    a.created = s.text(6);
    if (auto r = s.opt_i64(7)) a.applied_round = static_cast<int>(*r);
    a.applied_at = s.text(8);
    a.outcome = s.text(9);
    out.push_back(std::move(a));
  }
  return out;
}

void mark_steering_applied(Store& store, int64_t action, int round_index, const std::string& outcome) {
  sqlite3* db = store.connection();
  Transaction t(db);
  Statement(db, "UPDATE steering SET applied_round = ?, applied_at = ?, outcome = ? WHERE id = ?")
      .bind_row(round_index, now_utc(), outcome, action)
      .run();
  t.commit();
}

std::optional<std::string> author_or_user(const std::string& given) {
  if (!given.empty()) return given;
  if (const char* u = std::getenv("USER"); u && *u) return std::string(u);
  return std::nullopt;
}

}  // namespace cusched::search
