#pragma once
// The store's tables for the engineer's side of a search: steering actions, reviews,
// the goal of a run (and when it was met) and the stalls the loop detected. Created by
// the store on opening for writing; a store written before them reads as having none.
struct sqlite3;

namespace cusched::search {

void create_engineer_tables(sqlite3* db);

}  // namespace cusched::search
