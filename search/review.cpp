#include "search/review.h"

#include "search/store_sql.h"

namespace cusched::search {

using namespace sql;

namespace {

Review read_review(const Statement& s) {
  Review r;
  r.id = s.i64(0);
  r.candidate = s.i64(1);
  r.approved = s.text(2) == "approved";
  r.note = s.text(3);
  r.reviewer = s.text(4);
  r.created = s.text(5);
  return r;
}

}  // namespace

nlohmann::json Review::to_json() const {
  return {{"id", id},     {"candidate", candidate}, {"verdict", approved ? "approved" : "rejected"},
          {"note", note}, {"reviewer", reviewer},   {"created", created}};
}

int64_t add_review(Store& store, const Review& r) {
  return insert_row(store.connection(),
                    "INSERT INTO reviews(candidate, verdict, note, reviewer, created) VALUES (?,?,?,?,?)", r.candidate,
                    std::string(r.approved ? "approved" : "rejected"), r.note, r.reviewer, now_utc());
}

std::vector<Review> reviews_of_run(const Store& store, int64_t run) {
  std::vector<Review> out;
  sqlite3* db = store.connection();
  if (!has_table(db, "reviews")) return out;
  Statement s(db,
              "SELECT v.id, v.candidate, v.verdict, v.note, v.reviewer, v.created FROM reviews v JOIN candidates c ON "
              "c.id = v.candidate WHERE c.run = ? ORDER BY v.id");
  s.bind_row(run);
  while (s.step()) out.push_back(read_review(s));
  return out;
}

std::optional<Review> latest_review(const Store& store, int64_t candidate) {
  sqlite3* db = store.connection();
  if (!has_table(db, "reviews")) return std::nullopt;
  Statement s(db,
              "SELECT id, candidate, verdict, note, reviewer, created FROM reviews WHERE candidate = ? ORDER BY id "
              "DESC LIMIT 1");
  s.bind_row(candidate);
  if (!s.step()) return std::nullopt;
  return read_review(s);
}

}  // namespace cusched::search
