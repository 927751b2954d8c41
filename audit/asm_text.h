#pragma once
// Reading PTX inline-asm templates: the instructions they contain and what
// those instructions do.
#include <string>
#include <vector>

namespace cusched::audit {

// The instructions of an asm template, without comments, labels, braces,
// predicates and directives (".reg ..."): e.g. "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,...}".
std::vector<std::string> asm_instructions(const std::string& asm_template);

// The opcode of one instruction: "cp.async.ca.shared.global".
std::string asm_opcode(const std::string& instruction);

bool asm_reads_timer(const std::string& asm_template);    // %clock, %clock64, %globaltimer
bool asm_ends_thread(const std::string& asm_template);    // trap, exit, brkpt
bool asm_is_barrier(const std::string& asm_template);     // block-wide: bar.sync id (no count), bar.red
bool asm_writes_global(const std::string& asm_template);  // st.global/st.generic, atom, red, bulk copies to global

}  // namespace cusched::audit
