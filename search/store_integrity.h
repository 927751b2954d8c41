#pragma once
// Checks that a file opened as a candidate store for reading (report, export) is one:
// a SQLite database that passes SQLite's own integrity check, with every table of
// the store's schema and a schema version this cusched knows.
#include <cstdint>
#include <string>

struct sqlite3;

namespace cusched::search {

// Throws UserError "store-damaged" (integrity check failed, with SQLite's first
// complaint), "not-a-store" (a table is missing: an empty file, another program's
// database) or "store-version-newer".
void verify_store_for_reading(sqlite3* db, const std::string& path, int64_t known_version);

}  // namespace cusched::search
