// inline-asm-allowlist: inline asm may use only the instructions the device library needs.
#include <array>
#include <string_view>

#include "audit/asm_text.h"
#include "audit/rules/rules.h"

namespace cusched::audit {
namespace {

// Opcode prefixes (matched at a '.' boundary or as the whole opcode).
constexpr std::array<std::string_view, 28> kAllowed = {"mma",
                                                       "wgmma",
                                                       "ldmatrix",
                                                       "stmatrix",
                                                       "movmatrix",
                                                       "cp.async",
                                                       "cp.reduce.async.bulk",
                                                       "mbarrier",
                                                       "fence",
                                                       "membar",
                                                       "shfl",
                                                       "bar.sync",
                                                       "bar.arrive",
                                                       "barrier.sync",
                                                       "barrier.arrive",
                                                       "barrier.cta.sync",
                                                       "barrier.cta.arrive",
                                                       "cvt",
                                                       "cvta",
                                                       "mov",
                                                       "ld",
                                                       "st.shared",
                                                       "setp",
                                                       "selp",
                                                       "bra",
                                                       "elect.sync",
                                                       "prmt",
                                                       "tensormap.cp_fenceproxy"};

bool allowed(const std::string& opcode) {
  for (auto a : kAllowed) {
    if (opcode.compare(0, a.size(), a) != 0) continue;
    if (opcode.size() == a.size() || opcode[a.size()] == '.') return true;
  }
  return false;
}

std::string allowed_list() {
  std::string s;
  for (auto a : kAllowed) s += (s.empty() ? "" : ", ") + std::string(a);
  return s;
}

class InlineAsmAllowlistRule : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{
        "inline-asm-allowlist", Severity::Error, "Inline asm uses an instruction outside the allow-list.",
        "Inline PTX is opaque to the other rules, so it may contain only the instructions the device library "
        "needs for fast kernels: tensor-core math (mma, wgmma, ldmatrix, stmatrix, movmatrix), asynchronous and "
        "bulk copies (cp.async.*, cp.async.bulk.*, cp.reduce.async.bulk.*, tensormap.cp_fenceproxy), mbarrier.*, "
        "fences (fence.*, membar.*), warp shuffles (shfl.*), named barriers (bar.sync, bar.arrive, barrier.*), "
        "and the glue these need (cvt, cvta, mov, ld, st.shared, setp, selp, bra, prmt, elect.sync). Directives "
        "such as `.reg` and labels and predicates are ignored. Anything else (global stores, atomics, special "
        "registers through other opcodes, exit, trap, calls) must be written in CUDA C++ where the audit can see "
        "it. Clock reads through `mov` are reported by device-timer."};
    return i;
  }

  void check_source(const SourceFacts& facts, const AuditOptions&, Report& report) const override {
    for (const auto& a : facts.asm_statements) {
      for (const auto& ins : asm_instructions(a.text)) {
        std::string op = asm_opcode(ins);
        if (allowed(op)) continue;
        report.add(info(), a.location, "Inline asm uses '" + op + "', which is not on the allow-list.",
                   "Write this step in CUDA C++, or use an allowed instruction (" + allowed_list() + ").");
      }
    }
  }
};
}  // namespace
std::unique_ptr<Rule> make_inline_asm_allowlist_rule() { return std::make_unique<InlineAsmAllowlistRule>(); }
}  // namespace cusched::audit
