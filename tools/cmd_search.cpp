// `cusched search --problem P [...]`: the search loop with the built-in, LLM or
// file proposer, stored in a SQLite file; --resume continues a killed run. Without
// --mpi one process evaluates on every GPU of its host; with --mpi (under mpirun)
// rank 0 searches and the other ranks evaluate.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "runtime/cuda_driver.h"
#include "runtime/device_info.h"
#include "search/builtin_proposer.h"
#include "search/file_proposer.h"
#include "search/host_evaluator.h"
#include "search/llm_client.h"
#include "search/llm_proposer.h"
#include "search/loop.h"
#include "search/mpi_protocol.h"
#include "search/prompt_problem.h"
#ifdef CUSCHED_HAVE_MPI
#include "search/mpi_evaluator.h"
#include "search/mpi_rank_server.h"
#include "search/mpi_session.h"
#endif
#include "tools/command.h"
#include "tools/flag_checks.h"
#include "tools/problem_options.h"
#include "tools/problem_source.h"
#include "tools/schedule_source.h"

namespace cusched::tools {
namespace {

struct SearchCommandOptions {
  std::string problem, shape, proposer = "builtin", db, backend, proposals;
  int rounds = 4, ideas = 4, per_idea = 4;
  int64_t budget_candidates = 0, budget_tokens = 0;
  double budget_minutes = 0;
  bool resume = false, no_audit = false, strict = false, mpi = false, no_sanitize = false, json = false;
  double sanitize_seconds = runtime::kSanitizerToolSeconds;
  double rank_timeout = 0, rank_silence = 30;
  std::string goal, on_stall = "stop";
  double reference_ms = 0, stall_threshold = 1, cut_factor = 4, timing_budget = 2;
  int stall_rounds = 3;
  std::string replay_timings;
  uint64_t seed = 1;
  int threads = 0;
  search::LlmConfig llm;
  int llm_max_completion_tokens = 8192;
  int64_t llm_prompt_tokens = 30000;
  double llm_temperature = -1;  // below 0: not sent
};

// The latest run of `problem` in the store, if any.
std::optional<search::RunInfo> latest_run_of(const search::Store& store, const std::string& problem) {
  auto runs = store.list_runs();
  for (auto it = runs.rbegin(); it != runs.rend(); ++it)
    if (it->problem == problem) return *it;
  return std::nullopt;
}

// The exit code of a search that stopped with `status` (docs/steering.md lists them).
int search_exit_code(search::SearchStatus status) {
  switch (status) {
    case search::SearchStatus::goal_met:
    case search::SearchStatus::finished:
      return kExitOk;
    case search::SearchStatus::budget_spent:
      return kExitBudgetSpent;
    case search::SearchStatus::stalled:
      return kExitStalled;
    case search::SearchStatus::running:
    case search::SearchStatus::failed:
      return kExitFailure;
  }
  return kExitFailure;
}

#ifdef CUSCHED_HAVE_MPI
// The longest wait for one result from an evaluator rank: --rank-timeout, else a
// bound on one evaluation of the backend.
double rank_timeout_s(const SearchCommandOptions& o, const search::SearchOptions& so) {
  if (o.rank_timeout > 0) return o.rank_timeout;
  return so.backend == "interp" ? 120 : so.watchdog_s + 600;
}

// Rank 0's evaluator over the other ranks: on the gpu backend only ranks with a GPU
// take work; rank 0 evaluates itself when no rank is left.
std::shared_ptr<search::Evaluator> mpi_evaluator(const search::MpiSession& mpi, const SearchCommandOptions& o,
                                                 const search::SearchOptions& so, std::ostream& log) {
  std::vector<search::RankInfo> ranks;
  std::string listing;
  for (const auto& r : mpi.ranks()) {
    if (r.rank == 0) continue;
    bool used = so.backend == "interp" || r.device >= 0;
    listing += " " + std::to_string(r.rank) + "@" + r.host +
               (so.backend == "interp" ? ""
                : r.device >= 0        ? ":GPU" + std::to_string(r.device)
                                       : ":no-GPU(idle)");
    if (used) ranks.push_back(r);
  }
  std::shared_ptr<search::Evaluator> fallback;
  if (so.backend == "interp" || !so.devices.empty()) fallback = search::host_evaluator(so);
  log << "MPI: " << mpi.size() << " rank(s); rank 0 on " << mpi.self().host
      << " searches; evaluators:" << (listing.empty() ? " none (rank 0 evaluates)" : listing) << std::endl;
  // mpirun binds ranks to one core by default for -n 2 or less: rank 0's CPU pool
  // and a rank's worker process (CUDA start-up, NVRTC) then share that core.
  for (const auto& r : mpi.ranks())
    if (r.cpus == 1 && (r.rank == 0 || so.backend != "interp"))
      log << "warning: rank " << r.rank << " may run on one CPU core only; "
          << (r.rank == 0 ? "lowering and auditing" : "its GPU worker") << " will be slow there: launch with "
          << "mpirun --bind-to none" << std::endl;
  return std::make_shared<search::MpiEvaluator>(std::move(ranks), fallback, rank_timeout_s(o, so), o.rank_silence, log);
}
#endif

// The summary of a finished search as JSON (search --json prints it on stdout).
nlohmann::json summary_json(const search::SearchSummary& s, const std::string& db, const std::string& backend) {
  nlohmann::json j = {{"ok", s.best.has_value()},
                      {"store", db},
                      {"run", s.run},
                      {"status", search::status_name(s.status)},
                      {"rounds_finished", s.rounds_finished},
                      {"evaluated", s.evaluated},
                      {"verified", s.verified},
                      {"problem_class", s.problem_class},
                      {"backend", backend}};
  j["best_candidate"] = s.best_candidate ? nlohmann::json(*s.best_candidate) : nlohmann::json();
  j["best"] = s.best ? nlohmann::json(*s.best) : nlohmann::json();
  j["baseline"] = s.baseline ? nlohmann::json(*s.baseline) : nlohmann::json();
  j["unit"] = backend == "interp" ? "ms, cost model estimate at the bench size (not a measurement)"
                                  : "ms, GPU median with the L2 flushed";
  return j;
}

int run_search(const SearchCommandOptions& o, CLI::App& sub) {
  // With --json the progress lines go to stderr and stdout holds the summary only.
  std::ostream& log = o.json ? std::cerr : std::cout;
#ifdef CUSCHED_HAVE_MPI
  // Every rank joins the session first; ranks other than 0 only evaluate.
  std::unique_ptr<search::MpiSession> mpi;
  if (o.mpi) {
    mpi = std::make_unique<search::MpiSession>();
    if (mpi->rank() != 0) return search::serve_rank(*mpi, std::cerr);
  }
#else
  if (o.mpi)
    fail("mpi-not-built", "This cusched was built without MPI, so --mpi is not available.",
         "Install libopenmpi-dev and rebuild (CUSCHED_WITH_MPI=ON), or drop --mpi to use every GPU of this host.");
#endif
  // A resumed run takes its problem from the store when -p is left out or names a file
  // that is gone: the store keeps every run's definition.
  bool from_store =
      o.resume && (o.problem.empty() || (names_problem_file(o.problem) && !std::filesystem::exists(o.problem)));
  if (o.problem.empty() && !o.resume)
    fail("missing-problem", "search needs a problem.",
         "Pass -p NAME or -p path/to/problem.json (or --resume --db FILE).");
  if (from_store && o.db.empty())
    fail("missing-db", "Resuming without the problem file needs the store.",
         "Pass --db FILE, the store the search wrote.");
  std::optional<Problem> problem;
  if (!from_store) problem = resolve_problem(o.problem);
  search::SearchOptions so;
  so.rounds = o.rounds;
  so.ideas = o.ideas;
  so.per_idea = o.per_idea;
  so.budget_candidates = o.budget_candidates;
  so.budget_minutes = o.budget_minutes;
  so.budget_tokens = o.budget_tokens;
  so.seed = o.seed;
  so.audit = !o.no_audit;
  so.cut_factor = o.cut_factor;
  so.timing_budget_s = o.timing_budget;
  so.sanitize_best = !o.no_sanitize;
  so.sanitize_seconds = o.sanitize_seconds;
  so.strict = o.strict;
  so.cpu_threads = o.threads;
  so.backend = o.backend.empty() ? "gpu" : o.backend;
  if (!o.goal.empty())
    so.goal = search::Goal::parse(o.goal, o.reference_ms > 0 ? std::optional<double>(o.reference_ms) : std::nullopt);
  else if (sub.count("--reference-ms"))
    fail("bad-goal", "--reference-ms is only read with a speedup goal.", "Add --goal 'speedup>=F', or drop it.");
  so.stall = {o.stall_rounds, o.stall_threshold / 100.0};
  so.continue_on_stall = o.on_stall == "continue";

  std::string db = o.db.empty() ? search::default_db_path(problem->name) : o.db;
  search::Store store(db, o.resume ? search::Store::Mode::existing_only : search::Store::Mode::create_if_missing);
  std::optional<search::RunInfo> resumed;
  if (o.resume) {
    if (from_store) {
      if (auto id = store.latest_run()) resumed = store.find_run(*id);
    } else {
      resumed = latest_run_of(store, problem->name);
    }
    if (!resumed)
      fail("no-run-to-resume",
           "The store '" + db + "' has no run" + (problem ? " of problem '" + problem->name + "'" : "") + ".",
           "Start a search without --resume, or name the right store with --db.");
    if (from_store || !resumed->problem_definition.is_null()) problem = problem_of_run(*resumed);
    // A resumed run keeps its own settings unless a flag overrides them.
    const auto& c = resumed->config;
    if (!sub.count("--rounds") && c.contains("rounds")) so.rounds = c["rounds"];
    if (!sub.count("--ideas") && c.contains("ideas")) so.ideas = c["ideas"];
    if (!sub.count("--per-idea") && c.contains("per_idea")) so.per_idea = c["per_idea"];
    if (!sub.count("--budget-candidates") && c.contains("budget_candidates"))
      so.budget_candidates = c["budget_candidates"];
    if (!sub.count("--budget-tokens") && c.contains("budget_tokens")) so.budget_tokens = c["budget_tokens"];
    if (!sub.count("--seed")) so.seed = resumed->seed;
    if (!sub.count("--stall-rounds") && c.contains("stall_rounds")) so.stall.rounds = c["stall_rounds"];
    if (!sub.count("--stall-threshold") && c.contains("stall_threshold")) so.stall.min_gain = c["stall_threshold"];
    if (!sub.count("--on-stall") && c.contains("on_stall")) so.continue_on_stall = c["on_stall"] == "continue";
    so.backend = resumed->backend;
    so.size = resumed->size;
  }
  so.replay_timings = o.replay_timings;
  bool gpu_elsewhere = false;  // an MPI evaluator rank has a GPU
#ifdef CUSCHED_HAVE_MPI
  if (mpi)
    for (const auto& r : mpi->ranks()) gpu_elsewhere = gpu_elsewhere || (r.rank != 0 && r.device >= 0);
#endif
  if (so.backend == "gpu") {
    if (auto err = runtime::driver_available(); err && gpu_elsewhere) {
      so.devices.clear();  // only the ranks time; rank 0 has no GPU to fall back on
    } else if (err) {
      log << "no GPU here (" << err->message
          << "): verifying in the CPU interpreter at the small size and ranking by the "
          << "cost model; every time shown is a cost model estimate, not a measurement" << std::endl;
      so.backend = "interp";
      so.size.clear();
    } else {
      so.devices.clear();
      for (int d = 0; d < runtime::device_count(); ++d) so.devices.push_back(d);
    }
  }

  if (!resumed) {
    so.size = resolve_size(*problem, "", o.shape, so.backend == "gpu" ? "" : "small");
    if (so.backend == "gpu" && !gpu_elsewhere) require_fits_device(*problem, so.size, device_memory_bytes());
  } else if (!o.shape.empty()) {
    fail("shape-on-resume", "A resumed run keeps the shape it was started with.", "Drop --shape, or start a new run.");
  }

  std::unique_ptr<search::Proposer> proposer;
  std::unique_ptr<search::LlmClient> client;
  search::LlmProposer* llm_proposer = nullptr;
  if (o.proposer == "builtin") {
    search::BuiltinProposerConfig bc;
    bc.sizes = {so.resolved_size()};
    if (so.resolved_size() != problem->default_size) bc.sizes.push_back(problem->default_size);
    bc.strict = so.strict;
    bc.seed = so.seed;
    proposer = std::make_unique<search::BuiltinProposer>(*problem, bc);
  } else if (o.proposer == "llm") {
    search::LlmConfig lc = o.llm;
    if (o.llm_temperature >= 0) lc.temperature = o.llm_temperature;
    lc.fill_from_env();
    lc.require_complete();
    client = std::make_unique<search::LlmClient>(lc);
    search::LlmProposerConfig pc;
    pc.run_token_budget = so.budget_tokens;
    pc.max_completion_tokens = o.llm_max_completion_tokens;
    pc.prompt_token_budget = o.llm_prompt_tokens;
    pc.problem_brief = search::problem_brief(*problem, {so.backend, so.resolved_size()});
    pc.gpu_timing = so.backend == "gpu";
    auto llm = std::make_unique<search::LlmProposer>(*client, pc);
    llm_proposer = llm.get();
    if (resumed) {
      int64_t used = 0;
      for (const auto& r : store.round_summaries(resumed->id))
        used += r.round.prompt_tokens + r.round.completion_tokens;
      llm->set_tokens_used(used);
    }
    proposer = std::move(llm);
  } else {
    if (o.proposals.empty())
      fail("missing-proposals", "The file proposer needs --proposals.",
           "Pass --proposals FILE (a .json, a .jsonl, a folder) or --proposals - for JSON lines on stdin.");
    proposer = std::make_unique<search::FileProposer>(std::vector<std::string>{o.proposals});
  }

  std::shared_ptr<search::Evaluator> evaluator;
#ifdef CUSCHED_HAVE_MPI
  if (mpi) evaluator = mpi_evaluator(*mpi, o, so, log);
#endif
  search::SearchLoop loop(*problem, store, *proposer, so, log, evaluator);
  search::SearchSummary s = resumed ? loop.resume(resumed->id) : loop.run();
  nlohmann::json summary = summary_json(s, db, so.backend);
  if (llm_proposer && llm_proposer->unavailable()) {
    // A search whose model never answered did not search: say so and fail.
    Error e;
    e.op = "search";
    e.code = "llm-unavailable";
    e.message = "The LLM proposer got no reply from " + client->config().base_url + " (model " +
                client->config().model +
                ") in a whole round, so the search ran without its proposals: " + llm_proposer->unavailable_reason();
    e.hint =
        "Check --llm-base-url, --llm-model and OPENAI_API_KEY (each call and its reply are in the store's "
        "llm_calls), then continue with `cusched search --resume --db " +
        db + "`.";
    log << "search: " << e.message << std::endl;
    summary["ok"] = false;
    summary["error"] = e.to_json();
    if (o.json)
      std::cout << summary.dump(2) << std::endl;
    else
      print_error_json(e);
    return static_cast<int>(kExitFailure);
  }
  if (o.json) std::cout << summary.dump(2) << std::endl;
  return search_exit_code(s.status);
}

CommandRegistration search_command{
    {"search", "Search schedules of a problem in rounds (built-in, LLM or file proposer)",
     [](CLI::App& sub) -> std::function<int()> {
       auto o = std::make_shared<SearchCommandOptions>();
       add_problem_option(sub, o->problem, false, "; with --resume it may be left out");
       add_shape_option(sub, o->shape, "the default size (small on the interpreter)");
       sub.add_option("--proposer", o->proposer, "builtin (default), llm or file")
           ->check(CLI::IsMember({"builtin", "llm", "file"}));
       sub.add_option("--rounds", o->rounds, "Rounds (default 4)")->check(CLI::PositiveNumber);
       sub.add_option("--ideas", o->ideas, "Ideas per round (default 4)")->check(CLI::PositiveNumber);
       sub.add_option("--per-idea", o->per_idea, "Schedules per idea (default 4)")->check(CLI::PositiveNumber);
       sub.add_option("--budget-candidates", o->budget_candidates, "Stop after this many evaluations in the run")
           ->check(integer_in(0, INT64_MAX));
       sub.add_option("--budget-minutes", o->budget_minutes, "Stop after this many minutes")->check(finite_in(0, 1e7));
       sub.add_option("--budget-tokens", o->budget_tokens, "Stop after this many LLM tokens in the run")
           ->check(integer_in(0, INT64_MAX));
       sub.add_option("--db", o->db, "Store file (default cusched-<problem>.db)");
       sub.add_flag("--resume", o->resume, "Continue the latest run of the problem in the store");
       sub.add_option("--seed", o->seed, "Seed of the proposer and of the random inputs (default 1)")
           ->check(seed_value());
       sub.add_option("--backend", o->backend, "gpu (default; interp when no GPU is present) or interp")
           ->check(CLI::IsMember({"gpu", "interp"}));
       sub.add_option("--threads", o->threads, "CPU threads lowering and auditing (default min(cores, 4))")
           ->check(integer_in(0, 256));
       sub.add_flag("--no-audit", o->no_audit, "Skip the Clang audit");
       sub.add_flag("--no-sanitize", o->no_sanitize, "Skip compute-sanitizer on the final best (gpu backend)");
       sub.add_option("--sanitize-seconds", o->sanitize_seconds,
                      "Stop each compute-sanitizer tool's run on the final best after this many seconds (default 90); "
                      "a run stopped reports nothing and the best is then not reported clean")
           ->check(CLI::Range(1.0, 3600.0));
       sub.add_flag("--strict", o->strict, "Use the problem's strict 1e-4 tolerance");
       sub.add_option("--llm-base-url", o->llm.base_url, "OpenAI-compatible base URL (or CUSCHED_LLM_BASE_URL)");
       sub.add_option("--llm-model", o->llm.model, "Model name (or CUSCHED_LLM_MODEL)");
       sub.add_option("--llm-api-key", o->llm.api_key, "API key (prefer OPENAI_API_KEY)");
       sub.add_option("--llm-max-completion-tokens", o->llm_max_completion_tokens,
                      "Completion token limit per model call, sent as max_completion_tokens (default 8192)")
           ->check(integer_in(1, 10000000));
       sub.add_option("--llm-prompt-tokens", o->llm_prompt_tokens,
                      "Estimated token size a prompt is trimmed to (default 30000)")
           ->check(integer_in(1000, 100000000));
       sub.add_option("--llm-temperature", o->llm_temperature,
                      "Sampling temperature (default: the server's; reasoning models accept only their default)")
           ->check(finite_in(0, 2));
       sub.add_option("--proposals", o->proposals, "File proposer: .json, .jsonl, folder, or - for stdin");
       sub.add_flag("--mpi", o->mpi,
                    "Under mpirun: rank 0 searches, ranks 1..N-1 evaluate (one GPU each, or the interpreter)");
       sub.add_option("--rank-timeout", o->rank_timeout,
                      "--mpi: seconds to wait for one result before a rank is dropped (default: 120 interp, "
                      "watchdog + 600 gpu)")
           ->check(finite_in(0.001, 1e7));
       sub.add_option("--rank-silence", o->rank_silence,
                      "--mpi: seconds without a heartbeat from a rank that is evaluating (it sends one "
                      "every " +
                          std::to_string(search::mpi_protocol::kHeartbeatMilliseconds) +
                          " ms) before it is taken for dead and dropped (default 30)")
           ->check(CLI::Range(2.0, 3600.0));
       sub.add_option("--goal", o->goal,
                      "Stop when met: ms<=T (time), floor>=P% (share of the floor) or speedup>=F (over the "
                      "baseline, or over --reference-ms); exit 0 when met, 5 when the rounds or a budget ran out");
       sub.add_option("--reference-ms", o->reference_ms, "speedup goals: the time the speedup is over, in ms")
           ->check(finite_in(1e-9, 1e9));
       sub.add_option("--cut-factor", o->cut_factor,
                      "Time a candidate once when its first timed run is slower than this many times the best so "
                      "far (default 4; 0: time every candidate fully)")
           ->check(finite_in(0, 1e6));
       sub.add_option("--timing-budget", o->timing_budget,
                      "Seconds of timed runs per candidate: a slow candidate's series stops after at least 5 runs "
                      "once its runs add up to this (default 2; 0: always 30 runs)")
           ->check(finite_in(0, 1e4));
       sub.add_option("--stall-rounds", o->stall_rounds,
                      "Stalled after this many rounds without a gain above --stall-threshold, or with every "
                      "candidate rejected (default 3; 0: never)")
           ->check(integer_in(0, 1000000));
       sub.add_option("--stall-threshold", o->stall_threshold,
                      "Least gain of the best time over the stall window, in percent (default 1)")
           ->check(finite_in(0, 100));
       sub.add_option("--on-stall", o->on_stall,
                      "stop (default; exit 6, with a diagnosis) or continue (print the diagnosis and go on)")
           ->check(CLI::IsMember({"stop", "continue"}));
       sub.add_flag("--json", o->json,
                    "Progress on stderr and, at the end, the summary as JSON on stdout (store, run, best)");
       sub.add_option("--replay-timings", o->replay_timings,
                      "JSON file of {schedule hash: ms}: evaluators take these times instead of measuring");
       return [o, &sub] {
         try {
           return run_search(*o, sub);
         } catch (const UserError& e) {
           print_error_json(e.error());
           return static_cast<int>(kExitUsage);
         }
       };
     }}};

}  // namespace
}  // namespace cusched::tools
