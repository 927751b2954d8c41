#include "runtime/evaluation.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>

#include "dsl/error.h"
#include "runtime/cuda_driver.h"
#include "runtime/device_buffer.h"
#include "runtime/element_codec.h"
#include "runtime/gpu_context.h"
#include "runtime/input_generator.h"
#include "runtime/launch_sequence.h"
#include "runtime/npy.h"
#include "runtime/nvrtc_compiler.h"
#include "runtime/output_check.h"
#include "runtime/performance_floor.h"
#include "runtime/timing.h"

namespace cusched::runtime {

bool verdict_breaks_context(Verdict v) {
  return v == Verdict::illegal_address || v == Verdict::launch_error || v == Verdict::timeout ||
         v == Verdict::crashed;
}

namespace {

using HostTensors = std::map<std::string, std::vector<uint8_t>>;

// One set of inputs to verify with.
struct Trial {
  std::string label;  // "seed 2", "adversarial", "inputs dir"
  HostTensors inputs;
};

// Who was running when a CUDA call failed: faults of the candidate are its
// verdict, faults anywhere else are the runtime's.
enum class Stage { setup, candidate, reference, timing };

std::vector<const BufferSpec*> with_role(const KernelBundle& b, BufferRole role) {
  std::vector<const BufferSpec*> out;
  for (const auto& s : b.buffers)
    if (s.role == role) out.push_back(&s);
  return out;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + ")";
}

// The candidate and the reference must agree on every input and output.
void validate_pair(const EvalRequest& req) {
  const auto& cand = req.candidate;
  const auto& ref = req.reference;
  if (cand.launches.empty()) fail("bad-bundle", "The candidate bundle has no launches.", "Give the bundle at least one launch.");
  if (ref.launches.empty()) fail("bad-bundle", "The reference bundle has no launches.", "Give the bundle at least one launch.");
  for (const auto* in : with_role(cand, BufferRole::Input)) {
    const BufferSpec* r = ref.find_buffer(in->name);
    if (!r || r->role != BufferRole::Input || r->dtype != in->dtype || r->shape != in->shape)
      fail("bad-request", "The reference bundle has no input '" + in->name + "' of dtype " + dtype_name(in->dtype) +
                              " and shape " + shape_text(in->shape) + " like the candidate's.",
           "Generate the candidate and the reference from the same problem.");
  }
  for (const auto* in : with_role(ref, BufferRole::Input))
    if (!cand.find_buffer(in->name))
      fail("bad-request", "The reference reads the input '" + in->name + "', which the candidate does not declare.",
           "Generate the candidate and the reference from the same problem.");
  auto outputs = with_role(cand, BufferRole::Output);
  if (outputs.empty()) fail("bad-bundle", "The candidate bundle has no output buffer.", "Mark the result buffers with role output.");
  for (const auto* out : outputs) {
    const BufferSpec* r = ref.find_buffer(out->name);
    if (!r || r->role != BufferRole::Output || r->shape != out->shape)
      fail("bad-request", "The reference bundle has no output '" + out->name + "' of shape " + shape_text(out->shape) + ".",
           "Generate the candidate and the reference from the same problem.");
  }
  for (const auto& in : req.inputs)
    if (!cand.find_buffer(in.buffer) || cand.find_buffer(in.buffer)->role != BufferRole::Input)
      fail("bad-request", "The input distribution names '" + in.buffer + "', which is not an input of the candidate.",
           "Name only the bundle's input buffers in the request's inputs.");
}

const InputSpec* spec_for(const EvalRequest& req, const std::string& buffer) {
  for (const auto& in : req.inputs)
    if (in.buffer == buffer) return &in;
  return nullptr;
}

std::vector<Trial> make_trials(const EvalRequest& req) {
  std::vector<Trial> trials;
  auto inputs = with_role(req.candidate, BufferRole::Input);
  auto generated = [&](int index, bool adversarial) {
    Trial t;
    t.label = adversarial ? "adversarial" : "seed " + std::to_string(index);
    for (const auto* b : inputs) {
      const InputSpec* spec = spec_for(req, b->name);
      Distribution d = spec ? spec->standard : default_distribution(b->dtype);
      if (adversarial && spec && spec->adversarial) d = *spec->adversarial;
      t.inputs[b->name] = generate_input(*b, d, trial_seed(req.base_seed, adversarial ? -1 : index, b->name));
    }
    return t;
  };
  if (!req.inputs_dir.empty()) {
    Trial t = generated(-2, false);
    t.label = "inputs from " + req.inputs_dir;
    for (const auto* b : inputs) {
      std::string path = req.inputs_dir + "/" + b->name + ".npy";
      if (!std::filesystem::exists(path)) continue;
      NpyArray a = read_npy(path);
      if (a.dtype != b->dtype || a.shape != b->shape)
        fail("bad-npy", "The file " + path + " holds " + dtype_name(a.dtype) + " " + shape_text(a.shape) +
                            " but input '" + b->name + "' is " + dtype_name(b->dtype) + " " + shape_text(b->shape) + ".",
             "Save the input with the dtype and shape the problem declares.");
      t.inputs[b->name] = std::move(a.data);
    }
    trials.push_back(std::move(t));
  }
  for (int s = 0; s < std::max(3, req.seeds); ++s) trials.push_back(generated(s, false));
  bool any_adversarial = std::any_of(req.inputs.begin(), req.inputs.end(), [](const InputSpec& i) { return i.adversarial.has_value(); });
  if (any_adversarial) trials.push_back(generated(0, true));
  return trials;
}

// A bundle's buffers, freshly allocated: inputs uploaded, outputs poisoned.
struct Allocation {
  std::map<std::string, DeviceBuffer> buffers;
  std::map<std::string, CUdeviceptr> addresses;
};

std::unique_ptr<Allocation> allocate(const KernelBundle& bundle, const HostTensors& inputs, const GpuContext& ctx) {
  auto a = std::make_unique<Allocation>();
  const CudaDriver& d = driver();
  for (const auto& b : bundle.buffers) {
    DeviceBuffer buf(static_cast<size_t>(b.bytes()));
    if (b.role == BufferRole::Input) {
      buf.upload(inputs.at(b.name));
    } else if (b.role == BufferRole::Output && b.elements() > 0) {
      uint32_t word = poison_word(b.dtype);
      size_t n = static_cast<size_t>(b.bytes());
      switch (dtype_bytes(b.dtype)) {
        case 1: check_cuda(d.MemsetD8Async(buf.ptr(), static_cast<unsigned char>(word), n, ctx.stream()), "Poisoning outputs"); break;
        case 2: check_cuda(d.MemsetD16Async(buf.ptr(), static_cast<unsigned short>(word), n / 2, ctx.stream()), "Poisoning outputs"); break;
        default: check_cuda(d.MemsetD32Async(buf.ptr(), word, n / 4, ctx.stream()), "Poisoning outputs"); break;
      }
    }
    a->addresses[b.name] = buf.ptr();
    a->buffers.emplace(b.name, std::move(buf));
  }
  return a;
}

std::vector<double> as_doubles(DType t, const std::vector<uint8_t>& raw) {
  int w = dtype_bytes(t);
  std::vector<double> out(raw.size() / static_cast<size_t>(w));
  for (size_t i = 0; i < out.size(); ++i) out[i] = load_element(t, raw.data() + i * static_cast<size_t>(w));
  return out;
}

void save_tensor(const std::string& dir, const std::string& file, const BufferSpec& b, const std::vector<uint8_t>& data, DType t) {
  std::filesystem::create_directories(dir);
  write_npy(dir + "/" + file, NpyArray{t, b.shape, data});
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
    case CUDA_ERROR_ILLEGAL_ADDRESS: case CUDA_ERROR_MISALIGNED_ADDRESS: case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_HARDWARE_STACK_ERROR: case CUDA_ERROR_ILLEGAL_INSTRUCTION: case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED: case CUDA_ERROR_LAUNCH_TIMEOUT: case CUDA_ERROR_ASSERT:
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
      return run_checked();
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
    CompiledModule cand_cubin;
    try {
      cand_cubin = compile_bundle(req_.candidate, options);
    } catch (const CompileFailure& e) {
      res_.compile_report["candidate"] = {{"arch", options.arch}, {"log", e.log()}};
      return finish(Verdict::compile_error, e.error().message);
    }
    res_.compile_report["candidate"] = cand_cubin.report();
    CompiledModule ref_cubin = compile_bundle(req_.reference, options);
    res_.compile_report["reference"] = ref_cubin.report();
    tick("compiled");

    stage_ = Stage::candidate;
    LoadedModule cand_module(cand_cubin.cubin);
    stage_ = Stage::reference;
    LoadedModule ref_module(ref_cubin.cubin);
    stage_ = Stage::setup;

    std::vector<Trial> trials = make_trials(req_);
    const HostTensors* timing_inputs = nullptr;
    for (size_t t = 0; t < trials.size(); ++t) {
      if (auto failed = verify(ctx, cand_module, ref_module, trials[t], static_cast<int>(t))) return *failed;
      res_.trials = static_cast<int>(t + 1);
      if (!timing_inputs && trials[t].label.rfind("seed ", 0) == 0) timing_inputs = &trials[t].inputs;
      tick("trial " + std::to_string(t));
    }
    if (req_.time_it) {
      if (auto failed = measure(ctx, cand_module, *timing_inputs)) return *failed;
    }
    return finish(Verdict::ok, "The candidate matched the reference on " + std::to_string(res_.trials) + " trials" +
                                   (req_.time_it ? " and ran at " + std::to_string(res_.pct_of_floor) + "% of its floor." : "."));
  }

  // Runs one trial; returns the failing result, or nullopt when the trial passed.
  std::optional<EvalResult> verify(const GpuContext& ctx, const LoadedModule& cand_module, const LoadedModule& ref_module,
                                   const Trial& trial, int index) {
    const auto& cand = req_.candidate;
    const std::string prefix = "trial" + std::to_string(index) + "_";
    const std::string where = " in trial " + std::to_string(index) + " (" + trial.label + ")";
    auto fail_trial = [&](Verdict v, const std::string& buffer, const std::string& message) {
      res_.failed_trial = index;
      res_.failed_buffer = buffer;
      return finish(v, message);
    };

    // The candidate first, in buffers of its own.
    HostTensors cand_out;
    stage_ = Stage::candidate;
    {
      auto alloc = allocate(cand, trial.inputs, ctx);
      LaunchSequence seq(cand, cand_module, alloc->addresses);
      seq.enqueue(ctx.stream());
      ctx.wait(req_.watchdog_s, "The candidate" + where);
      for (const auto* b : with_role(cand, BufferRole::Output)) cand_out[b->name] = alloc->buffers.at(b->name).download();
      for (const auto* b : with_role(cand, BufferRole::Input)) {
        auto after = alloc->buffers.at(b->name).download();
        const auto& before = trial.inputs.at(b->name);
        if (after != before) {
          size_t first = 0;
          while (first < after.size() && after[first] == before[first]) ++first;
          return fail_trial(Verdict::input_modified, b->name,
                            "The candidate wrote its input '" + b->name + "'" + where + " (its checksum changed; first at element " +
                                std::to_string(first / static_cast<size_t>(dtype_bytes(b->dtype))) + ").");
        }
      }
    }

    // Then the reference, in fresh buffers.
    HostTensors ref_out;
    stage_ = Stage::reference;
    {
      auto alloc = allocate(req_.reference, trial.inputs, ctx);
      LaunchSequence seq(req_.reference, ref_module, alloc->addresses);
      seq.enqueue(ctx.stream());
      ctx.wait(req_.watchdog_s, "The reference" + where);
      for (const auto* b : with_role(req_.reference, BufferRole::Output)) ref_out[b->name] = alloc->buffers.at(b->name).download();
    }
    stage_ = Stage::setup;

    if (!req_.save_io_dir.empty()) {
      for (const auto* b : with_role(cand, BufferRole::Input)) save_tensor(req_.save_io_dir, prefix + b->name + ".npy", *b, trial.inputs.at(b->name), b->dtype);
      for (const auto* b : with_role(cand, BufferRole::Output)) {
        save_tensor(req_.save_io_dir, prefix + b->name + ".npy", *b, cand_out.at(b->name), b->dtype);
        const BufferSpec* r = req_.reference.find_buffer(b->name);
        save_tensor(req_.save_io_dir, prefix + b->name + ".reference.npy", *r, ref_out.at(b->name), r->dtype);
      }
    }

    for (const auto* b : with_role(cand, BufferRole::Output)) {
      const BufferSpec* r = req_.reference.find_buffer(b->name);
      std::vector<double> ref = as_doubles(r->dtype, ref_out.at(b->name));
      OutputCheck rc = check_reference(b->name, ref.data(), b->elements());
      if (rc.verdict != Verdict::ok) return fail_trial(rc.verdict, b->name, rc.message + " (" + trial.label + ")");
      OutputCheck oc = check_output(b->name, b->dtype, cand_out.at(b->name).data(), ref.data(), b->elements(), req_.tol,
                                    !b->zero_before_launch);
      res_.max_abs_err = std::max(res_.max_abs_err, oc.max_abs_err);
      res_.max_rel_err = std::max(res_.max_rel_err, oc.max_rel_err);
      res_.rel_l2_err = std::max(res_.rel_l2_err, oc.rel_l2_err);
      if (oc.verdict != Verdict::ok) return fail_trial(oc.verdict, b->name, oc.message.substr(0, oc.message.size() - 1) + where + ".");
    }
    return std::nullopt;
  }

  std::optional<EvalResult> measure(const GpuContext& ctx, const LoadedModule& cand_module, const HostTensors& inputs) {
    stage_ = Stage::setup;
    double bw = copy_bandwidth_bytes_per_s(ctx);
    res_.copy_bandwidth_gbs = bw / 1e9;
    stage_ = Stage::timing;
    auto alloc = allocate(req_.candidate, inputs, ctx);
    LaunchSequence seq(req_.candidate, cand_module, alloc->addresses);
    int run = 0;
    res_.times_ms = time_launch_sequence(ctx, [&] { seq.enqueue(ctx.stream()); }, req_.timing, req_.watchdog_s,
                                         [&] { tick("timed run " + std::to_string(run++)); });
    stage_ = Stage::setup;
    TimeSummary s = summarize_times(res_.times_ms);
    res_.median_ms = s.median_ms;
    res_.min_ms = s.min_ms;
    res_.max_ms = s.max_ms;
    res_.floor_ms = floor_ms(req_.floor, bw);
    res_.pct_of_floor = res_.median_ms > 0 ? 100.0 * res_.floor_ms / res_.median_ms : 0;
    if (res_.floor_ms > 0 && res_.median_ms < kUnderFloorFraction * res_.floor_ms)
      return finish(Verdict::under_floor, "The median time " + std::to_string(res_.median_ms) + " ms is under the floor of " +
                                              std::to_string(res_.floor_ms) + " ms, so the kernel cannot be doing the whole job.");
    return std::nullopt;
  }

  const EvalRequest& req_;
  const ProgressFn& progress_;
  EvalResult res_;
  Stage stage_ = Stage::setup;
};

}  // namespace

EvalResult evaluate(const EvalRequest& request, const ProgressFn& progress) {
  return Evaluation(request, progress).run();
}

}  // namespace cusched::runtime
