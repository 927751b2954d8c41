// `cusched run --problem P --schedule S [--size small|bench] [--backend gpu|interp]`:
// lowers, audits, verifies and (on a GPU) times one schedule.
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "runtime/cuda_driver.h"
#include "runtime/npy.h"
#include "search/candidate_evaluation.h"
#include "tools/command.h"
#include "tools/flag_checks.h"
#include "tools/problem_options.h"
#include "tools/problem_source.h"
#include "tools/progress_heartbeat.h"
#include "tools/schedule_source.h"

namespace cusched::tools {
namespace {

struct RunCommandOptions {
  std::string problem, schedule = "best", size, shape, backend = "gpu", inputs, save_io;
  int save_io_trials = 0;
  bool json = false, strict = false, no_audit = false, per_launch = false, sanitize = false, no_time = false;
  uint64_t seed = 1;
};

void print_outcome(const search::CandidateOutcome& o) {
  std::printf("verdict      %s\n", o.verdict_text().c_str());
  std::printf("why          %s\n", o.reason.c_str());
  std::printf("schedule     %s (precision %s%s)\n", o.schedule_hash.c_str(), precision_name(o.precision).c_str(),
              o.math == "fast" ? ", fast math" : "");
  if (o.audit_findings.is_array() && !o.audit_findings.empty())
    std::printf("audit        %zu finding(s), %.0f ms\n", o.audit_findings.size(), o.audit_ms);
  if (o.interp) {
    std::printf("backend      interpreter (CPU), %d input sets, no GPU time measured\n", o.interp->trials);
    std::printf("errors       max abs %.3g, max rel %.3g, rel L2 %.3g\n", o.interp->max_abs_err, o.interp->max_rel_err,
                o.interp->rel_l2_err);
    std::printf("cost model   %.4f ms (estimate at the bench size, not a measurement)\n", o.cost_estimate_ms);
  }
  if (o.gpu) {
    const auto& g = *o.gpu;
    std::printf("backend      %s\n", g.device_name.c_str());
    std::printf("errors       max abs %.3g, max rel %.3g, rel L2 %.3g over %d trials\n", g.max_abs_err, g.max_rel_err,
                g.rel_l2_err, g.trials);
    if (g.median_ms > 0) {
      std::printf("time         median %.4f ms (min %.4f, max %.4f) over %zu runs, L2 flushed\n", g.median_ms, g.min_ms,
                  g.max_ms, g.times_ms.size());
      std::printf("floor        %.4f ms: %.1f%% of the floor reached\n", g.floor_ms, g.pct_of_floor);
      for (const auto& [kernel, ms] : g.launch_ms)
        std::printf("launch       %-24s median %.4f ms alone\n", kernel.c_str(), ms);
    }
    const auto& t = g.phase_ms;
    std::printf(
        "phases       %s check%s | compile %.0f, generate %.0f, upload %.0f, candidate %.0f, reference %.0f, "
        "download %.0f, check %.0f, timing %.0f, GPU lock wait %.0f ms\n",
        g.check_path.c_str(), g.trial_cache_hit ? ", trial cache hit" : "", t.compile, t.generate, t.upload,
        t.candidate, t.reference, t.download, t.check, t.timing, t.gpu_wait);
  }
}

// Reads every <input>.npy of `dir` now, so that a bad file is answered before any GPU work
// (and on a machine without one): its format, dtype and shape at `size`.
void check_input_files(const Problem& p, const std::string& size, const std::string& dir) {
  if (!std::filesystem::is_directory(dir))
    fail("bad-inputs-dir", "--inputs '" + dir + "' is not a directory.",
         "Pass a directory holding <input name>.npy files.");
  const SizeBindings& sizes = p.size(size);
  for (const auto& in : p.pipeline.inputs()) {
    std::string path = dir + "/" + in->name + ".npy";
    if (!std::filesystem::exists(path)) continue;
    runtime::NpyArray a = runtime::read_npy(path);
    std::vector<int64_t> shape = eval_shape(in->shape, sizes);
    if (a.dtype != in->dtype || a.shape != shape)
      fail("npy-shape-mismatch",
           "The file " + path + " holds " + dtype_name(a.dtype) + " " + nlohmann::json(a.shape).dump() +
               " but input '" + in->name + "' is " + dtype_name(in->dtype) + " " + nlohmann::json(shape).dump() +
               " at the " + size + " size.",
           "Save the input with the dtype and shape the problem declares (see `cusched problems --json`).");
  }
}

CommandRegistration run_command{
    {"run", "Lower, audit, verify and time one schedule of a problem", [](CLI::App& sub) -> std::function<int()> {
       auto o = std::make_shared<RunCommandOptions>();
       add_problem_option(sub, o->problem);
       sub.add_option("--schedule,-s", o->schedule, "Schedule: JSON file, -, baseline or best (default best)");
       add_size_options(sub, o->size, o->shape, "(default: the problem's default size on gpu, small on interp)");
       sub.add_option("--backend", o->backend, "gpu or interp")->check(CLI::IsMember({"gpu", "interp"}));
       sub.add_option("--inputs", o->inputs, "Directory of <input>.npy files used as the first trial");
       sub.add_option("--save-io", o->save_io, "Directory to write inputs and outputs as .npy");
       sub.add_option("--save-io-trials", o->save_io_trials,
                      "With --save-io: write the first N trials only (default: every trial)")
           ->check(CLI::Range(1, 1000));
       sub.add_option("--seed", o->seed, "Base seed of the random inputs")->check(seed_value());
       sub.add_flag("--strict", o->strict, "Use the problem's strict 1e-4 tolerance");
       sub.add_flag("--no-audit", o->no_audit, "Skip the Clang audit");
       sub.add_flag("--sanitize", o->sanitize,
                    "Also run compute-sanitizer (memcheck, racecheck, synccheck) on the schedule at the small size");
       sub.add_flag("--no-time", o->no_time, "Verify only: skip the timed launches");
       sub.add_flag("--json", o->json, "Print the outcome as JSON");
       sub.add_flag("--per-launch", o->per_launch,
                    "Also time each launch of a multi-kernel schedule alone (L2 flushed, same repeats)");
       return [o] {
         try {
           Problem p = resolve_problem(o->problem);
           search::EvalConfig cfg;
           cfg.backend = o->backend;
           if (o->backend == "interp" && (!o->inputs.empty() || !o->save_io.empty()))
             fail("flag-needs-gpu-backend",
                  std::string(o->inputs.empty() ? "--save-io" : "--inputs") +
                      " works only with --backend gpu; the interpreter draws its own inputs and keeps no .npy files.",
                  "Drop --inputs and --save-io, or run with --backend gpu on a machine with a GPU.");
           cfg.size = resolve_size(p, o->size, o->shape, o->backend == "gpu" ? "" : "small");
           cfg.seed = o->seed;
           cfg.strict = o->strict;
           cfg.inputs_dir = o->inputs;
           if (!o->inputs.empty()) check_input_files(p, cfg.size, o->inputs);
           cfg.save_io_dir = o->save_io;
           if (o->save_io_trials > 0 && o->save_io.empty())
             fail("flag-needs-save-io",
                  "--save-io-trials limits the trials --save-io writes, and --save-io is not given.",
                  "Add --save-io DIR, or drop --save-io-trials.");
           cfg.save_io_trials = o->save_io_trials;
           cfg.audit = !o->no_audit;
           cfg.time_each_launch = o->per_launch;
           cfg.time_it = !o->no_time;
           if (cfg.backend == "gpu") {
             if (auto err = runtime::driver_available()) {
               std::cerr << err->message << "\n";
               Error e;
               e.op = "run";
               e.code = "no-gpu";
               e.message = "No GPU is usable here: " + err->message;
               e.hint =
                   "Run with --backend interp to verify in the CPU interpreter (no timing), or on a machine "
                   "with a GPU.";
               print_error_json(e);
               return kExitNoGpu;
             }
             require_fits_device(p, cfg.size, device_memory_bytes());
           }
           auto steps = load_schedule_json(p, o->schedule);
           search::CandidateOutcome out;
           {
             std::string sizes;
             for (const auto& [k, v] : p.size(cfg.size))
               sizes += (sizes.empty() ? "" : ",") + k + "=" + std::to_string(v);
             ProgressHeartbeat progress(
                 cfg.backend == "interp" ? "verifying in the CPU interpreter" : "verifying and timing on the GPU",
                 "run: " + p.name + " at the '" + cfg.size + "' size (" + sizes + "): lowering" +
                     (cfg.audit ? ", auditing" : "") +
                     (cfg.backend == "interp"
                          ? " and verifying in the CPU interpreter on several input sets (minutes at bench sizes)"
                          : ", compiling, verifying and timing on the GPU"));
             out = search::evaluate_candidate(p, steps, cfg, nullptr);
           }
           if (o->sanitize && cfg.backend == "gpu" && out.verdict == runtime::Verdict::ok) {
             out.sanitizer = search::sanitize_schedule(p, out.steps, o->strict);
             if (!out.sanitizer.value("clean", false)) {
               out.verdict = runtime::Verdict::sanitizer_findings;
               out.reason = "compute-sanitizer reported errors or could not run: " + out.sanitizer.dump();
             }
           }
           if (o->json)
             std::cout << out.to_json().dump(2) << "\n";
           else
             print_outcome(out);
           return out.verified() ? kExitOk : kExitFailure;
         } catch (const UserError& e) {
           print_error_json(e.error());
           return kExitFailure;
         }
       };
     }}};

}  // namespace
}  // namespace cusched::tools
