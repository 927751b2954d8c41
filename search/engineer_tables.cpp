#include "search/engineer_tables.h"

#include "search/store_sql.h"

namespace cusched::search {

void create_engineer_tables(sqlite3* db) {
  sql::exec(db, R"sql(
CREATE TABLE IF NOT EXISTS steering (
  id INTEGER PRIMARY KEY,
  run INTEGER NOT NULL REFERENCES runs(id),
  kind TEXT NOT NULL CHECK (kind IN ('add-schedule', 'add-kernel', 'hint', 'ban-move', 'ban-idea', 'restart-from')),
  text TEXT NOT NULL,
  payload TEXT,
  author TEXT NOT NULL,
  created TEXT NOT NULL,
  applied_round INTEGER,
  applied_at TEXT,
  outcome TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS reviews (
  id INTEGER PRIMARY KEY,
  candidate INTEGER NOT NULL REFERENCES candidates(id),
  verdict TEXT NOT NULL CHECK (verdict IN ('approved', 'rejected')),
  note TEXT NOT NULL,
  reviewer TEXT NOT NULL,
  created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS run_goals (
  run INTEGER PRIMARY KEY REFERENCES runs(id),
  goal TEXT NOT NULL,
  set_at TEXT NOT NULL,
  met_round INTEGER,
  met_candidate INTEGER REFERENCES candidates(id),
  met_value REAL,
  met_at TEXT
);
CREATE TABLE IF NOT EXISTS stalls (
  id INTEGER PRIMARY KEY,
  run INTEGER NOT NULL REFERENCES runs(id),
  round_index INTEGER NOT NULL,
  diagnosis TEXT NOT NULL,
  created TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS steering_by_run ON steering(run, id);
CREATE INDEX IF NOT EXISTS reviews_by_candidate ON reviews(candidate, id);
)sql");
}

}  // namespace cusched::search
