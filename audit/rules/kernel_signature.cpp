// kernel-signature: the kernel's parameters against the problem's kernel contract.
#include <algorithm>
#include <cctype>

#include "audit/rules/rules.h"

namespace cusched::audit {
namespace {

// "const float *__restrict" and "const float* __restrict__" compare equal, and so do
// "const __grid_constant__ T" and "const T" (the attribute is not part of the type).
std::string normalized_type(const std::string& type) {
  std::string t = type;
  for (const char* q : {"__grid_constant__", "__restrict__", "__restrict", "restrict"}) {
    for (size_t p = t.find(q); p != std::string::npos; p = t.find(q)) t.erase(p, std::string(q).size());
  }
  t.erase(std::remove_if(t.begin(), t.end(), [](unsigned char c) { return std::isspace(c); }), t.end());
  return t;
}

bool starts_const(const std::string& normalized) { return normalized.rfind("const", 0) == 0; }

class KernelSignatureRule : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{
        "kernel-signature", Severity::Error, "The kernel's signature does not match the problem's kernel contract.",
        "When a kernel contract is given (AuditOptions::contract, `cusched audit --contract FILE.json`), the "
        "source must define an `extern \"C\" __global__` kernel of that name (so the runtime finds it by name) "
        "whose parameters match the contract one by one: the same count, names, order and types, including "
        "const on inputs. `__restrict__`, `__grid_constant__` and spacing are ignored when comparing types. A mismatch "
        "means the "
        "runtime would bind buffers to the wrong parameters, or that an input could be written."};
    return i;
  }

  void check_source(const SourceFacts& facts, const AuditOptions& options, Report& report) const override {
    for (const KernelContract* c : contracts(options)) check_kernel(facts, *c, report);
  }

 private:
  void check_kernel(const SourceFacts& facts, const KernelContract& c, Report& report) const {
    const KernelFacts* k = facts.find_kernel(c.kernel_name);
    if (!k) {
      std::string found;
      for (const auto& kk : facts.kernels) found += (found.empty() ? "" : ", ") + kk.name;
      report.add(info(), {facts.main_file, 1, 1},
                 "The source defines no __global__ kernel named '" + c.kernel_name +
                     "' (it defines: " + (found.empty() ? std::string("none") : found) + ").",
                 "Name the kernel '" + c.kernel_name + "' as the problem's contract says.");
      return;
    }
    if (!k->extern_c)
      report.add(info(), k->location,
                 "Kernel '" + k->name +
                     "' is not extern \"C\", so its symbol name is mangled and the runtime "
                     "cannot find it by name.",
                 "Declare it as extern \"C\" __global__ void " + k->name + "(...).");
    if (k->params.size() != c.params.size()) {
      report.add(info(), k->location,
                 "Kernel '" + k->name + "' has " + std::to_string(k->params.size()) + " parameters; the contract has " +
                     std::to_string(c.params.size()) + ".",
                 "Declare the parameters as the contract lists them: " + contract_text(c) + ".");
      return;
    }
    for (size_t i = 0; i < c.params.size(); ++i) {
      const auto& want = c.params[i];
      const auto& have = k->params[i];
      if (have.name != want.name) {
        bool elsewhere =
            std::any_of(k->params.begin(), k->params.end(), [&](const ParamFacts& p) { return p.name == want.name; });
        report.add(info(), have.location,
                   "Parameter " + std::to_string(i + 1) + " of '" + k->name + "' is named '" + have.name +
                       "'; the contract expects '" + want.name + "'" +
                       (elsewhere ? " here (the parameters are in a different order)." : "."),
                   "Declare the parameters in the contract's order: " + contract_text(c) + ".");
      }
      if (want.type.empty()) continue;
      std::string h = normalized_type(have.type), w = normalized_type(want.type);
      if (h == w) continue;
      if (starts_const(w) && !starts_const(h) && w.substr(5) == h)
        report.add(info(), have.location,
                   "Parameter '" + have.name + "' is declared '" + have.type +
                       "' but the contract makes it a const "
                       "input ('" +
                       want.type + "').",
                   "Declare it as '" + want.type + "' so the kernel cannot write its input.");
      else
        report.add(
            info(), have.location,
            "Parameter '" + have.name + "' has type '" + have.type + "'; the contract expects '" + want.type + "'.",
            "Declare it as '" + want.type + "'.");
    }
  }

  static std::string contract_text(const KernelContract& c) {
    std::string s = "(";
    for (size_t i = 0; i < c.params.size(); ++i) s += (i ? ", " : "") + c.params[i].type + " " + c.params[i].name;
    return s + ")";
  }
};
}  // namespace
std::unique_ptr<Rule> make_kernel_signature_rule() { return std::make_unique<KernelSignatureRule>(); }
}  // namespace cusched::audit
