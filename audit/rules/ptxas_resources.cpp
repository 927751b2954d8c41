// ptxas-resources: registers, spills, local memory and occupancy from a ptxas -v log.
#include <map>
#include <regex>
#include <sstream>

#include "audit/rules/rules.h"

namespace cusched::audit {
namespace {

struct KernelResources {
  int registers = -1;
  long stack_frame = 0, spill_stores = 0, spill_loads = 0, smem = 0, barriers = 0;
};

// H200 (sm_90): 64K 32-bit registers and 64 resident warps per SM; registers
// are allocated per warp in units of 256.
int warps_by_registers(int registers) {
  if (registers <= 0) return 64;
  int per_warp = ((registers * 32 + 255) / 256) * 256;
  return std::min(64, 65536 / per_warp);
}

class PtxasResourcesRule : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{
        "ptxas-resources", Severity::Info, "Registers, spills, local memory and occupancy from the ptxas report.",
        "When the NVRTC log of a compile with `--ptxas-options=-v` is passed in (AuditOptions::ptxas_log, "
        "`cusched audit --ptxas-log FILE`), the rule reports for each kernel its registers per thread, spill "
        "stores and loads, stack frame (local memory), static shared memory and barriers, and the occupancy that "
        "the registers allow on an H200 (64K registers and 64 warps per SM, registers allocated per warp in "
        "units of 256). Spills and local memory usually mean tiles or unrolling too large for the register file; "
        "low occupancy is fine for tensor-core kernels that pipeline with asynchronous copies."};
    return i;
  }

  void check_source(const SourceFacts& facts, const AuditOptions& options, Report& report) const override {
    if (options.ptxas_log.empty()) return;
    static const std::regex entry(R"((?:Compiling entry function|Function properties for)\s+'?([A-Za-z_$][\w$]*)'?)");
    static const std::regex frame(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
    static const std::regex used(R"(Used (\d+) registers)");
    static const std::regex smem(R"((\d+) bytes smem)");
    static const std::regex barriers(R"(used (\d+) barriers)");
    std::map<std::string, KernelResources> kernels;
    std::vector<std::string> order;
    std::string current;
    std::istringstream in(options.ptxas_log);
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
      if (std::regex_search(line, m, entry)) {
        current = m[1];
        if (!kernels.count(current)) order.push_back(current);
        kernels[current];
        continue;
      }
      if (current.empty()) continue;
      KernelResources& r = kernels[current];
      if (std::regex_search(line, m, frame)) {
        r.stack_frame = std::stol(m[1]);
        r.spill_stores = std::stol(m[2]);
        r.spill_loads = std::stol(m[3]);
      }
      if (std::regex_search(line, m, used)) r.registers = std::stoi(m[1]);
      if (std::regex_search(line, m, smem)) r.smem = std::stol(m[1]);
      if (std::regex_search(line, m, barriers)) r.barriers = std::stol(m[1]);
    }
    for (const auto& name : order) {
      const KernelResources& r = kernels[name];
      if (r.registers < 0) continue;
      SourceLocation where{facts.main_file, 0, 0};
      for (const auto& k : facts.kernels)
        if (k.name == name || k.ir_name == name) where = k.location;
      int warps = warps_by_registers(r.registers);
      report.add(info(), where,
                 "Kernel '" + name + "': " + std::to_string(r.registers) + " registers per thread, " +
                     std::to_string(r.spill_stores) + " bytes spill stores, " + std::to_string(r.spill_loads) +
                     " bytes spill loads, " + std::to_string(r.stack_frame) + " bytes stack frame (local memory), " +
                     std::to_string(r.smem) + " bytes static shared memory, " + std::to_string(r.barriers) +
                     " barriers; registers allow " + std::to_string(warps) + " of 64 warps per SM (" +
                     std::to_string(warps * 100 / 64) + "% occupancy).",
                 r.spill_stores || r.spill_loads || r.stack_frame
                     ? "Spills or local memory: use smaller register tiles, less unrolling, or __launch_bounds__."
                     : "");
    }
  }
};
}  // namespace
std::unique_ptr<Rule> make_ptxas_resources_rule() { return std::make_unique<PtxasResourcesRule>(); }
}  // namespace cusched::audit
