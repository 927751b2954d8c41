#include "runtime/ptxas_report.h"

#include <regex>
#include <sstream>

namespace cusched::runtime {

nlohmann::json KernelResources::to_json() const {
  return {{"kernel", kernel},
          {"arch", arch},
          {"registers", registers},
          {"barriers", barriers},
          {"smem_bytes", smem_bytes},
          {"stack_bytes", stack_bytes},
          {"spill_store_bytes", spill_store_bytes},
          {"spill_load_bytes", spill_load_bytes}};
}

namespace {

// The number before `unit` in `line` ("256 bytes stack frame" -> 256), if present.
bool number_before(const std::string& line, const std::regex& pattern, int64_t& out) {
  std::smatch m;
  if (!std::regex_search(line, m, pattern)) return false;
  out = std::stoll(m[1].str());
  return true;
}

}  // namespace

std::vector<KernelResources> parse_ptxas_report(const std::string& log) {
  static const std::regex entry(R"(Compiling entry function '([^']+)' for '([^']+)')");
  static const std::regex properties(R"(Function properties for (\S+))");
  static const std::regex stack(R"((\d+) bytes stack frame)");
  static const std::regex spill_stores(R"((\d+) bytes spill stores)");
  static const std::regex spill_loads(R"((\d+) bytes spill loads)");
  static const std::regex registers(R"(Used (\d+) registers)");
  static const std::regex barriers(R"(used (\d+) barriers)");
  static const std::regex smem(R"((\d+) bytes smem)");

  std::vector<KernelResources> out;
  std::string properties_of;  // the function whose "Function properties" block is being read
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, entry)) {
      out.push_back({});
      out.back().kernel = m[1].str();
      out.back().arch = m[2].str();
      properties_of.clear();
      continue;
    }
    if (std::regex_search(line, m, properties)) {
      properties_of = m[1].str();
      continue;
    }
    if (out.empty()) continue;
    KernelResources& k = out.back();
    int64_t v = 0;
    // Stack and spill lines follow a properties block, which may be a callee's.
    if (properties_of == k.kernel) {
      if (number_before(line, stack, v)) k.stack_bytes = v;
      if (number_before(line, spill_stores, v)) k.spill_store_bytes = v;
      if (number_before(line, spill_loads, v)) k.spill_load_bytes = v;
    }
    if (number_before(line, registers, v)) k.registers = static_cast<int>(v);
    if (number_before(line, barriers, v)) k.barriers = static_cast<int>(v);
    if (number_before(line, smem, v)) k.smem_bytes = v;
  }
  return out;
}

}  // namespace cusched::runtime
