// One evaluation (class Evaluation): the trials, the checks on the device or the host,
// the guard and input checks, the timed launches and the verdict, over one CUDA context
// and one set of buffers. It is kept in one file because its phases share that state
// and the order of their steps is the protocol; the parts that stand alone are in the
// files it includes (trial_plan, trial_io, output_check, device_check, timing, trial_cache).
#include "runtime/evaluation.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>

#include "dsl/error.h"
#include "runtime/candidate_buffers.h"
#include "runtime/compiled_code_scan.h"
#include "runtime/cuda_driver.h"
#include "runtime/device_buffer.h"
#include "runtime/device_check.h"
#include "runtime/device_inputs.h"
#include "runtime/element_codec.h"
#include "runtime/gpu_context.h"
#include "runtime/gpu_lock.h"
#include "runtime/host_parallel.h"
#include "runtime/input_generator.h"
#include "runtime/launch_sequence.h"
#include "runtime/nvrtc_compiler.h"
#include "runtime/output_check.h"
#include "runtime/performance_floor.h"
#include "runtime/precision_scan.h"
#include "runtime/timing.h"
#include "runtime/trial_cache.h"
#include "runtime/trial_io.h"
#include "runtime/trial_plan.h"

namespace cusched::runtime {

bool uses_host_check(const EvalRequest& request) {
  const char* env = std::getenv("CUSCHED_HOST_CHECK");
  return request.host_check || (env && std::string(env) == "1");
}

bool verdict_breaks_context(Verdict v) {
  return v == Verdict::illegal_address || v == Verdict::launch_error || v == Verdict::timeout || v == Verdict::crashed;
}

namespace {

// Who was running when a CUDA call failed: faults of the candidate are its
// verdict, faults anywhere else are the runtime's.
enum class Stage { setup, candidate, reference, timing };

// The candidate and the reference must agree on every input and output.
void validate_pair(const EvalRequest& req) {
  const auto& cand = req.candidate;
  const auto& ref = req.reference;
  if (cand.launches.empty())
    fail("bad-bundle", "The candidate bundle has no launches.", "Give the bundle at least one launch.");
  if (ref.launches.empty())
    fail("bad-bundle", "The reference bundle has no launches.", "Give the bundle at least one launch.");
  for (const auto* in : with_role(cand, BufferRole::Input)) {
    const BufferSpec* r = ref.find_buffer(in->name);
    if (!r || r->role != BufferRole::Input || r->dtype != in->dtype || r->shape != in->shape)
      fail("bad-request",
           "The reference bundle has no input '" + in->name + "' of dtype " + dtype_name(in->dtype) + " and shape " +
               shape_text(in->shape) + " like the candidate's.",
           "Generate the candidate and the reference from the same problem.");
  }
  for (const auto* in : with_role(ref, BufferRole::Input))
    if (!cand.find_buffer(in->name))
      fail("bad-request", "The reference reads the input '" + in->name + "', which the candidate does not declare.",
           "Generate the candidate and the reference from the same problem.");
  auto outputs = with_role(cand, BufferRole::Output);
  if (outputs.empty())
    fail("bad-bundle", "The candidate bundle has no output buffer.", "Mark the result buffers with role output.");
  for (const auto* out : outputs) {
    const BufferSpec* r = ref.find_buffer(out->name);
    if (!r || r->role != BufferRole::Output || r->shape != out->shape)
      fail("bad-request",
           "The reference bundle has no output '" + out->name + "' of shape " + shape_text(out->shape) + ".",
           "Generate the candidate and the reference from the same problem.");
  }
  for (const auto& in : req.inputs)
    if (!cand.find_buffer(in.buffer) || cand.find_buffer(in.buffer)->role != BufferRole::Input)
      fail("bad-request", "The input distribution names '" + in.buffer + "', which is not an input of the candidate.",
           "Name only the bundle's input buffers in the request's inputs.");
}

size_t bundle_bytes(const KernelBundle& bundle) {
  size_t n = 0;
  for (const auto& b : bundle.buffers) n += static_cast<size_t>(b.bytes());
  return n;
}

size_t input_bytes(const KernelBundle& bundle) {
  size_t n = 0;
  for (const auto* b : with_role(bundle, BufferRole::Input)) n += static_cast<size_t>(b->bytes());
  return n;
}

// The one wording of an input_modified verdict, for both check paths.
std::string input_modified_message(const BufferSpec& b, const std::string& where, int64_t first_byte) {
  return "The candidate wrote its input '" + b.name + "'" + where + " (its checksum changed; first at element " +
         std::to_string(first_byte / dtype_bytes(b.dtype)) + ").";
}

// The one wording of an out_of_bounds_write verdict.
std::string out_of_bounds_message(const GuardDamage& g, const std::string& where) {
  return "The candidate wrote " + std::string(g.after ? "past the end" : "before the start") + " of its buffer '" +
         g.buffer + "'" + where + " (the guard region " + (g.after ? "after" : "before") +
         " it changed, first at byte " + std::to_string(g.offset) + " of " + std::to_string(kGuardBytes) + ").";
}

// The most input sets the timed runs rotate over.
constexpr size_t kMaxTimingSets = 4;

// Adds the wall-clock time of its scope to a phase total.
class PhaseClock {
 public:
  explicit PhaseClock(double& total) : total_(total), start_(std::chrono::steady_clock::now()) {}
  ~PhaseClock() {
    total_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  }
  PhaseClock(const PhaseClock&) = delete;
  PhaseClock& operator=(const PhaseClock&) = delete;

 private:
  double& total_;
  std::chrono::steady_clock::time_point start_;
};

std::vector<double> as_doubles(DType t, const std::vector<uint8_t>& raw) {
  const size_t w = static_cast<size_t>(dtype_bytes(t));
  std::vector<double> out(raw.size() / w);
  for_each_host_chunk(static_cast<int64_t>(out.size()), [&](int64_t, int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      out[static_cast<size_t>(i)] = load_element(t, raw.data() + static_cast<size_t>(i) * w);
  });
  return out;
}

Verdict verdict_for_cuda(CUresult r) {
  switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
      return Verdict::illegal_address;
    default:
      return Verdict::launch_error;
  }
}

bool sticky(CUresult r) {
  switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ASSERT:
      return true;
    default:
      return false;
  }
}

class Evaluation {
 public:
  Evaluation(const EvalRequest& req, const ProgressFn& progress) : req_(req), progress_(progress) {}

  EvalResult run() {
    res_.precision = req_.candidate.precision;
    if (auto e = driver_available()) return finish(Verdict::no_gpu, e->message);
    try {
      EvalResult r = run_checked();
      r.phase_ms = res_.phase_ms;  // the phase clocks of run_checked's scopes stop after its result is made
      return r;
    } catch (const CompileFailure& e) {
      return finish(Verdict::internal_error, "The reference bundle did not compile: " + e.error().message);
    } catch (const CudaFailure& e) {
      if (sticky(e.result())) mark_context_broken();
      if (stage_ == Stage::candidate || stage_ == Stage::timing)
        return finish(verdict_for_cuda(e.result()), "The candidate failed: " + e.error().message);
      return finish(Verdict::internal_error, "The runtime failed outside the candidate: " + e.error().message);
    } catch (const WatchdogTimeout& e) {
      if (stage_ == Stage::candidate || stage_ == Stage::timing)
        return finish(Verdict::timeout, std::string("The candidate never finished: ") + e.what());
      return finish(Verdict::internal_error, std::string("The reference never finished: ") + e.what());
    } catch (const UserError& e) {
      // A candidate bundle whose launches do not match its module cannot be launched.
      if (stage_ == Stage::candidate) return finish(Verdict::launch_error, e.error().to_string());
      return finish(Verdict::internal_error, e.error().to_string());
    } catch (const std::exception& e) {
      return finish(Verdict::internal_error, std::string("The evaluation failed: ") + e.what());
    }
  }

 private:
  EvalResult finish(Verdict v, std::string message) {
    res_.verdict = v;
    res_.message = std::move(message);
    return res_;
  }

  void tick(const std::string& phase) {
    if (progress_) progress_(phase);
  }

  EvalResult run_checked() {
    validate_pair(req_);
    GpuContext ctx(req_.device);
    char name[256] = {};
    driver().DeviceGetName(name, sizeof name, ctx.device());
    res_.device_name = name;
    CompileOptions options;
    options.arch = arch_for_compute_capability(ctx.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                                               ctx.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
    tick("compiling");
    std::unique_ptr<PhaseClock> compile_clock = std::make_unique<PhaseClock>(res_.phase_ms.compile);
    CompiledModule cand_cubin;
    try {
      cand_cubin = compile_bundle(req_.candidate, options);
    } catch (const CompileFailure& e) {
      res_.compile_report["candidate"] = {{"arch", options.arch}, {"log", e.log()}};
      return finish(Verdict::compile_error, e.error().message);
    }
    res_.compile_report["candidate"] = cand_cubin.report();
    res_.compiled_precision = compiled_precision(cand_cubin.ptx);
    if (auto rejected = compiled_code_rejection(req_.candidate, cand_cubin.ptx))
      return finish(rejected->verdict, rejected->message);
    CompiledModule ref_cubin = compile_bundle(req_.reference, options);
    res_.compile_report["reference"] = ref_cubin.report();
    tick("compiled");

    stage_ = Stage::candidate;
    LoadedModule cand_module(cand_cubin.cubin);
    stage_ = Stage::reference;
    LoadedModule ref_module(ref_cubin.cubin);
    stage_ = Stage::setup;
    compile_clock.reset();
    // Held until the verdict: the trials and the timed runs have the device to themselves.
    GpuLock gpu_turn(req_.device, [&] { tick("waiting for the GPU lock"); });
    res_.phase_ms.gpu_wait = gpu_turn.waited_ms();

    const std::vector<TrialPlan> plans = plan_trials(req_);
    bool host = uses_host_check(req_);
    std::unique_ptr<DeviceChecker> checker;
    if (!host) {
      PhaseClock clock(res_.phase_ms.compile);
      try {
        checker = std::make_unique<DeviceChecker>(ctx, req_.watchdog_s);
      } catch (const CompileFailure& e) {
        throw std::runtime_error("the device-side check kernels did not compile: " + e.error().message);
      }
      // One trial's peak: its pristine inputs, the candidate's and the reference's buffers.
      const size_t peak = input_bytes(req_.candidate) + bundle_bytes(req_.candidate) + bundle_bytes(req_.reference);
      if (!device_has_room(0, peak) || !within_memory_share(process_trial_cache().bytes() + peak)) {
        process_trial_cache().clear();
        if (!device_has_room(0, peak))
          host = true;  // too little device memory for the pristine copies: the host check needs none
      }
    }
    res_.check_path = host ? "host" : "device";
    if (host) {
      checker.reset();
      return run_host_trials(ctx, cand_module, ref_module, plans);
    }
    return run_device_trials(ctx, *checker, cand_module, ref_module, plans);
  }

  // An InputProtection from one allocation, kept for the result.
  void note_protection(const InputProtection& p) {
    if (res_.input_protection.empty() || p.mode == "checksum") {
      res_.input_protection = p.mode;
      res_.input_protection_note = p.note;
    }
  }

  EvalResult passed_message() {
    return finish(Verdict::ok,
                  "The candidate matched the reference on " + std::to_string(res_.trials) + " trials" +
                      (req_.time_it ? " and ran at " + std::to_string(res_.pct_of_floor) + "% of its floor." : "."));
  }

  // ---- The host check: every trial's data generated, uploaded and downloaded.

  EvalResult run_host_trials(const GpuContext& ctx, const LoadedModule& cand_module, const LoadedModule& ref_module,
                             const std::vector<TrialPlan>& plans) {
    std::vector<HostTensors> inputs;
    {
      PhaseClock clock(res_.phase_ms.generate);
      for (const auto& plan : plans) inputs.push_back(downloaded(device_trial_inputs(req_, plan, ctx)));
    }
    for (size_t t = 0; t < plans.size(); ++t) {
      if (auto failed = verify_on_host(ctx, cand_module, ref_module, plans[t], inputs[t], static_cast<int>(t)))
        return *failed;
      res_.trials = static_cast<int>(t + 1);
      tick("trial " + std::to_string(t));
    }
    if (req_.time_it) {
      std::vector<TimingSet> sets;
      for (size_t t = timing_trial(plans); t < plans.size() && sets.size() < kMaxTimingSets; ++t)
        if (host_references_.count(static_cast<int>(t)))
          sets.push_back({static_cast<int>(t), plans[t].label, &inputs[t], nullptr,
                          &host_references_.at(static_cast<int>(t)), nullptr});
      if (auto failed = measure(ctx, cand_module, sets)) return *failed;
    }
    return passed_message();
  }

  // Runs one trial; returns the failing result, or nullopt when the trial passed.
  std::optional<EvalResult> verify_on_host(const GpuContext& ctx, const LoadedModule& cand_module,
                                           const LoadedModule& ref_module, const TrialPlan& plan,
                                           const HostTensors& inputs, int index) {
    const auto& cand = req_.candidate;
    const std::string where = " in trial " + std::to_string(index) + " (" + plan.label + ")";

    // The candidate first, in buffers of its own.
    HostTensors cand_out;
    stage_ = Stage::candidate;
    {
      std::unique_ptr<Allocation> alloc;
      {
        PhaseClock clock(res_.phase_ms.upload);
        InputProtection protection;
        alloc =
            allocate_buffers(cand, ctx, &inputs, nullptr, true, req_.read_only_inputs, &protection, req_.watchdog_s);
        note_protection(protection);
      }
      {
        PhaseClock clock(res_.phase_ms.candidate);
        LaunchSequence seq(cand, cand_module, alloc->addresses);
        seq.enqueue(ctx.stream());
        ctx.wait(req_.watchdog_s, "The candidate" + where);
      }
      {
        PhaseClock clock(res_.phase_ms.check);
        if (auto g = damaged_guard(*alloc, nullptr, nullptr))
          return fail_trial(index, Verdict::out_of_bounds_write, g->buffer, out_of_bounds_message(*g, where));
      }
      std::map<std::string, std::vector<uint8_t>> inputs_after;
      {
        PhaseClock clock(res_.phase_ms.download);
        for (const auto* b : with_role(cand, BufferRole::Output))
          cand_out[b->name] = alloc->buffers.at(b->name).download();
        for (const auto* b : with_role(cand, BufferRole::Input))
          inputs_after[b->name] = alloc->buffers.at(b->name).download();
      }
      PhaseClock clock(res_.phase_ms.check);
      for (const auto* b : with_role(cand, BufferRole::Input)) {
        const auto& after = inputs_after.at(b->name);
        const auto& before = inputs.at(b->name);
        if (after != before) {
          size_t first = 0;
          while (first < after.size() && after[first] == before[first]) ++first;
          return fail_trial(index, Verdict::input_modified, b->name,
                            input_modified_message(*b, where, static_cast<int64_t>(first)));
        }
      }
    }

    // Then the reference, in fresh buffers.
    HostTensors ref_out;
    stage_ = Stage::reference;
    {
      std::unique_ptr<Allocation> alloc;
      {
        PhaseClock clock(res_.phase_ms.upload);
        alloc = allocate_buffers(req_.reference, ctx, &inputs, nullptr, false, false, nullptr, req_.watchdog_s);
      }
      {
        PhaseClock clock(res_.phase_ms.reference);
        LaunchSequence seq(req_.reference, ref_module, alloc->addresses);
        seq.enqueue(ctx.stream());
        ctx.wait(req_.watchdog_s, "The reference" + where);
      }
      PhaseClock clock(res_.phase_ms.download);
      for (const auto* b : with_role(req_.reference, BufferRole::Output))
        ref_out[b->name] = alloc->buffers.at(b->name).download();
    }
    stage_ = Stage::setup;

    if (saves_trial(req_, index))
      save_trial_io(
          req_, index, [&](const std::string& name) { return inputs.at(name); },
          [&](const std::string& name) { return cand_out.at(name); },
          [&](const std::string& name) { return ref_out.at(name); });

    PhaseClock clock(res_.phase_ms.check);
    for (const auto* b : with_role(cand, BufferRole::Output)) {
      const BufferSpec* r = req_.reference.find_buffer(b->name);
      std::vector<double> ref = as_doubles(r->dtype, ref_out.at(b->name));
      OutputCheck rc = check_reference(b->name, ref.data(), b->elements(), req_.tol.constant_reference);
      OutputCheck oc;
      if (rc.verdict == Verdict::ok)
        oc = check_output(b->name, b->dtype, cand_out.at(b->name).data(), ref.data(), b->elements(), req_.tol,
                          !b->zero_before_launch);
      if (auto failed = judge(index, plan, *b, rc, oc)) return failed;
      if (req_.time_it && !plan.from_dir &&
          (host_references_.count(index) || host_references_.size() < host_timing_sets()))
        host_references_[index][b->name] = std::move(ref);
    }
    return std::nullopt;
  }

  // ---- The device check: trials from the trial cache, outputs compared on the device.

  EvalResult run_device_trials(const GpuContext& ctx, const DeviceChecker& checker, const LoadedModule& cand_module,
                               const LoadedModule& ref_module, const std::vector<TrialPlan>& plans) {
    const auto& cand = req_.candidate;
    TrialCache& cache = process_trial_cache();
    const std::string key = trial_cache_key(req_);
    std::shared_ptr<TrialSet> set = cache.acquire(key, req_.device);
    if (set->size() > 0) {
      PhaseClock clock(res_.phase_ms.check);
      if (!set->intact(checker)) {  // something wrote over the cached data: start again
        cache.clear();
        set = cache.acquire(key, req_.device);
      }
    }
    // What the device must still hold beyond the cached trials while a trial runs.
    const size_t working = input_bytes(req_.candidate) + bundle_bytes(req_.candidate) + bundle_bytes(req_.reference) +
                           (size_t{1} << 30);  // the copy-bandwidth measurement's two 512 MiB buffers

    const size_t timed = timing_trial(plans);
    std::vector<std::shared_ptr<const DeviceTrial>> timing_trials;
    std::vector<int> timing_indices;
    size_t kept_bytes = 0;  // of timing trials the cache does not hold
    bool all_cached = true;
    for (size_t t = 0; t < plans.size(); ++t) {
      std::shared_ptr<const DeviceTrial> cached = set->trial(t);
      all_cached = all_cached && cached;
      res_.trial_cache_hit = all_cached;
      std::shared_ptr<const DeviceTrial> used;
      auto failed =
          verify_on_device(ctx, checker, cand_module, ref_module, plans[t], static_cast<int>(t), cached, used);
      // A fresh trial whose reference ran is kept, whatever the candidate did, while the device has room.
      bool stored = false;
      if (!cached && used && !used->reference_outputs.empty() &&
          used->reference_checks.size() == used->reference_outputs.size() && set->size() == t &&
          device_has_room(0, working) && within_memory_share(set->bytes() + used->bytes() + working)) {
        PhaseClock clock(res_.phase_ms.check);
        std::const_pointer_cast<DeviceTrial>(used)->seal(checker);
        set->append(t, used);
        stored = true;
      }
      if (failed) return *failed;
      // The timed runs rotate over the trials from the first seeded one on, each with
      // its reference outputs, as many as the device holds (at least that first one).
      if (req_.time_it && t >= timed && timing_trials.size() < kMaxTimingSets && used &&
          used->reference_outputs.size() == with_role(cand, BufferRole::Output).size()) {
        bool held = cached || stored;
        if (timing_trials.empty() || held ||
            (device_has_room(kept_bytes + used->bytes(), working) &&
             within_memory_share(set->bytes() + kept_bytes + used->bytes() + working))) {
          if (!held) kept_bytes += used->bytes();
          timing_trials.push_back(used);
          timing_indices.push_back(static_cast<int>(t));
        }
      }
      res_.trials = static_cast<int>(t + 1);
      tick("trial " + std::to_string(t));
    }
    if (req_.time_it) {
      std::vector<TimingSet> sets;
      for (size_t k = 0; k < timing_trials.size(); ++k)
        sets.push_back({timing_indices[k], plans[static_cast<size_t>(timing_indices[k])].label, nullptr,
                        &timing_trials[k]->inputs, nullptr, &timing_trials[k]->reference_outputs});
      if (auto failed = measure(ctx, cand_module, sets, &checker)) return *failed;
    }
    return passed_message();
  }

  // Runs one trial from `cached` (or, when null, from fresh inputs and a fresh
  // reference run, returned in `used`); returns the failing result, or nullopt.
  std::optional<EvalResult> verify_on_device(const GpuContext& ctx, const DeviceChecker& checker,
                                             const LoadedModule& cand_module, const LoadedModule& ref_module,
                                             const TrialPlan& plan, int index,
                                             std::shared_ptr<const DeviceTrial> cached,
                                             std::shared_ptr<const DeviceTrial>& used) {
    const auto& cand = req_.candidate;
    const std::string where = " in trial " + std::to_string(index) + " (" + plan.label + ")";

    std::shared_ptr<DeviceTrial> fresh;
    if (!cached) {
      fresh = std::make_shared<DeviceTrial>();
      fresh->label = plan.label;
      PhaseClock clock(res_.phase_ms.generate);
      fresh->inputs = device_trial_inputs(req_, plan, ctx);
    }
    const DeviceTrial& trial = cached ? *cached : *fresh;
    used = cached ? cached : fresh;

    // The candidate first, in freshly allocated buffers.
    stage_ = Stage::candidate;
    std::unique_ptr<Allocation> cand_alloc;
    {
      PhaseClock clock(res_.phase_ms.candidate);
      InputProtection protection;
      cand_alloc = allocate_buffers(cand, ctx, nullptr, &trial.inputs, true, req_.read_only_inputs, &protection,
                                    req_.watchdog_s);
      note_protection(protection);
      LaunchSequence seq(cand, cand_module, cand_alloc->addresses);
      seq.enqueue(ctx.stream());
      ctx.wait(req_.watchdog_s, "The candidate" + where);
    }
    stage_ = Stage::setup;
    {
      PhaseClock clock(res_.phase_ms.check);
      if (auto g = damaged_guard(*cand_alloc, &checker, &guard_pattern(ctx)))
        return fail_trial(index, Verdict::out_of_bounds_write, g->buffer, out_of_bounds_message(*g, where));
      for (const auto* b : with_role(cand, BufferRole::Input)) {
        int64_t first = checker.first_difference(cand_alloc->buffers.at(b->name).ptr(), trial.inputs.at(b->name).ptr(),
                                                 static_cast<size_t>(b->bytes()));
        if (first >= 0)
          return fail_trial(index, Verdict::input_modified, b->name, input_modified_message(*b, where, first));
      }
    }

    // Then the reference, in fresh buffers, unless its outputs are cached.
    if (fresh) {
      stage_ = Stage::reference;
      {
        PhaseClock clock(res_.phase_ms.reference);
        auto ref_alloc =
            allocate_buffers(req_.reference, ctx, nullptr, &fresh->inputs, false, false, nullptr, req_.watchdog_s);
        LaunchSequence seq(req_.reference, ref_module, ref_alloc->addresses);
        seq.enqueue(ctx.stream());
        ctx.wait(req_.watchdog_s, "The reference" + where);
        for (const auto* b : with_role(req_.reference, BufferRole::Output))
          fresh->reference_outputs.emplace(b->name, std::move(ref_alloc->buffers.at(b->name)));
      }
      stage_ = Stage::setup;
      PhaseClock clock(res_.phase_ms.check);
      for (const auto& [name, buf] : fresh->reference_outputs) {
        const BufferSpec* r = req_.reference.find_buffer(name);
        fresh->reference_checks[name] = judge_reference(
            name, checker.reference_stats(buf.ptr(), r->dtype, r->elements()), req_.tol.constant_reference);
      }
    }

    if (saves_trial(req_, index)) {
      PhaseClock clock(res_.phase_ms.download);
      save_trial_io(
          req_, index, [&](const std::string& name) { return trial.inputs.at(name).download(); },
          [&](const std::string& name) { return cand_alloc->buffers.at(name).download(); },
          [&](const std::string& name) { return trial.reference_outputs.at(name).download(); });
    }

    PhaseClock clock(res_.phase_ms.check);
    for (const auto* b : with_role(cand, BufferRole::Output)) {
      const BufferSpec* r = req_.reference.find_buffer(b->name);
      const OutputCheck& rc = trial.reference_checks.at(b->name);
      OutputCheck oc;
      if (rc.verdict == Verdict::ok)
        oc = judge_output(b->name,
                          checker.output_stats(cand_alloc->buffers.at(b->name).ptr(), b->dtype,
                                               trial.reference_outputs.at(b->name).ptr(), r->dtype, b->elements(),
                                               req_.tol, !b->zero_before_launch),
                          req_.tol);
      if (auto failed = judge(index, plan, *b, rc, oc)) return failed;
    }
    return std::nullopt;
  }

  // ---- Shared by both paths.

  EvalResult fail_trial(int index, Verdict v, const std::string& buffer, const std::string& message) {
    res_.failed_trial = index;
    res_.failed_buffer = buffer;
    return finish(v, message);
  }

  // The verdict of one output in one trial from its reference check `rc` and
  // its output check `oc` (not run when the reference failed).
  std::optional<EvalResult> judge(int index, const TrialPlan& plan, const BufferSpec& b, const OutputCheck& rc,
                                  const OutputCheck& oc) {
    if (rc.verdict != Verdict::ok) return fail_trial(index, rc.verdict, b.name, rc.message + " (" + plan.label + ")");
    res_.max_abs_err = std::max(res_.max_abs_err, oc.max_abs_err);
    res_.max_rel_err = std::max(res_.max_rel_err, oc.max_rel_err);
    res_.rel_l2_err = std::max(res_.rel_l2_err, oc.rel_l2_err);
    const std::string where = " in trial " + std::to_string(index) + " (" + plan.label + ")";
    if (oc.verdict != Verdict::ok)
      return fail_trial(index, oc.verdict, b.name, oc.message.substr(0, oc.message.size() - 1) + where + ".");
    return std::nullopt;
  }

  // One input set the timed runs use: a verified trial's inputs and its reference
  // outputs, on the host (host check) or on the device.
  struct TimingSet {
    int trial = 0;
    std::string label;
    const HostTensors* host_inputs = nullptr;
    const DeviceTensors* device_inputs = nullptr;
    const std::map<std::string, std::vector<double>>* host_references = nullptr;
    const std::map<std::string, DeviceBuffer>* device_references = nullptr;
  };

  // How many trials' references the host check keeps for the timed runs: up to
  // kMaxTimingSets within 8 GiB of host memory, at least one.
  size_t host_timing_sets() const {
    size_t per_trial = 0;
    for (const auto* b : with_role(req_.candidate, BufferRole::Output))
      per_trial += static_cast<size_t>(b->elements()) * 8;
    const size_t budget = size_t{8} << 30;
    return std::max<size_t>(1, std::min(kMaxTimingSets, per_trial ? budget / per_trial : kMaxTimingSets));
  }

  const DeviceBuffer& guard_pattern(const GpuContext& ctx) {
    if (!guard_pattern_) guard_pattern_ = std::make_unique<DeviceBuffer>(guard_pattern_buffer(ctx));
    return *guard_pattern_;
  }

  // The outputs of timed run `run` on `set` (in `alloc`) against the set's reference,
  // and the guards; nullopt when they pass.
  std::optional<EvalResult> check_timed_run(const GpuContext& ctx, const DeviceChecker* checker, const TimingSet& set,
                                            const Allocation& alloc, int run) {
    const auto& cand = req_.candidate;
    const std::string where = " in timed run " + std::to_string(run) + " (on the inputs of trial " +
                              std::to_string(set.trial) + ", " + set.label + ")";
    if (auto g = damaged_guard(alloc, checker, checker ? &guard_pattern(ctx) : nullptr))
      return fail_trial(set.trial, Verdict::out_of_bounds_write, g->buffer, out_of_bounds_message(*g, where));
    for (const auto* b : with_role(cand, BufferRole::Output)) {
      const BufferSpec* r = req_.reference.find_buffer(b->name);
      OutputCheck rc, oc;
      if (checker) {
        oc = judge_output(
            b->name,
            checker->output_stats(alloc.buffers.at(b->name).ptr(), b->dtype, set.device_references->at(b->name).ptr(),
                                  r->dtype, b->elements(), req_.tol, !b->zero_before_launch),
            req_.tol);
      } else {
        std::vector<uint8_t> out = alloc.buffers.at(b->name).download();
        oc = check_output(b->name, b->dtype, out.data(), set.host_references->at(b->name).data(), b->elements(),
                          req_.tol, !b->zero_before_launch);
      }
      if (oc.verdict != Verdict::ok)
        return fail_trial(
            set.trial, oc.verdict, b->name,
            oc.message.substr(0, oc.message.size() - 1) + where +
                "; every timed run is verified, so a kernel that replays or skips work on later launches fails.");
    }
    return std::nullopt;
  }

  // Times the candidate on buffers of its own per input set, rotating over the sets
  // from one run to the next; outputs are poisoned before every run, and after every
  // timed run they (and the guards) are checked against that set's reference.
  std::optional<EvalResult> measure(const GpuContext& ctx, const LoadedModule& cand_module,
                                    const std::vector<TimingSet>& sets, const DeviceChecker* checker = nullptr) {
    PhaseClock clock(res_.phase_ms.timing);
    stage_ = Stage::setup;
    const MemoryBandwidth bw = memory_bandwidth(ctx);
    res_.copy_bandwidth_gbs = bw.copy / 1e9;
    res_.read_bandwidth_gbs = bw.read / 1e9;
    if (sets.empty()) return finish(Verdict::internal_error, "No verified input set was kept for the timed runs.");
    stage_ = Stage::timing;
    std::vector<std::unique_ptr<Allocation>> allocs;
    std::vector<std::unique_ptr<LaunchSequence>> seqs;
    for (const auto& set : sets) {
      // Buffers for a further set only while the device keeps its margin (runtime/trial_cache.h).
      if (!allocs.empty() && !device_has_room(0, bundle_bytes(req_.candidate))) break;
      InputProtection protection;
      allocs.push_back(allocate_buffers(req_.candidate, ctx, set.host_inputs, set.device_inputs, true,
                                        req_.read_only_inputs, &protection, req_.watchdog_s));
      note_protection(protection);
      seqs.push_back(std::make_unique<LaunchSequence>(req_.candidate, cand_module, allocs.back()->addresses));
    }
    res_.timing_input_sets = static_cast<int>(allocs.size());
    const size_t n = allocs.size();
    std::optional<EvalResult> failure;
    int run = 0;
    TimedRunHooks hooks;
    hooks.prepare = [&](int r) { poison_outputs(req_.candidate, *allocs[static_cast<size_t>(r) % n], ctx.stream()); };
    hooks.enqueue = [&](int r) { seqs[static_cast<size_t>(r) % n]->enqueue(ctx.stream()); };
    hooks.check = [&](int r) {
      stage_ = Stage::setup;
      const size_t k = static_cast<size_t>(r) % n;
      {
        PhaseClock check_clock(res_.phase_ms.check);
        failure = check_timed_run(ctx, checker, sets[k], *allocs[k], r - req_.timing.warmup);
      }
      stage_ = Stage::timing;
      if (failure) return false;
      ++res_.timed_runs_verified;
      return true;
    };
    res_.times_ms =
        time_runs(ctx, hooks, req_.timing, req_.watchdog_s, [&] { tick("timed run " + std::to_string(run++)); });
    if (failure) return failure;
    if (req_.time_each_launch && seqs[0]->launch_count() > 1) {
      const LaunchSequence& seq = *seqs[0];
      for (size_t k = 0; k < seq.launch_count(); ++k) {
        auto times = time_launch_sequence(
            ctx, [&] { seq.enqueue_launch(ctx.stream(), k); }, req_.timing, req_.watchdog_s,
            [&] { tick("timed launch " + std::to_string(k)); });
        res_.launch_ms.emplace_back(seq.launch_name(k), summarize_times(times).median_ms);
      }
      // The launches timed alone leave the buffers as the timings found them: one more
      // run of the whole sequence from poisoned outputs must still verify.
      poison_outputs(req_.candidate, *allocs[0], ctx.stream());
      seq.enqueue(ctx.stream());
      ctx.wait(req_.watchdog_s, "The sequence after the per-launch timings");
      stage_ = Stage::setup;
      if (auto after = check_timed_run(ctx, checker, sets[0], *allocs[0], run)) return after;
      ++res_.timed_runs_verified;
    }
    stage_ = Stage::setup;
    res_.timing_cut = req_.timing.cut_ms > 0 && res_.times_ms.size() == 1 && req_.timing.repeats > 1 &&
                      res_.times_ms[0] > req_.timing.cut_ms;
    TimeSummary s = summarize_times(res_.times_ms);
    res_.median_ms = s.median_ms;
    res_.min_ms = s.min_ms;
    res_.max_ms = s.max_ms;
    res_.floor_ms = floor_ms(req_.floor, bw);
    res_.pct_of_floor = res_.median_ms > 0 ? 100.0 * res_.floor_ms / res_.median_ms : 0;
    const double least_ms = least_possible_ms(req_.floor, bw);
    if (least_ms > 0 && res_.median_ms < kUnderFloorFraction * least_ms)
      return finish(
          Verdict::under_floor,
          "The median time " + std::to_string(res_.median_ms) + " ms is under the " + std::to_string(least_ms) +
              " ms that the work takes at least" +
              (bw.peak > 0 ? " at the memory's peak rate of " + std::to_string(bw.peak / 1e9) + " GB/s" : "") +
              ", so the kernel cannot be doing the whole job.");
    return std::nullopt;
  }

  const EvalRequest& req_;
  const ProgressFn& progress_;
  EvalResult res_;
  Stage stage_ = Stage::setup;
  std::unique_ptr<DeviceBuffer> guard_pattern_;
  // Host check: each trial's reference outputs as doubles, for the timed runs on its inputs.
  std::map<int, std::map<std::string, std::vector<double>>> host_references_;
};

}  // namespace

EvalResult evaluate(const EvalRequest& request, const ProgressFn& progress) {
  return Evaluation(request, progress).run();
}

}  // namespace cusched::runtime
