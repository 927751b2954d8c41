#pragma once
// Test helpers: a problem's schedule lowered at the bench size, NVRTC's PTX of a
// bundle (compute_90a, to check which instructions the emitted code uses), and its
// sm_90a module and CUBIN size. No GPU is needed.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nvrtc.h>

#include "codegen/bundle.h"
#include "codegen/lower.h"
#include "problems/problem.h"
#include "runtime/nvrtc_compiler.h"

namespace cusched::runtime::testing {

inline KernelBundle bench_bundle(const std::string& problem, const nlohmann::json& steps) {
  const Problem& p = find_problem(problem);
  return make_bundle(lower(Schedule::from_json(p.context("bench"), steps), p.name));
}

// NVRTC's PTX for compute_90a, or "" with a test failure holding the log.
inline std::string ptx_of(const KernelBundle& b) {
  std::vector<const char*> names, bodies;
  for (const auto& [name, body] : b.headers) {
    names.push_back(name.c_str());
    bodies.push_back(body.c_str());
  }
  nvrtcProgram prog = nullptr;
  if (nvrtcCreateProgram(&prog, b.source.c_str(), (b.problem + ".cu").c_str(), static_cast<int>(names.size()),
                         bodies.data(), names.data()) != NVRTC_SUCCESS) {
    ADD_FAILURE() << "nvrtcCreateProgram failed";
    return "";
  }
  std::vector<std::string> options{"--gpu-architecture=compute_90a", "-std=c++17"};
  for (const auto& dir : cuda_include_dirs()) options.push_back("-I" + dir);
  std::vector<const char*> option_ptrs;
  for (const auto& o : options) option_ptrs.push_back(o.c_str());
  std::string text;
  size_t size = 0;
  if (nvrtcCompileProgram(prog, static_cast<int>(option_ptrs.size()), option_ptrs.data()) == NVRTC_SUCCESS) {
    nvrtcGetPTXSize(prog, &size);
    text.assign(size, '\0');
    nvrtcGetPTX(prog, text.data());
  } else {
    nvrtcGetProgramLogSize(prog, &size);
    std::string log(size, '\0');
    nvrtcGetProgramLog(prog, log.data());
    ADD_FAILURE() << log;
  }
  nvrtcDestroyProgram(&prog);
  return text;
}

// The bundle compiled by NVRTC for sm_90a (empty PTX and the log where it does not compile).
inline CompiledModule sm90a_module(const KernelBundle& b) {
  CompileOptions o;
  o.arch = "sm_90a";
  return compile_bundle(b, o);
}

inline size_t sm90a_cubin_bytes(const KernelBundle& b) { return sm90a_module(b).cubin.size(); }

}  // namespace cusched::runtime::testing
