#include "search/store_integrity.h"

#include <vector>

#include <sqlite3.h>

#include "dsl/error.h"
#include "dsl/input_limits.h"

namespace cusched::search {

namespace {

// The first column of each row of `sql`; an SQLite error (a file that is not a
// database, say) is the error "store-damaged".
std::vector<std::string> column(sqlite3* db, const std::string& path, const char* sql) {
  sqlite3_stmt* st = nullptr;
  std::vector<std::string> out;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, nullptr);
  if (rc == SQLITE_OK)
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      const unsigned char* t = sqlite3_column_text(st, 0);
      out.push_back(t ? reinterpret_cast<const char*>(t) : "");
    }
  std::string msg = rc == SQLITE_DONE ? "" : sqlite3_errmsg(db);
  sqlite3_finalize(st);
  if (!msg.empty())
    fail(
        "store-damaged", "The store '" + valid_utf8(path) + "' cannot be read: " + valid_utf8(msg) + ".",
        "Pass the .db file that `cusched search` wrote; a damaged copy may be recovered with `sqlite3 FILE .recover`.");
  return out;
}

}  // namespace

void verify_store_for_reading(sqlite3* db, const std::string& path, int64_t known_version) {
  auto check = column(db, path, "PRAGMA quick_check");
  if (check.empty() || check[0] != "ok")
    fail("store-damaged",
         "The store '" + valid_utf8(path) + "' fails SQLite's integrity check: " +
             valid_utf8(check.empty() ? "no answer" : check[0].substr(0, 200)) + ".",
         "Restore the store from a copy, or recover what is left with `sqlite3 FILE .recover`.");
  auto tables = column(db, path, "SELECT name FROM sqlite_master WHERE type = 'table'");
  for (const char* need :
       {"schema_version", "runs", "rounds", "ideas", "candidates", "artifacts", "evaluations", "llm_calls"}) {
    bool found = false;
    for (const auto& t : tables) found |= t == need;
    if (!found)
      fail("not-a-store", "The file '" + valid_utf8(path) + "' is not a cusched store: it has no table '" + need + "'.",
           "Pass the .db file that `cusched search` wrote (its --db flag).");
  }
  auto version = column(db, path, "SELECT MAX(version) FROM schema_version");
  if (version.empty() || version[0].empty())
    fail("not-a-store",
         "The file '" + valid_utf8(path) + "' has no schema version, so it is not a complete cusched store.",
         "Pass the .db file that `cusched search` wrote (its --db flag).");
  if (version[0].size() > 18 || version[0].find_first_not_of("0123456789") != std::string::npos)
    fail("store-damaged",
         "The store '" + valid_utf8(path) + "' has the schema version '" + valid_utf8(version[0].substr(0, 40)) +
             "', not a number.",
         "Restore the store from a copy.");
  if (std::stoll(version[0]) > known_version)
    fail("store-version-newer",
         "The store has schema version " + version[0] + " but this cusched knows only version " +
             std::to_string(known_version) + ".",
         "Open it with the newer cusched that wrote it.");
}

}  // namespace cusched::search
