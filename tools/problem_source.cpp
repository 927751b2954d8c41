#include "tools/problem_source.h"

#include <charconv>
#include <set>
#include <sstream>

#include "dsl/error.h"
#include "problems/problem_file.h"
#include "runtime/cuda_driver.h"
#include "runtime/device_info.h"

namespace cusched::tools {

namespace {

int64_t checked_multiply(int64_t a, int64_t b, const std::string& what) {
  int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out))
    fail("shape-overflow", "The element count of " + what + " overflows a 64-bit integer at this shape.",
         "Give smaller sizes with --shape.");
  return out;
}

int64_t checked_add(int64_t a, int64_t b, const std::string& what) {
  int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out))
    fail("shape-overflow", "The bytes of " + what + " overflow a 64-bit integer at this shape.",
         "Give smaller sizes with --shape.");
  return out;
}

// Elements of a buffer whose dimensions are `dims`, each checked to be positive.
int64_t elements(const std::vector<Expr>& dims, const SizeBindings& s, const std::string& what) {
  int64_t n = 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    int64_t v = eval_int(dims[d], s);
    if (v <= 0)
      fail("bad-shape",
           "Dimension " + std::to_string(d) + " of " + what + " (" + to_string(dims[d]) + ") is " + std::to_string(v) +
               " at this shape.",
           "Give sizes for which every dimension is at least 1.");
    n = checked_multiply(n, v, what);
  }
  return n;
}

// Bytes of every input and output at `s`, in exact integers.
int64_t input_bytes(const Problem& p, const SizeBindings& s) {
  int64_t bytes = 0;
  for (const auto& in : p.pipeline.inputs())
    bytes = checked_add(
        bytes,
        checked_multiply(elements(in->shape, s, "input " + in->name), dtype_bytes(in->dtype), "input " + in->name),
        "the buffers");
  return bytes;
}

int64_t bytes_at(const Problem& p, const SizeBindings& s) {
  int64_t bytes = input_bytes(p, s);
  for (const auto& out : p.pipeline.outputs()) {
    const FuncDef* f = p.pipeline.find_stage(out);
    bytes = checked_add(
        bytes, checked_multiply(elements(f->extents, s, "output " + out), dtype_bytes(f->dtype), "output " + out),
        "the buffers");
  }
  return bytes;
}

void check_sizes(const Problem& p, const SizeBindings& s) {
  for (const auto& [name, v] : s)
    if (v <= 0)
      fail("bad-shape", "The size " + name + " is " + std::to_string(v) + "; sizes must be at least 1.",
           "Give every size a positive value.");
  for (const auto& st : p.pipeline.stages()) elements(st->extents, s, "stage " + st->name);
  bytes_at(p, s);
}

SizeBindings parse_shape(const Problem& p, const SizeBindings& base, const std::string& shape) {
  SizeBindings out = base;
  std::string names;
  for (const auto& [n, _] : base) names += (names.empty() ? "" : ", ") + n;
  std::set<std::string> seen;
  std::stringstream ss(shape);
  std::string item;
  while (std::getline(ss, item, ',')) {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      fail("bad-shape", "The shape entry '" + item + "' is not NAME=VALUE.",
           "Write the shape as " + names + " with values, e.g. --shape " +
               (base.empty() ? std::string("N=1024") : base.begin()->first + "=1024") + ".");
    std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    if (!base.count(name))
      fail("unknown-shape-size", "Problem '" + p.name + "' has no size named '" + name + "'.",
           "Use its sizes: " + names + ".");
    if (!seen.insert(name).second)
      fail("bad-shape", "The size " + name + " is given twice in the shape.", "Give each size once.");
    int64_t v = 0;
    auto r = std::from_chars(value.data(), value.data() + value.size(), v);
    if (r.ec == std::errc::result_out_of_range)
      fail("shape-overflow", "The size " + name + "=" + value + " does not fit a 64-bit integer.",
           "Give a smaller value.");
    if (r.ec != std::errc() || r.ptr != value.data() + value.size() || value.empty())
      fail("bad-shape", "The size " + name + "=" + value + " is not an integer.",
           "Give a positive integer, e.g. " + name + "=1024.");
    if (v <= 0)
      fail("bad-shape", "The size " + name + "=" + value + " is not positive.", "Give a value of at least 1.");
    out[name] = v;
  }
  return out;
}

}  // namespace

bool names_problem_file(const std::string& spec) {
  return spec.find('/') != std::string::npos || (spec.size() > 5 && spec.compare(spec.size() - 5, 5, ".json") == 0);
}

Problem problem_of_run(const search::RunInfo& run) {
  if (run.problem_definition.is_null()) return find_problem(run.problem);
  return problem_from_json(run.problem_definition, "the definition stored with run " + std::to_string(run.id));
}

Problem resolve_problem(const std::string& spec) {
  if (names_problem_file(spec)) return load_problem_file(spec);
  return find_problem(spec);
}

std::string resolve_size(Problem& p, const std::string& size, const std::string& shape, const std::string& fallback) {
  std::string base = !size.empty() ? size : !fallback.empty() && p.sizes.count(fallback) ? fallback : p.default_size;
  const SizeBindings& table = p.size(base);
  if (shape.empty()) {
    check_sizes(p, table);
    return base;
  }
  SizeBindings s = parse_shape(p, table, shape);
  std::string name;
  for (const auto& [n, v] : s) name += (name.empty() ? "" : ",") + n + "=" + std::to_string(v);
  p.sizes[name] = s;
  check_sizes(p, p.sizes[name]);
  return name;
}

int64_t buffer_bytes(const Problem& p, const std::string& size) { return bytes_at(p, p.size(size)); }

void require_fits_device(const Problem& p, const std::string& size, int64_t device_memory) {
  if (device_memory <= 0) return;
  int64_t inputs = input_bytes(p, p.size(size)), outputs = buffer_bytes(p, size) - inputs;
  int64_t need = checked_add(inputs, checked_multiply(outputs, 2, "the outputs"), "the buffers");
  if (need > device_memory)
    fail("shape-exceeds-device-memory",
         "At size " + size + " the problem's buffers take " + std::to_string(need / (1 << 20)) +
             " MiB (inputs once, outputs for the "
             "candidate and the reference), more than the GPU's " +
             std::to_string(device_memory / (1 << 20)) + " MiB.",
         "Give smaller sizes with --shape.");
}

int64_t device_memory_bytes() {
  if (runtime::driver_available()) return 0;
  try {
    return runtime::query_device(0).total_memory_bytes;
  } catch (const UserError&) {
    return 0;
  }
}

search::RunInfo resolve_run(const search::Store& store, int64_t run, const std::string& code) {
  std::optional<int64_t> id = run ? std::optional<int64_t>(run) : store.latest_run();
  std::optional<search::RunInfo> info = id ? store.find_run(*id) : std::nullopt;
  if (!info)
    fail(code, run ? "The store has no run " + std::to_string(run) + "." : "The store has no run yet.",
         "Start a search with `cusched search --db FILE` first, or pass the id of a run that exists with --run.");
  return *info;
}

}  // namespace cusched::tools
