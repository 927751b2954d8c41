// The list of rules, in the order docs/audit.md documents them.
#include <stdexcept>

#include "audit/rule.h"
#include "audit/rules/rules.h"

namespace cusched::audit {

const std::vector<std::unique_ptr<Rule>>& all_rules() {
  static const std::vector<std::unique_ptr<Rule>> rules = [] {
    std::vector<std::unique_ptr<Rule>> r;
    r.push_back(make_device_host_api_rule());
    r.push_back(make_mutable_device_global_rule());
    r.push_back(make_device_timer_rule());
    r.push_back(make_thread_exit_rule());
    r.push_back(make_inline_asm_allowlist_rule());
    r.push_back(make_const_input_write_rule());
    r.push_back(make_divergent_barrier_rule());
    r.push_back(make_shared_memory_limit_rule());
    r.push_back(make_kernel_signature_rule());
    r.push_back(make_output_unwritten_rule());
    r.push_back(make_output_unwritten_on_path_rule());
    r.push_back(make_ptxas_resources_rule());
    r.push_back(make_clang_parse_rule());
    return r;
  }();
  return rules;
}

const Rule& rule_by_id(const std::string& id) {
  for (const auto& r : all_rules())
    if (r->info().id == id) return *r;
  throw std::logic_error("no audit rule with id " + id);
}

const std::vector<RuleInfo>& rules() {
  static const std::vector<RuleInfo> infos = [] {
    std::vector<RuleInfo> v;
    for (const auto& r : all_rules()) v.push_back(r->info());
    return v;
  }();
  return infos;
}

}  // namespace cusched::audit
