#include "runtime/nvrtc_compiler.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <tuple>

#include <nvrtc.h>
#include <unistd.h>

#include "runtime/compile_cache.h"

#ifndef CUSCHED_CUDA_INCLUDE_DIR
#define CUSCHED_CUDA_INCLUDE_DIR "/usr/local/cuda/include"
#endif

namespace cusched::runtime {

nlohmann::json CompiledModule::report() const {
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& r : resources) kernels.push_back(r.to_json());
  return {{"arch", arch},
          {"nvrtc_version", nvrtc_version()},
          {"cache_key", cache_key},
          {"cache_hit", cache_hit},
          {"compile_ms", compile_ms},
          {"cubin_bytes", cubin.size()},
          {"kernels", kernels},
          {"log", log}};
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string arch_for_compute_capability(int major, int minor) {
  std::string arch = "sm_" + std::to_string(major) + std::to_string(minor);
  if (major == 9 && minor == 0) arch += "a";
  return arch;
}

std::vector<std::string> cuda_include_dirs() {
  std::string base = CUSCHED_CUDA_INCLUDE_DIR;
  if (const char* e = std::getenv("CUSCHED_CUDA_INCLUDE"); e && *e) base = e;
  std::vector<std::string> dirs{base};
  if (std::filesystem::is_directory(base + "/cccl")) dirs.push_back(base + "/cccl");
  return dirs;
}

namespace {

// An NVRTC call that cannot fail on valid input; a failure is an internal error.
void check_nvrtc(nvrtcResult r, const char* what) {
  if (r == NVRTC_SUCCESS) return;
  fail("nvrtc-error", std::string("NVRTC ") + what + " failed with " + nvrtcGetErrorString(r) + ".",
       "Check that the CUDA 13 NVRTC library (libnvrtc.so.13) and its builtins library are installed.");
}

std::string first_error_line(const std::string& log) {
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line))
    if (line.find("error") != std::string::npos) return line;
  return log.substr(0, log.find('\n'));
}

struct Program {
  nvrtcProgram p = nullptr;
  ~Program() {
    if (p) nvrtcDestroyProgram(&p);
  }
};

}  // namespace

namespace {

struct NvrtcOutput {
  std::string cubin, log, ptx;
};

// One NVRTC run: the CUBIN, the log and the PTX. Throws CompileFailure.
NvrtcOutput run_nvrtc(const std::string& source, const std::map<std::string, std::string>& headers,
                      const std::vector<std::string>& opts, const std::string& name, const std::string& arch) {
  std::vector<const char*> header_bodies, header_names;
  for (const auto& [hname, body] : headers) {
    header_names.push_back(hname.c_str());
    header_bodies.push_back(body.c_str());
  }
  Program prog;
  check_nvrtc(nvrtcCreateProgram(&prog.p, source.c_str(), name.c_str(), static_cast<int>(headers.size()),
                                 header_bodies.data(), header_names.data()),
              "program creation");
  std::vector<const char*> opt_ptrs;
  for (const auto& o : opts) opt_ptrs.push_back(o.c_str());
  nvrtcResult compiled = nvrtcCompileProgram(prog.p, static_cast<int>(opt_ptrs.size()), opt_ptrs.data());
  size_t log_size = 0;
  check_nvrtc(nvrtcGetProgramLogSize(prog.p, &log_size), "log size query");
  std::string log(log_size, '\0');
  if (log_size) check_nvrtc(nvrtcGetProgramLog(prog.p, log.data()), "log query");
  while (!log.empty() && log.back() == '\0') log.pop_back();

  if (compiled != NVRTC_SUCCESS) {
    Error e;
    e.code = "compile-error";
    e.op = name;
    e.message = "NVRTC could not compile " + name + " for " + arch + ": " + first_error_line(log);
    e.hint = "Read the full NVRTC log in the compile report and fix the generated source or its schedule.";
    throw CompileFailure(std::move(e), std::move(log));
  }
  size_t cubin_size = 0;
  check_nvrtc(nvrtcGetCUBINSize(prog.p, &cubin_size), "CUBIN size query");
  if (cubin_size == 0)
    fail("compile-error", "NVRTC produced an empty CUBIN for " + name + " and " + arch + ".",
         "Compile for a real architecture (sm_XY), not a virtual one (compute_XY).");
  std::string cubin(cubin_size, '\0');
  check_nvrtc(nvrtcGetCUBIN(prog.p, cubin.data()), "CUBIN query");
  size_t ptx_size = 0;
  check_nvrtc(nvrtcGetPTXSize(prog.p, &ptx_size), "PTX size query");
  std::string ptx(ptx_size, '\0');
  if (ptx_size) check_nvrtc(nvrtcGetPTX(prog.p, ptx.data()), "PTX query");
  while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  return {std::move(cubin), std::move(log), std::move(ptx)};
}

}  // namespace

CompiledModule compile_cuda(const std::string& source, const std::map<std::string, std::string>& headers,
                            const CompileOptions& options, const std::string& name) {
  std::vector<std::string> opts{"--gpu-architecture=" + options.arch, "-std=c++17", "--ptxas-options=-v"};
  for (const auto& dir : cuda_include_dirs()) opts.push_back("-I" + dir);
  for (const auto& o : options.extra_options) opts.push_back(o);

  std::vector<std::string> key_parts{"nvrtc " + nvrtc_version(), source};
  for (const auto& [hname, body] : headers) {
    key_parts.push_back(hname);
    key_parts.push_back(body);
  }
  for (const auto& o : opts) key_parts.push_back(o);

  CompiledModule out;
  out.arch = options.arch;
  out.cache_key = content_hash(key_parts);
  CompileCache cache(options.cache_dir.empty() ? CompileCache::default_dir() : options.cache_dir);
  if (options.use_cache) {
    if (auto hit = cache.load(out.cache_key)) {
      out.cubin = std::move(hit->cubin);
      out.log = std::move(hit->log);
      out.ptx = std::move(hit->ptx);
      out.resources = parse_ptxas_report(out.log);
      out.cache_hit = true;
      return out;
    }
  }

  auto start = std::chrono::steady_clock::now();
  NvrtcOutput first = run_nvrtc(source, headers, opts, name, options.arch);
  out.cubin = std::move(first.cubin);
  out.log = std::move(first.log);
  out.ptx = std::move(first.ptx);
  if (parse_ptxas_report(out.log).empty() && source.find("__global__") != std::string::npos) {
    // Some NVRTC builds print no ptxas report for a program they have compiled
    // before in this process; a program with one more (unused) device global
    // is new to them and gets a full report.
    static std::atomic<unsigned> retry{0};
    std::string marked = source + "\n__device__ int cusched_report_nonce_" + std::to_string(getpid()) + "_" +
                         std::to_string(retry++) + ";\n";
    NvrtcOutput again = run_nvrtc(marked, headers, opts, name, options.arch);
    out.cubin = std::move(again.cubin);
    out.log = std::move(again.log);
    out.ptx = std::move(again.ptx);
  }
  out.resources = parse_ptxas_report(out.log);
  out.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (options.use_cache) cache.store(out.cache_key, {out.cubin, out.log, out.ptx});
  return out;
}

CompiledModule compile_bundle(const KernelBundle& bundle, const CompileOptions& options) {
  std::string name = (bundle.problem.empty() ? std::string("kernel") : bundle.problem) + ".cu";
  return compile_cuda(bundle.source, bundle.headers, options, name);
}

}  // namespace cusched::runtime
