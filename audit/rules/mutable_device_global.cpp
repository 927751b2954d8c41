// mutable-device-global: __device__ / __managed__ variables a kernel can change between launches.
#include "audit/rules/rules.h"

namespace cusched::audit {
namespace {
class MutableDeviceGlobalRule : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{
        "mutable-device-global", Severity::Error,
        "A non-const __device__ or __managed__ variable keeps state across launches.",
        "Global device variables outlive a launch. A kernel that writes one can remember results, counters or "
        "flags from an earlier call (for instance from the verification run) and return them later without "
        "computing, and timing runs then measure something else. Any `__device__` or `__managed__` variable at "
        "namespace or static scope whose type is not const is an error, and so is a function-scope `static` "
        "variable in a `__device__` or `__global__` function (it lives in global memory just the same). `__constant__` "
        "data, `__shared__` arrays "
        "and `const __device__` tables are fine. Scratch state belongs in a buffer of the launch plan, which the "
        "runtime allocates (and zeroes if asked) for every run."};
    return i;
  }

  void check_source(const SourceFacts& facts, const AuditOptions&, Report& report) const override {
    for (const auto& g : facts.device_globals) {
      if (g.is_const) continue;
      report.add(info(), g.location,
                 "'" + g.name + "' is a mutable " + g.memory_space + " variable of type '" + g.type +
                     "'; it keeps its value from one launch to the next.",
                 "Make it const or __constant__ if it is a table, move it into __shared__ memory if it is "
                 "per-block scratch, or add a scratch buffer to the launch plan and pass it as a parameter.");
    }
    for (const auto& where : facts.managed_macro_uses)
      report.add(info(), where,
                 "A __managed__ variable is declared here; managed memory is shared with the host and keeps its "
                 "value from one launch to the next.",
                 "Add a buffer to the launch plan and pass it as a parameter instead of using __managed__ memory.");
  }
};
}  // namespace
std::unique_ptr<Rule> make_mutable_device_global_rule() { return std::make_unique<MutableDeviceGlobalRule>(); }
}  // namespace cusched::audit
