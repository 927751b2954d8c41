// clang-parse: code Clang 19 rejects. The audit driver emits these findings
// from Clang's diagnostics; this class carries the rule's identity and docs.
#include "audit/rules/rules.h"

namespace cusched::audit {
namespace {
class ClangParseRule : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{
        "clang-parse", Severity::Warning, "Clang 19 could not parse the kernel, so the audit is incomplete.",
        "The audit parses the source with Clang 19 for sm_90a against the CUDA 13 headers, while the kernel "
        "itself is compiled by NVRTC. Where Clang rejects code that NVRTC may accept (a Clang/NVRTC difference, "
        "not necessarily a fault of the kernel), each Clang error becomes a warning at its position instead of "
        "being dropped; the device-IR rules (barriers, writes, shared memory, timers in helpers) are then skipped "
        "because no IR exists. Rewrite the construct in standard CUDA C++ to get a full audit."};
    return i;
  }
};
}  // namespace
std::unique_ptr<Rule> make_clang_parse_rule() { return std::make_unique<ClangParseRule>(); }
}  // namespace cusched::audit
