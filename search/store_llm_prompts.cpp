// The prompts of model calls, in the store's llm_prompts table (call id -> the request's
// messages as JSON). The table is created on the first prompt written, so stores
// without it stay readable, read-only ones included.
#include <sqlite3.h>

#include "dsl/error.h"
#include "search/store.h"

namespace cusched::search {
namespace {

const char* kCreate =
    "CREATE TABLE IF NOT EXISTS llm_prompts (call INTEGER PRIMARY KEY REFERENCES llm_calls(id), prompt TEXT NOT "
    "NULL)";

void check(sqlite3* db, int rc, const char* what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW)
    fail("store-write-failed", std::string("The store could not ") + what + ": " + sqlite3_errmsg(db) + ".",
         "Check that the store's file and folder are writable and the disk is not full.");
}

}  // namespace

void Store::save_llm_prompt(int64_t call, const std::string& prompt) {
  check(db_, sqlite3_exec(db_, kCreate, nullptr, nullptr, nullptr), "create the llm_prompts table");
  sqlite3_stmt* st = nullptr;
  check(db_,
        sqlite3_prepare_v2(db_, "INSERT OR REPLACE INTO llm_prompts(call, prompt) VALUES (?, ?)", -1, &st, nullptr),
        "store a prompt");
  sqlite3_bind_int64(st, 1, call);
  sqlite3_bind_text(st, 2, prompt.data(), static_cast<int>(prompt.size()), SQLITE_TRANSIENT);
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  check(db_, rc, "store a prompt");
}

std::optional<std::string> Store::llm_prompt(int64_t call) const {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT prompt FROM llm_prompts WHERE call = ?", -1, &st, nullptr) != SQLITE_OK) {
    sqlite3_finalize(st);
    return std::nullopt;  // a store without prompts
  }
  sqlite3_bind_int64(st, 1, call);
  std::optional<std::string> out;
  if (sqlite3_step(st) == SQLITE_ROW) {
    const unsigned char* text = sqlite3_column_text(st, 0);
    out =
        std::string(text ? reinterpret_cast<const char*>(text) : "", static_cast<size_t>(sqlite3_column_bytes(st, 0)));
  }
  sqlite3_finalize(st);
  return out;
}

}  // namespace cusched::search
