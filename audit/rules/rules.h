#pragma once
// Factories of the audit rules, one per file in audit/rules/.
#include <memory>

#include "audit/rule.h"

namespace cusched::audit {

std::unique_ptr<Rule> make_clang_parse_rule();
std::unique_ptr<Rule> make_device_host_api_rule();
std::unique_ptr<Rule> make_mutable_device_global_rule();
std::unique_ptr<Rule> make_device_timer_rule();
std::unique_ptr<Rule> make_thread_exit_rule();
std::unique_ptr<Rule> make_inline_asm_allowlist_rule();
std::unique_ptr<Rule> make_const_input_write_rule();
std::unique_ptr<Rule> make_divergent_barrier_rule();
std::unique_ptr<Rule> make_shared_memory_limit_rule();
std::unique_ptr<Rule> make_kernel_signature_rule();
std::unique_ptr<Rule> make_output_unwritten_rule();
std::unique_ptr<Rule> make_output_unwritten_on_path_rule();
std::unique_ptr<Rule> make_ptxas_resources_rule();

}  // namespace cusched::audit
