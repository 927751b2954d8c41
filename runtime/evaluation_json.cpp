// JSON forms of EvalRequest and EvalResult (the worker protocol and the stored record).
#include <limits>

#include "dsl/error.h"
#include "runtime/evaluation.h"

namespace cusched::runtime {

namespace {

nlohmann::json distribution_json(const Distribution& d) { return {{"kind", d.kind}, {"a", d.a}, {"b", d.b}}; }

Distribution distribution_from(const nlohmann::json& j) {
  Distribution d;
  d.kind = j.value("kind", "normal");
  d.a = j.value("a", 0.0);
  d.b = j.value("b", 1.0);
  if (d.kind != "normal" && d.kind != "uniform" && d.kind != "randint")
    fail("bad-request", "The input distribution '" + d.kind + "' is not known.", "Use normal, uniform or randint.");
  return d;
}

}  // namespace

double json_number_or_nan(const nlohmann::json& j, const char* key, std::optional<double> absent) {
  if (absent && !j.contains(key)) return *absent;
  const auto& v = j.at(key);
  return v.is_null() ? std::numeric_limits<double>::quiet_NaN() : v.get<double>();
}

nlohmann::json EvalRequest::to_json() const {
  nlohmann::json j;
  j["candidate"] = candidate.to_json();
  j["reference"] = reference.to_json();
  j["inputs"] = nlohmann::json::array();
  for (const auto& in : inputs) {
    nlohmann::json e{{"buffer", in.buffer}, {"standard", distribution_json(in.standard)}};
    if (in.adversarial) e["adversarial"] = distribution_json(*in.adversarial);
    j["inputs"].push_back(e);
  }
  j["tol"] = {
      {"atol", tol.atol}, {"rtol", tol.rtol}, {"rel_l2", tol.rel_l2}, {"constant_reference", tol.constant_reference}};
  j["timing"] = {{"warmup", timing.warmup}, {"repeats", timing.repeats},     {"flush_l2", timing.flush_l2},
                 {"cut_ms", timing.cut_ms}, {"budget_ms", timing.budget_ms}, {"min_repeats", timing.min_repeats}};
  j["floor"] = {{"bytes", floor.bytes},
                {"flops", floor.flops},
                {"precision", precision_name(floor.precision)},
                {"written_bytes", floor.written_bytes}};
  j["seeds"] = seeds;
  j["base_seed"] = base_seed;
  j["time_it"] = time_it;
  j["inputs_dir"] = inputs_dir;
  j["save_io_dir"] = save_io_dir;
  j["save_io_trials"] = save_io_trials;
  j["trial_limit"] = trial_limit;
  j["watchdog_s"] = watchdog_s;
  j["device"] = device;
  j["host_check"] = host_check;
  j["time_each_launch"] = time_each_launch;
  j["read_only_inputs"] = read_only_inputs;
  return j;
}

EvalRequest EvalRequest::from_json(const nlohmann::json& j) {
  try {
    EvalRequest r;
    r.candidate = KernelBundle::from_json(j.at("candidate"));
    r.reference = KernelBundle::from_json(j.at("reference"));
    for (const auto& e : j.value("inputs", nlohmann::json::array())) {
      InputSpec in;
      in.buffer = e.at("buffer");
      if (e.contains("standard")) in.standard = distribution_from(e.at("standard"));
      if (e.contains("adversarial")) in.adversarial = distribution_from(e.at("adversarial"));
      r.inputs.push_back(in);
    }
    if (j.contains("tol")) {
      const auto& t = j.at("tol");
      r.tol.atol = t.value("atol", r.tol.atol);
      r.tol.rtol = t.value("rtol", r.tol.rtol);
      r.tol.rel_l2 = t.value("rel_l2", r.tol.rel_l2);
      r.tol.constant_reference = t.value("constant_reference", false);
    }
    if (j.contains("timing")) {
      const auto& t = j.at("timing");
      r.timing.warmup = t.value("warmup", r.timing.warmup);
      r.timing.repeats = t.value("repeats", r.timing.repeats);
      r.timing.flush_l2 = t.value("flush_l2", r.timing.flush_l2);
      r.timing.cut_ms = t.value("cut_ms", 0.0);
      r.timing.budget_ms = t.value("budget_ms", 0.0);
      r.timing.min_repeats = t.value("min_repeats", r.timing.min_repeats);
    }
    if (j.contains("floor")) {
      const auto& f = j.at("floor");
      r.floor.bytes = f.value("bytes", 0.0);
      r.floor.flops = f.value("flops", 0.0);
      r.floor.precision = parse_precision(f.value("precision", "f32"));
      r.floor.written_bytes = f.value("written_bytes", 0.0);
    }
    r.seeds = j.value("seeds", r.seeds);
    r.base_seed = j.value("base_seed", r.base_seed);
    r.time_it = j.value("time_it", r.time_it);
    r.inputs_dir = j.value("inputs_dir", "");
    r.save_io_dir = j.value("save_io_dir", "");
    r.save_io_trials = j.value("save_io_trials", 0);
    r.trial_limit = j.value("trial_limit", 0);
    r.watchdog_s = j.value("watchdog_s", r.watchdog_s);
    r.device = j.value("device", 0);
    r.host_check = j.value("host_check", false);
    r.time_each_launch = j.value("time_each_launch", false);
    r.read_only_inputs = j.value("read_only_inputs", true);
    return r;
  } catch (const nlohmann::json::exception& e) {
    fail("bad-request", std::string("The evaluation request JSON is malformed: ") + e.what() + ".",
         "Produce requests with EvalRequest::to_json.");
  }
}

nlohmann::json PhaseTimes::to_json() const {
  return {{"compile", compile},     {"generate", generate},   {"upload", upload},
          {"candidate", candidate}, {"reference", reference}, {"download", download},
          {"check", check},         {"timing", timing},       {"gpu_wait", gpu_wait}};
}

PhaseTimes PhaseTimes::from_json(const nlohmann::json& j) {
  PhaseTimes p;
  if (!j.is_object()) return p;
  p.compile = json_number_or_nan(j, "compile", 0.0);
  p.generate = json_number_or_nan(j, "generate", 0.0);
  p.upload = json_number_or_nan(j, "upload", 0.0);
  p.candidate = json_number_or_nan(j, "candidate", 0.0);
  p.reference = json_number_or_nan(j, "reference", 0.0);
  p.download = json_number_or_nan(j, "download", 0.0);
  p.check = json_number_or_nan(j, "check", 0.0);
  p.timing = json_number_or_nan(j, "timing", 0.0);
  p.gpu_wait = json_number_or_nan(j, "gpu_wait", 0.0);
  return p;
}

nlohmann::json EvalResult::to_json() const {
  return {{"verdict", verdict_name(verdict)},
          {"message", message},
          {"failed_buffer", failed_buffer},
          {"failed_trial", failed_trial},
          {"max_abs_err", max_abs_err},
          {"max_rel_err", max_rel_err},
          {"rel_l2_err", rel_l2_err},
          {"trials", trials},
          {"times_ms", times_ms},
          {"median_ms", median_ms},
          {"min_ms", min_ms},
          {"max_ms", max_ms},
          {"floor_ms", floor_ms},
          {"pct_of_floor", pct_of_floor},
          {"copy_bandwidth_gbs", copy_bandwidth_gbs},
          {"read_bandwidth_gbs", read_bandwidth_gbs},
          {"compile_report", compile_report},
          {"precision", precision_name(precision)},
          {"compiled_precision", compiled_precision ? precision_name(*compiled_precision) : ""},
          {"input_protection", input_protection},
          {"input_protection_note", input_protection_note},
          {"timed_runs_verified", timed_runs_verified},
          {"timing_cut", timing_cut},
          {"timing_input_sets", timing_input_sets},
          {"device_name", device_name},
          {"phase_ms", phase_ms.to_json()},
          {"check_path", check_path},
          {"trial_cache_hit", trial_cache_hit},
          {"launch_ms", [&] {
             auto a = nlohmann::json::array();
             for (const auto& [kernel, ms] : launch_ms) a.push_back({{"kernel", kernel}, {"median_ms", ms}});
             return a;
           }()}};
}

EvalResult EvalResult::from_json(const nlohmann::json& j) {
  try {
    EvalResult r;
    auto v = verdict_from_name(j.at("verdict").get<std::string>());
    if (!v)
      fail("bad-result", "The evaluation result names an unknown verdict.",
           "Produce results with EvalResult::to_json.");
    r.verdict = *v;
    r.message = j.value("message", "");
    r.failed_buffer = j.value("failed_buffer", "");
    r.failed_trial = j.value("failed_trial", -1);
    r.max_abs_err = json_number_or_nan(j, "max_abs_err", 0.0);
    r.max_rel_err = json_number_or_nan(j, "max_rel_err", 0.0);
    r.rel_l2_err = json_number_or_nan(j, "rel_l2_err", 0.0);
    r.trials = j.value("trials", 0);
    for (const auto& t : j.value("times_ms", nlohmann::json::array()))
      r.times_ms.push_back(t.is_null() ? std::numeric_limits<double>::quiet_NaN() : t.get<double>());
    r.median_ms = json_number_or_nan(j, "median_ms", 0.0);
    r.min_ms = json_number_or_nan(j, "min_ms", 0.0);
    r.max_ms = json_number_or_nan(j, "max_ms", 0.0);
    r.floor_ms = json_number_or_nan(j, "floor_ms", 0.0);
    r.pct_of_floor = json_number_or_nan(j, "pct_of_floor", 0.0);
    r.copy_bandwidth_gbs = json_number_or_nan(j, "copy_bandwidth_gbs", 0.0);
    r.read_bandwidth_gbs = json_number_or_nan(j, "read_bandwidth_gbs", 0.0);
    r.compile_report = j.value("compile_report", nlohmann::json::object());
    r.precision = parse_precision(j.value("precision", "f32"));
    if (auto c = precision_from_name(j.value("compiled_precision", ""))) r.compiled_precision = *c;
    r.input_protection = j.value("input_protection", "");
    r.input_protection_note = j.value("input_protection_note", "");
    r.timed_runs_verified = j.value("timed_runs_verified", 0);
    r.timing_cut = j.value("timing_cut", false);
    r.timing_input_sets = j.value("timing_input_sets", 0);
    r.device_name = j.value("device_name", "");
    r.phase_ms = PhaseTimes::from_json(j.value("phase_ms", nlohmann::json::object()));
    r.check_path = j.value("check_path", "");
    r.trial_cache_hit = j.value("trial_cache_hit", false);
    for (const auto& l : j.value("launch_ms", nlohmann::json::array()))
      r.launch_ms.emplace_back(l.at("kernel").get<std::string>(), json_number_or_nan(l, "median_ms", 0.0));
    return r;
  } catch (const nlohmann::json::exception& e) {
    fail("bad-result", std::string("The evaluation result JSON is malformed: ") + e.what() + ".",
         "Produce results with EvalResult::to_json.");
  }
}

}  // namespace cusched::runtime
