#include "search/store_sql.h"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace cusched::search::sql {

std::string now_utc() {
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

[[noreturn]] void store_fail(sqlite3* db, const std::string& what) {
  fail("store-error", "The candidate store failed to " + what + ": " + (db ? sqlite3_errmsg(db) : "no database") + ".",
       "Check that the file is a cusched store on a writable local disk and that no other program holds it locked.");
}

void exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    fail("store-error", "The candidate store failed to run \"" + std::string(sql).substr(0, 60) + "\": " + msg + ".",
         "Check that the file is a cusched store on a writable local disk.");
  }
}

bool has_table(sqlite3* db, const char* name) {
  Statement s(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
  s.bind_row(std::string(name));
  return s.step();
}

}  // namespace cusched::search::sql
