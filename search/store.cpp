#include "search/store.h"

#include <algorithm>
#include <chrono>
#include <concepts>
#include <cstdio>
#include <ctime>
#include <filesystem>

#include <sqlite3.h>

#include "dsl/error.h"
#include "dsl/schedule.h"
#include "search/engineer_tables.h"
#include "search/store_integrity.h"
#include "search/store_sql.h"

namespace cusched::search {

using namespace sql;

namespace {

const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY,
  problem TEXT NOT NULL,
  size TEXT NOT NULL,
  backend TEXT NOT NULL CHECK (backend IN ('gpu', 'interp')),
  config TEXT NOT NULL,
  seed INTEGER NOT NULL,
  created TEXT NOT NULL,
  status TEXT NOT NULL,
  problem_definition TEXT
);
CREATE TABLE IF NOT EXISTS rounds (
  id INTEGER PRIMARY KEY,
  run INTEGER NOT NULL REFERENCES runs(id),
  idx INTEGER NOT NULL,
  started TEXT NOT NULL,
  finished TEXT,
  prompt_tokens INTEGER NOT NULL DEFAULT 0,
  completion_tokens INTEGER NOT NULL DEFAULT 0,
  UNIQUE (run, idx)
);
CREATE TABLE IF NOT EXISTS ideas (
  id INTEGER PRIMARY KEY,
  round INTEGER NOT NULL REFERENCES rounds(id),
  text TEXT NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('builtin', 'llm', 'file'))
);
CREATE TABLE IF NOT EXISTS candidates (
  id INTEGER PRIMARY KEY,
  run INTEGER NOT NULL REFERENCES runs(id),
  round INTEGER REFERENCES rounds(id),
  idea INTEGER REFERENCES ideas(id),
  parent INTEGER REFERENCES candidates(id),
  schedule TEXT NOT NULL,
  schedule_hash TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('proposed', 'lowered', 'evaluated', 'rejected')),
  created TEXT NOT NULL,
  UNIQUE (run, schedule_hash)
);
CREATE TABLE IF NOT EXISTS artifacts (
  candidate INTEGER PRIMARY KEY REFERENCES candidates(id),
  cuda_source TEXT,
  ir_text TEXT,
  kernel_bundle TEXT,
  audit_findings TEXT,
  compile_report TEXT
);
CREATE TABLE IF NOT EXISTS evaluations (
  id INTEGER PRIMARY KEY,
  candidate INTEGER NOT NULL UNIQUE REFERENCES candidates(id),
  verdict TEXT NOT NULL,
  verified INTEGER NOT NULL,
  reason TEXT NOT NULL,
  median_ms REAL, min_ms REAL, max_ms REAL,
  pct_of_floor REAL,
  cost_estimate REAL,
  max_abs_error REAL, max_rel_error REAL,
  precision TEXT NOT NULL,
  backend TEXT NOT NULL,
  result TEXT,
  measured_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS llm_calls (
  id INTEGER PRIMARY KEY,
  round INTEGER REFERENCES rounds(id),
  purpose TEXT NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  finish_reason TEXT NOT NULL,
  error TEXT NOT NULL,
  raw_reply TEXT NOT NULL,
  created TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS candidates_by_run ON candidates(run, status);
CREATE INDEX IF NOT EXISTS rounds_by_run ON rounds(run, idx);
)sql";

const char* kCandidateColumns =
    "c.id, c.run, c.round, c.idea, c.parent, c.schedule, c.schedule_hash, c.status, c.created, "
    "COALESCE(r.idx, -1), COALESCE(i.text, ''), COALESCE(i.source, '') ";
const char* kCandidateJoins =
    "FROM candidates c LEFT JOIN rounds r ON r.id = c.round LEFT JOIN ideas i ON i.id = c.idea ";
constexpr int kCandidateColumnCount = 12;

CandidateRecord read_candidate(const Statement& s, int o = 0) {
  CandidateRecord c;
  c.id = s.i64(o + 0);
  c.run = s.i64(o + 1);
  c.round = s.opt_i64(o + 2);
  c.idea = s.opt_i64(o + 3);
  c.parent = s.opt_i64(o + 4);
  c.schedule = s.json(o + 5);
  c.schedule_hash = s.text(o + 6);
  c.status = s.text(o + 7);
  c.created = s.text(o + 8);
  c.round_index = static_cast<int>(s.i64(o + 9));
  c.idea_text = s.text(o + 10);
  c.idea_source = s.text(o + 11);
  return c;
}

const char* kEvaluationColumns =
    "e.candidate, e.verdict, e.verified, e.reason, e.median_ms, e.min_ms, e.max_ms, e.pct_of_floor, "
    "e.cost_estimate, e.max_abs_error, e.max_rel_error, e.precision, e.backend, e.result, e.measured_at ";

EvaluationRecord read_evaluation(const Statement& s, int o = 0) {
  EvaluationRecord e;
  e.candidate = s.i64(o + 0);
  e.verdict = s.text(o + 1);
  e.verified = s.i64(o + 2) != 0;
  e.reason = s.text(o + 3);
  e.median_ms = s.opt_f64(o + 4);
  e.min_ms = s.opt_f64(o + 5);
  e.max_ms = s.opt_f64(o + 6);
  e.pct_of_floor = s.opt_f64(o + 7);
  e.cost_estimate = s.opt_f64(o + 8);
  e.max_abs_error = s.opt_f64(o + 9);
  e.max_rel_error = s.opt_f64(o + 10);
  e.precision = s.text(o + 11);
  e.backend = s.text(o + 12);
  e.result = s.json(o + 13);
  e.measured_at = s.text(o + 14);
  return e;
}

void require_status(const std::string& status) {
  if (status != "proposed" && status != "lowered" && status != "evaluated" && status != "rejected")
    fail("bad-candidate-status", "Candidate status '" + status + "' is not one the store knows.",
         "Use proposed, lowered, evaluated or rejected.");
}

}  // namespace

Store::Store(const std::string& path, Mode mode) : path_(path) {
  if (mode == Mode::existing_only && !std::filesystem::exists(path))
    fail("store-not-found", "The store file '" + path + "' does not exist.",
         "Pass the .db file that `cusched search` wrote (its --db flag).");
  if (mode == Mode::read_only && !std::filesystem::is_regular_file(path))
    fail("store-not-found", "The store '" + path + "' is not a file.",
         "Pass the .db file that `cusched search` wrote (its --db flag).");
  int flags = (mode == Mode::read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_FULLMUTEX;
  if (mode == Mode::create_if_missing) flags |= SQLITE_OPEN_CREATE;
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    fail("store-open-failed", "The store file '" + path + "' could not be opened: " + msg + ".",
         "Check the path and that its folder is writable.");
  }
  sqlite3_busy_timeout(db_, kBusyTimeoutMs);
  if (mode == Mode::read_only) {
    try {
      verify_store_for_reading(db_, path, kSchemaVersion);
    } catch (const UserError&) {
      sqlite3_close(db_);
      db_ = nullptr;
      throw;
    }
    return;
  }
  try {
    exec(db_, "PRAGMA journal_mode=WAL");
    exec(db_, "PRAGMA synchronous=NORMAL");
    exec(db_, "PRAGMA foreign_keys=ON");
    migrate();
  } catch (const UserError& e) {
    sqlite3_close(db_);
    db_ = nullptr;
    fail("store-open-failed", "The file '" + path + "' is not a usable cusched store: " + e.error().message,
         "Pass a .db file written by `cusched search`, or a new path to start a fresh store.");
  }
}

Store::~Store() {
  if (db_) sqlite3_close(db_);
}

void Store::migrate() {
  Transaction t(db_);
  exec(db_, kSchema);
  create_engineer_tables(db_);
  // Stores written before runs kept their problem's definition gain the column.
  bool has_definition = false;
  for (Statement c(db_, "PRAGMA table_info(runs)"); c.step();)
    has_definition = has_definition || c.text(1) == "problem_definition";
  if (!has_definition) exec(db_, "ALTER TABLE runs ADD COLUMN problem_definition TEXT");
  Statement q(db_, "SELECT MAX(version) FROM schema_version");
  q.step();
  if (q.is_null(0)) {
    Statement(db_, "INSERT INTO schema_version(version) VALUES (?)").bind_row(kSchemaVersion).run();
  } else if (q.i64(0) > kSchemaVersion) {
    fail("store-version-newer",
         "The store has schema version " + std::to_string(q.i64(0)) + " but this cusched knows only version " +
             std::to_string(kSchemaVersion) + ".",
         "Open it with the newer cusched that wrote it.");
  }
  t.commit();
}

int64_t Store::create_run(const RunInfo& run) {
  if (run.backend != "gpu" && run.backend != "interp")
    fail("bad-backend", "Run backend '" + run.backend + "' is neither gpu nor interp.", "Use gpu or interp.");
  return insert_row(db_,
                    "INSERT INTO runs(problem, size, backend, config, seed, created, status, problem_definition) "
                    "VALUES (?,?,?,?,?,?,?,?)",
                    run.problem, run.size, run.backend, run.config.dump(), static_cast<int64_t>(run.seed), now_utc(),
                    run.status, run.problem_definition);
}

static RunInfo read_run(const Statement& s) {
  RunInfo r;
  r.id = s.i64(0);
  r.problem = s.text(1);
  r.size = s.text(2);
  r.backend = s.text(3);
  r.config = s.json(4);
  r.seed = static_cast<uint64_t>(s.i64(5));
  r.created = s.text(6);
  r.status = s.text(7);
  if (!s.is_null(8)) r.problem_definition = s.json(8);
  return r;
}

std::optional<RunInfo> Store::find_run(int64_t id) const {
  Statement s(
      db_,
      "SELECT id, problem, size, backend, config, seed, created, status, problem_definition FROM runs WHERE id = ?");
  s.bind_row(id);
  if (!s.step()) return std::nullopt;
  return read_run(s);
}

std::vector<RunInfo> Store::list_runs() const {
  Statement s(
      db_,
      "SELECT id, problem, size, backend, config, seed, created, status, problem_definition FROM runs ORDER BY id");
  std::vector<RunInfo> out;
  while (s.step()) out.push_back(read_run(s));
  return out;
}

std::optional<int64_t> Store::latest_run() const {
  Statement s(db_, "SELECT MAX(id) FROM runs");
  s.step();
  return s.opt_i64(0);
}

void Store::set_run_status(int64_t run, const std::string& status) {
  Transaction t(db_);
  Statement(db_, "UPDATE runs SET status = ? WHERE id = ?").bind_row(status, run).run();
  t.commit();
}

int64_t Store::begin_round(int64_t run, int index) {
  Transaction t(db_);
  Statement(db_, "INSERT OR IGNORE INTO rounds(run, idx, started) VALUES (?,?,?)")
      .bind_row(run, index, now_utc())
      .run();
  Statement q(db_, "SELECT id FROM rounds WHERE run = ? AND idx = ?");
  q.bind_row(run, index);
  if (!q.step()) store_fail(db_, "begin a round");
  int64_t id = q.i64(0);
  t.commit();
  return id;
}

void Store::finish_round(int64_t round, int64_t prompt_tokens, int64_t completion_tokens) {
  Transaction t(db_);
  Statement(db_, "UPDATE rounds SET finished = ?, prompt_tokens = ?, completion_tokens = ? WHERE id = ?")
      .bind_row(now_utc(), prompt_tokens, completion_tokens, round)
      .run();
  t.commit();
}

std::optional<RoundInfo> Store::find_round(int64_t round) const {
  Statement s(db_,
              "SELECT id, run, idx, started, COALESCE(finished, ''), prompt_tokens, completion_tokens FROM rounds "
              "WHERE id = ?");
  s.bind_row(round);
  if (!s.step()) return std::nullopt;
  RoundInfo r{s.i64(0), s.i64(1), static_cast<int>(s.i64(2)), s.text(3), s.text(4), s.i64(5), s.i64(6)};
  return r;
}

int Store::next_round_index(int64_t run) const {
  Statement s(db_, "SELECT MAX(idx) FROM rounds WHERE run = ?");
  s.bind_row(run);
  s.step();
  return s.is_null(0) ? 0 : static_cast<int>(s.i64(0)) + 1;
}

bool Store::rank_by_cost(int64_t run) const {
  auto r = find_run(run);
  return r && r->backend == "interp";
}

std::vector<RoundSummary> Store::round_summaries(int64_t run) const {
  const bool by_cost = rank_by_cost(run);
  Statement s(db_,
              "SELECT id, run, idx, started, COALESCE(finished, ''), prompt_tokens, completion_tokens FROM rounds "
              "WHERE run = ? ORDER BY idx");
  s.bind_row(run);
  std::vector<RoundSummary> out;
  while (s.step()) {
    RoundSummary r;
    r.round = RoundInfo{s.i64(0), s.i64(1), static_cast<int>(s.i64(2)), s.text(3), s.text(4), s.i64(5), s.i64(6)};
    out.push_back(r);
  }
  std::optional<double> best;
  for (auto& r : out) {
    Statement c(db_,
                "SELECT COUNT(*), SUM(c.status IN ('evaluated','rejected')), SUM(COALESCE(e.verified, 0)), "
                "SUM(c.status = 'rejected') FROM candidates c LEFT JOIN evaluations e ON e.candidate = c.id "
                "WHERE c.round = ?");
    c.bind_row(r.round.id);
    c.step();
    r.candidates = static_cast<int>(c.i64(0));
    r.evaluated = static_cast<int>(c.i64(1));
    r.verified = static_cast<int>(c.i64(2));
    r.rejected = static_cast<int>(c.i64(3));
    Statement b(db_, by_cost
                         ? "SELECT e.cost_estimate, c.id FROM candidates c JOIN evaluations e ON e.candidate = c.id "
                           "WHERE c.round = ? AND e.verified = 1 AND e.cost_estimate IS NOT NULL "
                           "ORDER BY e.cost_estimate, c.id LIMIT 1"
                         : "SELECT e.median_ms, c.id FROM candidates c JOIN evaluations e ON e.candidate = c.id "
                           "WHERE c.round = ? AND e.verified = 1 AND e.median_ms IS NOT NULL "
                           "ORDER BY e.median_ms, c.id LIMIT 1");
    b.bind_row(r.round.id);
    if (b.step()) {
      r.best_in_round = b.f64(0);
      r.best_candidate_in_round = b.i64(1);
      if (!best || *r.best_in_round < *best) best = r.best_in_round;
    }
    r.best_so_far = best;
  }
  return out;
}

int64_t Store::add_idea(int64_t round, const std::string& text, const std::string& source) {
  if (source != "builtin" && source != "llm" && source != "file")
    fail("bad-idea-source", "Idea source '" + source + "' is not builtin, llm or file.", "Use the proposer's name().");
  return insert_row(db_, "INSERT INTO ideas(round, text, source) VALUES (?,?,?)", round, text, source);
}

AddedCandidate Store::add_candidate(const NewCandidate& c) {
  if (!c.schedule.is_array())
    fail("bad-schedule", "A candidate's schedule must be a JSON array of steps.", "Pass the schedule's to_json().");
  const std::string hash = c.schedule_hash.empty() ? schedule_hash(c.schedule) : c.schedule_hash;
  Transaction t(db_);
  Statement q(db_, "SELECT id FROM candidates WHERE run = ? AND schedule_hash = ?");
  q.bind_row(c.run, hash);
  if (q.step()) return {q.i64(0), false};
  Statement(db_,
            "INSERT INTO candidates(run, round, idea, parent, schedule, schedule_hash, status, created) "
            "VALUES (?,?,?,?,?,?,'proposed',?)")
      .bind_row(c.run, c.round, c.idea, c.parent, c.schedule.dump(), hash, now_utc())
      .run();
  int64_t id = sqlite3_last_insert_rowid(db_);
  t.commit();
  return {id, true};
}

void Store::set_candidate_status(int64_t candidate, const std::string& status) {
  require_status(status);
  Transaction t(db_);
  Statement(db_, "UPDATE candidates SET status = ? WHERE id = ?").bind_row(status, candidate).run();
  t.commit();
}

std::optional<CandidateRecord> Store::candidate(int64_t id) const {
  Statement s(db_, (std::string("SELECT ") + kCandidateColumns + kCandidateJoins + "WHERE c.id = ?").c_str());
  s.bind_row(id);
  if (!s.step()) return std::nullopt;
  return read_candidate(s);
}

std::vector<CandidateRecord> Store::candidates(int64_t run) const {
  Statement s(db_,
              (std::string("SELECT ") + kCandidateColumns + kCandidateJoins + "WHERE c.run = ? ORDER BY c.id").c_str());
  s.bind_row(run);
  std::vector<CandidateRecord> out;
  while (s.step()) out.push_back(read_candidate(s));
  return out;
}

std::vector<CandidateRecord> Store::pending(int64_t run) const {
  Statement s(db_, (std::string("SELECT ") + kCandidateColumns + kCandidateJoins +
                    "WHERE c.run = ? AND c.status IN ('proposed', 'lowered') ORDER BY c.id")
                       .c_str());
  s.bind_row(run);
  std::vector<CandidateRecord> out;
  while (s.step()) out.push_back(read_candidate(s));
  return out;
}

void Store::save_artifacts(int64_t candidate, const Artifacts& a) {
  Transaction t(db_);
  Statement(db_,
            "INSERT OR REPLACE INTO artifacts(candidate, cuda_source, ir_text, kernel_bundle, audit_findings, "
            "compile_report) VALUES (?,?,?,?,?,?)")
      .bind_row(candidate, a.cuda_source, a.ir_text, a.kernel_bundle, a.audit_findings, a.compile_report)
      .run();
  Statement(db_, "UPDATE candidates SET status = 'lowered' WHERE id = ? AND status = 'proposed'")
      .bind_row(candidate)
      .run();
  t.commit();
}

std::optional<Artifacts> Store::artifacts(int64_t candidate) const {
  Statement s(db_,
              "SELECT cuda_source, ir_text, kernel_bundle, audit_findings, compile_report FROM artifacts "
              "WHERE candidate = ?");
  s.bind_row(candidate);
  if (!s.step()) return std::nullopt;
  Artifacts a;
  a.cuda_source = s.text(0);
  a.ir_text = s.text(1);
  a.kernel_bundle = s.json(2);
  a.audit_findings = s.json(3);
  a.compile_report = s.json(4);
  return a;
}

static void insert_evaluation(sqlite3* db, const EvaluationRecord& e) {
  Statement(db,
            "INSERT OR REPLACE INTO evaluations(candidate, verdict, verified, reason, median_ms, min_ms, max_ms, "
            "pct_of_floor, cost_estimate, max_abs_error, max_rel_error, precision, backend, result, measured_at) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
      .bind_row(e.candidate, e.verdict, e.verified ? 1 : 0, e.reason, e.median_ms, e.min_ms, e.max_ms, e.pct_of_floor,
                e.cost_estimate, e.max_abs_error, e.max_rel_error, e.precision, e.backend, e.result,
                e.measured_at.empty() ? now_utc() : e.measured_at)
      .run();
}

void Store::save_evaluation(const EvaluationRecord& e) {
  Transaction t(db_);
  insert_evaluation(db_, e);
  Statement(db_, "UPDATE candidates SET status = 'evaluated' WHERE id = ?").bind_row(e.candidate).run();
  if (sqlite3_changes(db_) != 1)
    store_fail(db_, "find candidate " + std::to_string(e.candidate) + " for its evaluation");
  t.commit();
}

void Store::reject(int64_t candidate, const std::string& code, const std::string& reason) {
  EvaluationRecord e;
  e.candidate = candidate;
  e.verdict = code;
  e.reason = reason;
  Transaction t(db_);
  insert_evaluation(db_, e);
  Statement(db_, "UPDATE candidates SET status = 'rejected' WHERE id = ?").bind_row(candidate).run();
  if (sqlite3_changes(db_) != 1) store_fail(db_, "find candidate " + std::to_string(candidate) + " to reject");
  t.commit();
}

std::optional<EvaluationRecord> Store::evaluation(int64_t candidate) const {
  Statement s(db_, (std::string("SELECT ") + kEvaluationColumns + "FROM evaluations e WHERE e.candidate = ?").c_str());
  s.bind_row(candidate);
  if (!s.step()) return std::nullopt;
  return read_evaluation(s);
}

std::vector<EvaluationRecord> Store::evaluations(int64_t run) const {
  Statement s(db_, (std::string("SELECT ") + kEvaluationColumns +
                    "FROM evaluations e JOIN candidates c ON c.id = e.candidate WHERE c.run = ? ORDER BY e.id")
                       .c_str());
  s.bind_row(run);
  std::vector<EvaluationRecord> out;
  while (s.step()) out.push_back(read_evaluation(s));
  return out;
}

std::vector<LeaderboardEntry> Store::leaderboard(int64_t run, int n) const {
  const char* key = rank_by_cost(run) ? "e.cost_estimate" : "e.median_ms";
  std::string sql = std::string("SELECT ") + kCandidateColumns + ", " + kEvaluationColumns + kCandidateJoins +
                    "JOIN evaluations e ON e.candidate = c.id WHERE c.run = ? AND e.verified = 1 AND " + key +
                    " IS NOT NULL ORDER BY " + key + ", c.id LIMIT ?";
  Statement s(db_, sql.c_str());
  s.bind_row(run, n);
  std::vector<LeaderboardEntry> out;
  while (s.step()) out.push_back({read_candidate(s), read_evaluation(s, kCandidateColumnCount)});
  return out;
}

std::vector<LeaderboardEntry> Store::recent_failures(int64_t run, int n) const {
  std::string sql = std::string("SELECT ") + kCandidateColumns + ", " + kEvaluationColumns + kCandidateJoins +
                    "JOIN evaluations e ON e.candidate = c.id WHERE c.run = ? AND e.verified = 0 "
                    "ORDER BY e.id DESC LIMIT ?";
  Statement s(db_, sql.c_str());
  s.bind_row(run, n);
  std::vector<LeaderboardEntry> out;
  while (s.step()) out.push_back({read_candidate(s), read_evaluation(s, kCandidateColumnCount)});
  return out;
}

std::vector<TriedCandidate> Store::to_tried(const std::vector<LeaderboardEntry>& entries) const {
  std::vector<TriedCandidate> out;
  for (const auto& e : entries) {
    TriedCandidate t;
    t.idea = e.candidate.idea_text;
    t.schedule = e.candidate.schedule;
    t.verdict = e.evaluation.verdict;
    t.reason = e.evaluation.reason;
    t.median_ms = e.evaluation.median_ms.value_or(0);
    t.pct_of_floor = e.evaluation.pct_of_floor.value_or(0);
    t.cost = e.evaluation.cost_estimate.value_or(0);
    t.candidate_id = e.candidate.id;
    if (auto a = artifacts(e.candidate.id)) {
      t.cuda_source = a->cuda_source;
      t.audit_findings = a->audit_findings;
    }
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<TriedCandidate> Store::best_tried(int64_t run, int n) const { return to_tried(leaderboard(run, n)); }
std::vector<TriedCandidate> Store::failed_tried(int64_t run, int n) const { return to_tried(recent_failures(run, n)); }

int64_t Store::add_llm_call(std::optional<int64_t> round, const ModelCall& call) {
  int64_t id = insert_row(db_,
                          "INSERT INTO llm_calls(round, purpose, prompt_tokens, completion_tokens, finish_reason, "
                          "error, raw_reply, created) VALUES (?,?,?,?,?,?,?,?)",
                          round, call.purpose, call.prompt_tokens, call.completion_tokens, call.finish_reason,
                          call.error, call.raw_reply, now_utc());
  if (!call.prompt.empty()) save_llm_prompt(id, call.prompt);
  return id;
}

std::vector<LlmCallRecord> Store::llm_calls(int64_t run) const {
  Statement s(db_,
              "SELECT l.id, l.round, l.purpose, l.prompt_tokens, l.completion_tokens, l.finish_reason, l.error, "
              "l.raw_reply, l.created FROM llm_calls l JOIN rounds r ON r.id = l.round WHERE r.run = ? ORDER BY l.id");
  s.bind_row(run);
  std::vector<LlmCallRecord> out;
  while (s.step()) {
    LlmCallRecord r;
    r.id = s.i64(0);
    r.round = s.opt_i64(1);
    r.call.purpose = s.text(2);
    r.call.prompt_tokens = s.i64(3);
    r.call.completion_tokens = s.i64(4);
    r.call.finish_reason = s.text(5);
    r.call.error = s.text(6);
    r.call.raw_reply = s.text(7);
    r.created = s.text(8);
    r.call.prompt = llm_prompt(r.id).value_or("");
    out.push_back(std::move(r));
  }
  return out;
}

std::string Store::integrity_check() const {
  Statement s(db_, "PRAGMA integrity_check");
  std::string out;
  while (s.step()) out += (out.empty() ? "" : "\n") + s.text(0);
  return out;
}

}  // namespace cusched::search
