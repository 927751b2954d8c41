// rownorm: a new operation through the installed cusched library, from its definition
// to a searched, exported kernel. Runs without a GPU (the CPU interpreter verifies, the
// cost model ranks); with one it also verifies and times on it.
//   rownorm [--rounds N] [--db FILE] [--out FILE]
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

#include "rownorm_problem.h"

using namespace cusched;

namespace {

struct Args {
  int rounds = 2;
  std::string db = "rownorm.db", out = "rownorm_kernel.cu";
};

Args parse(int argc, char** argv) {
  Args a;
  for (int n = 1; n + 1 < argc; n += 2) {
    if (!std::strcmp(argv[n], "--rounds"))
      a.rounds = std::stoi(argv[n + 1]);
    else if (!std::strcmp(argv[n], "--db"))
      a.db = argv[n + 1];
    else if (!std::strcmp(argv[n], "--out"))
      a.out = argv[n + 1];
  }
  return a;
}

// Runs one schedule end to end (validate, lower, emit, audit, verify) and prints the verdict.
bool run(const Problem& p, const nlohmann::json& steps, const std::string& backend, const std::string& size,
         const char* what) {
  search::EvalConfig cfg;
  cfg.backend = backend;
  cfg.size = size;
  search::CandidateOutcome out = search::evaluate_candidate(p, steps, cfg, nullptr);
  std::printf("%-9s %-22s %s at %s: %s (%s)", backend.c_str(), what, out.schedule_hash.c_str(), size.c_str(),
              out.verdict_text().c_str(), out.reason.c_str());
  if (out.gpu && out.gpu->median_ms > 0) std::printf(", median %.4f ms", out.gpu->median_ms);
  std::printf("\n");
  return out.verified();
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  try {
    const Problem p = make_rownorm();

    // 1. A schedule by hand, checked at both sizes before anything runs.
    Schedule hand = block_per_row_schedule(p.context("small"));
    for (const char* size : {"small", "bench"}) {
      ValidationResult v = validate_schedule(p.context(size), hand.to_json());
      if (!v.ok) {
        std::cerr << "the hand schedule is illegal at " << size << ": " << v.error.message << " " << v.error.hint
                  << "\n";
        return 1;
      }
    }
    std::printf("schedule  %s\n%s", hand.hash().c_str(), hand.to_text().c_str());

    // 2. Lowered and emitted: the loop IR and the CUDA source a GPU would compile.
    LoweredProgram program = lower(Schedule::from_json(p.context("bench"), hand.to_json()), p.name);
    KernelBundle bundle = make_bundle(program);
    std::printf("lowered   %zu kernel(s), %zu lines of CUDA\n", program.kernels.size(),
                static_cast<size_t>(std::count(bundle.source.begin(), bundle.source.end(), '\n')));

    // 3. Verified in the CPU interpreter against the float64 evaluation, the automatic
    //    baseline as well as the hand schedule; on the GPU too where there is one.
    bool ok = run(p, hand.to_json(), "interp", "small", "hand schedule");
    ok = run(p, baseline_schedule_of(p), "interp", "small", "automatic baseline") && ok;
    const auto no_gpu = runtime::driver_available();
    if (no_gpu)
      std::printf("gpu       skipped: %s\n", no_gpu->message.c_str());
    else
      ok = run(p, hand.to_json(), "gpu", "bench", "hand schedule") && ok;

    // 4. A short search with the built-in proposer, kept in a SQLite store.
    search::Store store(args.db, search::Store::Mode::create_if_missing);
    search::BuiltinProposerConfig pc;
    search::BuiltinProposer proposer(p, pc);
    search::SearchOptions so;
    so.backend = no_gpu ? "interp" : "gpu";
    so.rounds = args.rounds;
    so.ideas = 2;
    so.per_idea = 2;
    search::SearchLoop loop(p, store, proposer, so, std::cout);
    search::SearchSummary summary = loop.run();
    std::printf("search    run %lld: %d evaluated, %d verified, status %s\n", static_cast<long long>(summary.run),
                summary.evaluated, summary.verified, search::status_name(summary.status).c_str());
    if (!summary.best_candidate) {
      std::cerr << "the search verified no candidate\n";
      return 1;
    }

    // 5. The best candidate as a standalone .cu file with a launcher and a PyTorch check.
    search::ExportOptions eo;
    eo.torch_op = p.torch_semantics;
    eo.atol = p.atol;
    eo.rtol = p.rtol;
    eo.file_name = args.out;
    std::ofstream(args.out) << search::export_candidate(store, summary.best_candidate, std::nullopt, eo);
    std::printf("exported  candidate %lld to %s\n", static_cast<long long>(*summary.best_candidate), args.out.c_str());
    return ok ? 0 : 1;
  } catch (const UserError& e) {
    std::cerr << e.error().message << " " << e.error().hint << "\n";
    return 1;
  }
}
