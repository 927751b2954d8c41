#include "search/candidate_evaluation.h"

#include <chrono>
#include <map>
#include <optional>
#include <set>

#include "codegen/bundle.h"
#include "codegen/device_library.h"
#include "codegen/lower.h"
#include "problems/automatic_baseline.h"
#include "problems/contract.h"
#include "runtime/compiled_code_scan.h"
#include "runtime/cuda_driver.h"
#include "runtime/device_info.h"
#include "runtime/nvrtc_compiler.h"
#include "runtime/sanitizer.h"
#include "search/cost_model.h"
#ifdef CUSCHED_HAVE_AUDIT
#include "audit/audit.h"
#endif

namespace cusched::search {

// Every field, written and read by name; from_json throws when one is missing.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(EvalConfig, backend, size, seed, strict, time_it, inputs_dir, save_io_dir,
                                   save_io_trials, time_each_launch, watchdog_s, audit, check_bench, cut_ms,
                                   timing_budget_ms)

nlohmann::json EvalConfig::to_json() const { return *this; }

EvalConfig EvalConfig::from_json(const nlohmann::json& j) { return j.get<EvalConfig>(); }

nlohmann::json CandidateOutcome::to_json() const {
  nlohmann::json j = {{"verdict", verdict_text()},
                      {"reason", reason},
                      {"schedule_hash", schedule_hash},
                      {"precision", precision_name(precision)},
                      {"math", math},
                      {"cost_estimate_ms", cost_estimate_ms},
                      {"audit_findings", audit_findings},
                      {"audit_ms", audit_ms}};
  if (!error.code.empty()) j["error"] = error.to_json();
  if (gpu) j["gpu"] = gpu->to_json();
  if (interp) j["interp"] = interp->to_json();
  if (!sanitizer.is_null()) j["sanitizer"] = sanitizer;
  return j;
}

nlohmann::json CandidateOutcome::to_json_with_artifacts() const {
  nlohmann::json j = to_json();
  j["steps"] = steps;
  j["ir_text"] = ir_text;
  if (!bundle.source.empty()) j["bundle"] = bundle.to_json();
  return j;
}

CandidateOutcome CandidateOutcome::from_json(const nlohmann::json& j) {
  CandidateOutcome o;
  if (const std::string v = j.at("verdict"); !v.empty()) {
    o.verdict = runtime::verdict_from_name(v);
    if (!o.verdict)
      fail("bad-result", "The candidate outcome names an unknown verdict '" + v + "'.",
           "Send outcomes written by the same version of cusched.");
  }
  o.reason = j.at("reason");
  o.schedule_hash = j.at("schedule_hash");
  o.precision = parse_precision(j.at("precision"));
  o.math = j.value("math", "exact");
  o.cost_estimate_ms = runtime::json_number_or_nan(j, "cost_estimate_ms");
  o.audit_findings = j.at("audit_findings");
  o.audit_ms = runtime::json_number_or_nan(j, "audit_ms");
  if (j.contains("error")) o.error = Error::from_json(j["error"]);
  if (j.contains("gpu")) o.gpu = runtime::EvalResult::from_json(j["gpu"]);
  if (j.contains("interp")) o.interp = runtime::InterpVerification::from_json(j["interp"]);
  if (j.contains("sanitizer")) o.sanitizer = j["sanitizer"];
  if (j.contains("steps")) o.steps = j["steps"];
  if (j.contains("ir_text")) o.ir_text = j["ir_text"];
  if (j.contains("bundle")) o.bundle = KernelBundle::from_json(j["bundle"]);
  return o;
}

runtime::EvalRequest make_eval_request(const Problem& problem, const KernelBundle& candidate, const EvalConfig& cfg) {
  runtime::EvalRequest r;
  r.candidate = candidate;
  ScheduleContext ctx = problem.context(cfg.size, cfg.strict);
  r.reference = make_bundle(lower(reference_schedule(ctx), problem.name), EmitOptions{true});
  for (const auto& in : problem.inputs) {
    runtime::InputSpec s;
    s.buffer = in.name;
    s.standard = {in.standard.kind, in.standard.a, in.standard.b};
    if (in.adversarial)
      s.adversarial = runtime::Distribution{in.adversarial->kind, in.adversarial->a, in.adversarial->b};
    r.inputs.push_back(s);
  }
  r.tol.atol = ctx.atol;
  r.tol.rtol = ctx.rtol;
  r.tol.rel_l2 = ctx.rtol;
  r.tol.constant_reference = !problem.constant_output.empty();
  const SizeBindings& sizes = problem.size(cfg.size);
  r.floor.bytes = problem.min_bytes(sizes);
  r.floor.written_bytes = problem.written_bytes(sizes);
  r.floor.flops = problem.flops(sizes) * candidate.arithmetic_share;
  r.floor.precision = candidate.precision;
  r.base_seed = cfg.seed;
  r.time_it = cfg.time_it;
  r.inputs_dir = cfg.inputs_dir;
  r.save_io_dir = cfg.save_io_dir;
  r.save_io_trials = cfg.save_io_trials;
  r.time_each_launch = cfg.time_each_launch;
  r.watchdog_s = cfg.watchdog_s;
  r.timing.budget_ms = cfg.timing_budget_ms;
  if (cfg.cut_ms > 0) {
    r.timing.cut_ms = cfg.cut_ms;
    r.timing.warmup = 1;
  }
  return r;
}

KernelBundle handwritten_bundle(const Problem& problem, const std::string& source, const std::string& size,
                                Precision precision, const std::array<int64_t, 3>& grid,
                                const std::array<int64_t, 3>& block, int64_t dynamic_smem) {
  KernelBundle b;
  b.problem = problem.name;
  b.source = source;
  b.headers = device_headers();
  b.precision = precision;
  nlohmann::json contract = kernel_contract(problem);
  const SizeBindings& sizes = problem.size(size);
  LaunchSpec l;
  l.kernel = contract["kernel_name"];
  l.grid = grid;
  l.block = block;
  l.dynamic_smem_bytes = std::max<int64_t>(0, dynamic_smem);
  for (const auto& prm : contract["params"]) l.args.push_back(prm["name"]);
  for (const auto& in_t : problem.pipeline.inputs())
    b.buffers.push_back({in_t->name, in_t->dtype, eval_shape(in_t->shape, sizes), BufferRole::Input, false});
  for (const auto& out : problem.pipeline.outputs()) {
    const FuncDef* f = problem.pipeline.find_stage(out);
    b.buffers.push_back({out, f->dtype, eval_shape(f->extents, sizes), BufferRole::Output, false});
  }
  b.launches.push_back(l);
  return b;
}

// The compiled-code scans (runtime/compiled_code_scan.h) on an NVRTC compile for sm_90a,
// which needs no GPU: an undeclared lower precision or state kept between launches
// rejects the kernel here already.
void scan_compiled_kernel(const KernelBundle& b, search::CandidateOutcome& out) {
  runtime::CompiledModule m;
  try {
    m = runtime::compile_bundle(b, runtime::CompileOptions{});
  } catch (const runtime::CompileFailure& e) {
    out.verdict = runtime::Verdict::compile_error;
    out.reason = e.error().message;
    return;
  }
  if (auto rejected = runtime::compiled_code_rejection(b, m.ptx)) {
    out.verdict = rejected->verdict;
    out.reason = rejected->message;
  }
}

nlohmann::json sanitize_bundle(const Problem& problem, const KernelBundle& bundle, const EvalConfig& cfg,
                               double tool_seconds) {
  nlohmann::json report = runtime::sanitizer_report(
      runtime::sanitize(make_eval_request(problem, bundle, cfg), runtime::kSanitizerTools, "", tool_seconds));
  report["size"] = cfg.size;
  return report;
}

SanitizerSize sanitizer_size(const Problem& problem, const nlohmann::json& steps, bool strict) {
  SanitizerSize out{problem, "small", {}};
  const std::string rows16 = out.problem.add_16_byte_rows_size("small");
  std::vector<std::string> sizes = {"small", rows16};
  for (int64_t factor : {2, 4, 8}) sizes.push_back(out.problem.add_scaled_size(rows16, factor));
  // Fractions of the default size, whose extents keep the divisibility its schedules' splits
  // rely on (a split into 64 parts needs an extent that 64 parts cover evenly).
  for (int64_t divisor : {64, 32, 16})
    sizes.push_back(out.problem.add_divided_size(out.problem.default_size, divisor, rows16));
  std::optional<UserError> small_error;
  for (const std::string& size : sizes) try {
      KernelBundle bundle =
          make_bundle(lower(Schedule::from_json(out.problem.context(size, strict), steps), out.problem.name));
      if (auto e = shared_memory_error(bundle, size)) throw UserError(*e);
      out.size = size;
      out.bundle = std::move(bundle);
      return out;
    } catch (const UserError& e) {
      if (!small_error) small_error = e;
    }
  throw *small_error;
}

nlohmann::json sanitize_schedule(const Problem& problem, const nlohmann::json& steps, bool strict,
                                 double tool_seconds) {
  SanitizerSize at = sanitizer_size(problem, steps, strict);
  EvalConfig cfg;
  cfg.size = at.size;
  cfg.strict = strict;
  cfg.time_it = false;
  return sanitize_bundle(at.problem, at.bundle, cfg, tool_seconds);
}

nlohmann::json bundle_contracts(const KernelBundle& bundle) {
  nlohmann::json out = nlohmann::json::array();
  // The launch that last receives an output is the one that must write it.
  std::map<std::string, size_t> last_launch;
  for (size_t k = 0; k < bundle.launches.size(); ++k)
    for (const auto& a : bundle.launches[k].args) last_launch[a] = k;
  for (size_t k = 0; k < bundle.launches.size(); ++k) {
    const LaunchSpec& l = bundle.launches[k];
    nlohmann::json params = nlohmann::json::array();
    for (const auto& a : l.args) {
      const BufferSpec* b = bundle.find_buffer(a);
      std::string type;
      bool output = false;
      if (b && b->role == BufferRole::Input) {
        type = "const " + dtype_c_name(b->dtype) + "*";
      } else if (b && b->role == BufferRole::Output && last_launch[a] == k) {
        type = dtype_c_name(b->dtype) + "*";
        output = true;
      }
      params.push_back({{"name", a}, {"type", type}, {"is_output", output}});
    }
    // Tensor maps follow the buffers, by value.
    for (const auto& m : l.tensor_maps)
      params.push_back({{"name", m.name}, {"type", "const cusched::TensorMap"}, {"is_output", false}});
    out.push_back({{"kernel_name", l.kernel}, {"params", params}});
  }
  return out;
}

nlohmann::json audit_bundle(const Problem& problem, const KernelBundle& bundle, bool* has_error, double* ms) {
  *has_error = false;
  *ms = 0;
#ifdef CUSCHED_HAVE_AUDIT
  auto t0 = std::chrono::steady_clock::now();
  audit::AuditOptions o;
  for (const auto& c : bundle_contracts(bundle)) {
    if (!o.contract)
      o.contract = audit::KernelContract::from_json(c);
    else
      o.more_contracts.push_back(audit::KernelContract::from_json(c));
  }
  o.headers = bundle.headers;
  for (const auto& l : bundle.launches) o.planned_dynamic_smem_by_kernel[l.kernel] = l.dynamic_smem_bytes;
  auto findings = audit::audit_source(bundle.source, problem.name + ".cu", o);
  *has_error = audit::has_error(findings);
  *ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  nlohmann::json j = nlohmann::json::array();
  for (const auto& f : findings) j.push_back(f.to_json());
  return j;
#else
  (void)bundle;
  // Nothing audited the source: the finding says so wherever findings are shown.
  return nlohmann::json::array(
      {{{"rule", "audit-not-built"},
        {"severity", "warning"},
        {"file", problem.name + ".cu"},
        {"line", 0},
        {"column", 0},
        {"message",
         "This cusched was built without the Clang audit, so the kernel's source was not audited (kernel contract, "
         "state in device globals, unwritten outputs); the compiled-code scans and the runtime checks still apply."},
        {"hint", "Build with -DCUSCHED_WITH_AUDIT=ON (clang-19, libclang-19-dev, llvm-19-dev) to audit sources."}}});
#endif
}

std::optional<Error> shared_memory_error(const KernelBundle& bundle, const std::string& size) {
  for (const auto& l : bundle.launches)
    if (l.dynamic_smem_bytes > kMaxSharedBytesPerBlock)
      return Error{-1,
                   "",
                   "shared-memory-too-large",
                   "Kernel " + l.kernel + " needs " + std::to_string(l.dynamic_smem_bytes) +
                       " bytes of shared memory per block at the " + size +
                       " size; an H200 (sm_90) block can have at most " + std::to_string(kMaxSharedBytesPerBlock) +
                       " (227 KiB).",
                   "Stage a smaller tile: split the loop the copy is made at, or stage at an inner loop.",
                   "lowering"};
  return std::nullopt;
}

namespace {

// The architecture NVRTC builds for on GPU 0, or "" without a driver.
const std::string& gpu_arch() {
  static const std::string arch = [] {
    try {
      if (runtime::driver_available()) return std::string();
      return runtime::device_count() > 0 ? runtime::query_device(0).arch : std::string();
    } catch (const std::exception&) {
      return std::string();
    }
  }();
  return arch;
}

}  // namespace

// Compiles the bundle into the compile cache on this (CPU) thread, so that the GPU
// worker's compile of the same source is a cache hit. A compile error is left for
// the worker, which reports it with its log as the candidate's verdict.
void precompile(const KernelBundle& bundle) {
  if (gpu_arch().empty()) return;
  runtime::CompileOptions options;
  options.arch = gpu_arch();
  try {
    runtime::compile_bundle(bundle, options);
  } catch (const std::exception&) {}
}

// The CPU part of one candidate: validate (at the evaluation size and, for a smaller
// size, at the bench size the cost model speaks of), lower, emit, estimate, audit,
// and on GPU runs compile into the compile cache.
// Leaves verdict empty when the candidate is ready for verification.
namespace {

CandidateOutcome prepare_checked(const Problem& problem, const nlohmann::json& steps, const EvalConfig& cfg,
                                 std::optional<Schedule>* schedule_out, bool compile);

}  // namespace

// Whatever goes wrong while preparing one candidate is that candidate's verdict: an
// exception other than a structured error (a bug in lowering, say) becomes a
// lowering_error naming it, so that the search goes on with the next candidate.
CandidateOutcome prepare_candidate(const Problem& problem, const nlohmann::json& steps, const EvalConfig& cfg,
                                   std::optional<Schedule>* schedule_out, bool compile) {
  try {
    return prepare_checked(problem, steps, cfg, schedule_out, compile);
  } catch (const std::exception& e) {
    CandidateOutcome out;
    out.steps = steps;
    out.verdict = runtime::Verdict::lowering_error;
    out.error = Error{
        -1,
        "",
        "internal-lowering-failure",
        std::string("Preparing this candidate failed inside cusched (") + e.what() + ").",
        "This is a bug in cusched, not in the schedule; report it with the schedule. The search goes on without it.",
        "lowering"};
    out.reason = out.error.code + ": " + out.error.to_string();
    if (schedule_out) schedule_out->reset();
    return out;
  }
}

namespace {

CandidateOutcome prepare_checked(const Problem& problem, const nlohmann::json& steps, const EvalConfig& cfg,
                                 std::optional<Schedule>* schedule_out, bool compile) {
  std::optional<Schedule> local;
  std::optional<Schedule>& schedule = schedule_out ? *schedule_out : local;
  CandidateOutcome out;
  out.steps = steps;
  auto reject = [&](runtime::Verdict verdict, const Error& e, const std::string& prefix) {
    out.verdict = verdict;
    out.error = e;
    out.reason = prefix + (e.code.empty() ? "" : e.code + ": ") + e.to_string();
  };
  try {
    schedule.emplace(Schedule::from_json(problem.context(cfg.size, cfg.strict), steps));
  } catch (const UserError& e) {
    reject(runtime::Verdict::invalid_schedule, e.error(), "");
    return out;
  }
  out.steps = schedule->to_json();
  out.schedule_hash = schedule->hash();
  LoweredProgram prog;
  try {
    prog = lower(*schedule, problem.name);
    out.ir_text = print_ir(prog);
    out.bundle = make_bundle(prog);
  } catch (const UserError& e) {
    reject(runtime::Verdict::lowering_error, e.error(), "");
    return out;
  }
  out.precision = out.bundle.precision;
  out.math = out.bundle.math;
  // The size the cost model ranks at: bench, or the default size of a problem without one.
  const std::string rank_size = problem.sizes.count("bench") ? "bench" : problem.default_size;
  if (cfg.check_bench || cfg.size == rank_size) try {
      LoweredProgram bench =
          cfg.size == rank_size
              ? prog
              : lower(Schedule::from_json(problem.context(rank_size, cfg.strict), out.steps), problem.name);
      out.cost_estimate_ms = estimate_cost(bench).ms;
      // A block's shared memory must fit the GPU at that size, whatever size is verified.
      KernelBundle bench_bundle = cfg.size == rank_size ? out.bundle : make_bundle(bench);
      if (auto e = shared_memory_error(bench_bundle, rank_size)) {
        reject(runtime::Verdict::lowering_error, *e, "");
        return out;
      }
    } catch (const UserError& e) {
      reject(runtime::Verdict::invalid_schedule, e.error(),
             "Not legal at the " + rank_size + " size, which the cost model ranks at: ");
      return out;
    }
  if (cfg.audit) {
    bool bad = false;
    out.audit_findings = audit_bundle(problem, out.bundle, &bad, &out.audit_ms);
    if (bad) {
      out.verdict = runtime::Verdict::audit_rejected;
      out.reason = "The audit found an error-level problem in the generated source.";
    }
  }
  if (compile && !out.verdict && cfg.backend == "gpu") precompile(out.bundle);
  return out;
}

}  // namespace

void verify_candidate(const Problem& problem, const Schedule& schedule, const EvalConfig& cfg, runtime::Worker* worker,
                      CandidateOutcome& out) {
  if (cfg.backend == "interp") {
    try {
      out.interp = runtime::verify_with_interpreter(problem, schedule, cfg.size, cfg.seed, 3, cfg.strict);
    } catch (const std::exception& e) {
      out.verdict = runtime::Verdict::internal_error;
      out.reason =
          std::string("The interpreter failed on this candidate (") + e.what() + "); the search goes on without it.";
      return;
    }
    out.verdict = out.interp->verdict;
    out.reason = out.interp->message;
    if (out.verdict == runtime::Verdict::rejected) out.error = out.interp->error;
    return;
  }
  verify_bundle_on_gpu(problem, cfg, worker, out);
}

void verify_bundle_on_gpu(const Problem& problem, const EvalConfig& cfg, runtime::Worker* worker,
                          CandidateOutcome& out) {
  std::unique_ptr<runtime::Worker> own;
  if (!worker) {
    own = std::make_unique<runtime::Worker>(0);
    worker = own.get();
  }
  out.gpu = worker->evaluate(make_eval_request(problem, out.bundle, cfg));
  out.verdict = out.gpu->verdict;
  out.reason = out.gpu->message;
}

CandidateOutcome evaluate_candidate(const Problem& problem, const nlohmann::json& steps, const EvalConfig& cfg,
                                    runtime::Worker* worker) {
  std::optional<Schedule> schedule;
  CandidateOutcome out = prepare_candidate(problem, steps, cfg, &schedule);
  if (!out.verdict) verify_candidate(problem, *schedule, cfg, worker, out);
  return out;
}

}  // namespace cusched::search
