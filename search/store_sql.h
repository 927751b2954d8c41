#pragma once
// The SQLite helpers the store's tables are written with: one prepared statement
// with positional binding, a write transaction, and the store's UTC timestamps.
// Every store table file (store.cpp, steering_store.cpp, ...) uses them.
#include <concepts>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include "dsl/error.h"

namespace cusched::search::sql {

constexpr int kBusyTimeoutMs = 30000;

// Now in UTC, ISO 8601 with milliseconds.
std::string now_utc();

// Throws the structured error "store-error" naming `what` and SQLite's message.
[[noreturn]] void store_fail(sqlite3* db, const std::string& what);

// Runs `sql` (any number of statements); throws "store-error" when it fails.
void exec(sqlite3* db, const char* sql);

// True when the database has a table of that name.
bool has_table(sqlite3* db, const char* name);

// One prepared statement; binds by position (1-based) and reads columns by index.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK)
      store_fail(db, std::string("prepare \"") + sql + "\"");
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Binds `values` to the statement's parameters 1, 2, ... in order: integers, doubles
  // and strings as themselves, an empty optional as NULL, a JSON value as its text (NULL
  // when the value is null).
  template <class... Values>
  Statement& bind_row(const Values&... values) {
    int i = 0;
    (bind(++i, values), ...);
    return *this;
  }

  // Returns true while a row is available.
  bool step() {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    store_fail(db_, "run a statement");
  }
  void run() {
    while (step()) {}
  }

  bool is_null(int c) const { return sqlite3_column_type(stmt_, c) == SQLITE_NULL; }
  int64_t i64(int c) const { return sqlite3_column_int64(stmt_, c); }
  double f64(int c) const { return sqlite3_column_double(stmt_, c); }
  std::string text(int c) const {
    auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, c));
    return p ? std::string(p, sqlite3_column_bytes(stmt_, c)) : std::string();
  }
  std::optional<int64_t> opt_i64(int c) const { return is_null(c) ? std::nullopt : std::optional<int64_t>(i64(c)); }
  std::optional<double> opt_f64(int c) const { return is_null(c) ? std::nullopt : std::optional<double>(f64(c)); }
  nlohmann::json json(int c) const {
    if (is_null(c)) return nullptr;
    return nlohmann::json::parse(text(c), nullptr, /*allow_exceptions=*/false);
  }

 private:
  void bind(int i, int64_t v) { check(sqlite3_bind_int64(stmt_, i, v)); }
  void bind(int i, int v) { bind(i, static_cast<int64_t>(v)); }
  void bind(int i, const std::string& v) {
    check(sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
  }
  void bind(int i, const char* v) { bind(i, std::string(v)); }
  void bind(int i, double v) { check(sqlite3_bind_double(stmt_, i, v)); }
  void bind_null(int i) { check(sqlite3_bind_null(stmt_, i)); }
  template <class T>
  void bind(int i, const std::optional<T>& v) {
    if (v)
      bind(i, *v);
    else
      bind_null(i);
  }
  template <class T>
    requires std::same_as<T, nlohmann::json>
  void bind(int i, const T& j) {
    if (j.is_null())
      bind_null(i);
    else
      bind(i, j.dump());
  }
  Statement& check(int rc) {
    if (rc != SQLITE_OK) store_fail(db_, "bind a value");
    return *this;
  }
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// BEGIN IMMEDIATE takes the write lock up front, so two writers wait for each
// other (busy_timeout) instead of failing on a lock upgrade. Rolls back unless
// commit() was called.
class Transaction {
 public:
  explicit Transaction(sqlite3* db) : db_(db) { exec(db_, "BEGIN IMMEDIATE"); }
  ~Transaction() {
    if (!done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  void commit() {
    exec(db_, "COMMIT");
    done_ = true;
  }

 private:
  sqlite3* db_;
  bool done_ = false;
};

// Runs one INSERT with `values` bound in order, in its own write transaction, and returns
// the new row's id.
template <class... Values>
int64_t insert_row(sqlite3* db, const char* sql, const Values&... values) {
  Transaction t(db);
  Statement(db, sql).bind_row(values...).run();
  int64_t id = sqlite3_last_insert_rowid(db);
  t.commit();
  return id;
}

}  // namespace cusched::search::sql
