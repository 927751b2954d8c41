#include "runtime/precision_scan.h"

#include <cstdint>
#include <map>
#include <optional>

#include "runtime/ptx_text.h"

namespace cusched::runtime {

namespace {

// The reduced-precision type a PTX type suffix names, or none for any other.
std::optional<Precision> reduced_type(const std::string& t) {
  if (t == "tf32") return Precision::tf32;
  if (t == "bf16" || t == "bf16x2") return Precision::bf16;
  if (t == "f16" || t == "f16x2") return Precision::f16;
  if (t == "e4m3" || t == "e5m2" || t == "e4m3x2" || t == "e5m2x2" || t == "e2m1x2" || t == "e2m3x2" || t == "e3m2x2" ||
      t == "ue8m0x2" || t == "e4m3x4" || t == "e5m2x4")
    return Precision::fp8;
  return std::nullopt;
}

bool is_type_suffix(const std::string& t) {
  static const std::set<std::string> scalar{"f32", "f64", "s8",  "u8", "s16", "u16", "s32",
                                            "u32", "s64", "u64", "b8", "b16", "b32", "b64"};
  return scalar.count(t) > 0 || reduced_type(t).has_value();
}

// Arithmetic opcodes whose type suffix is the type they compute in.
bool is_arithmetic(const std::string& op) {
  static const std::set<std::string> ops{"add", "sub", "mul",  "fma",   "mad",     "min",  "max",
                                         "neg", "abs", "ex2",  "tanh",  "rcp",     "sqrt", "rsqrt",
                                         "div", "set", "setp", "testp", "copysign"};
  return ops.count(op) > 0;
}

// The reduced precision an instruction computes in, or none.
std::optional<Precision> instruction_precision(const PtxInstruction& ins) {
  std::vector<std::string> parts = split_any(ins.opcode, ".");
  if (parts.empty()) return std::nullopt;
  const std::string& op = parts[0];
  std::vector<std::string> types;
  for (size_t i = 1; i < parts.size(); ++i)
    if (is_type_suffix(parts[i])) types.push_back(parts[i]);
  if (op == "cvt") {
    // cvt.<modifiers>.<destination type>.<source type>: a conversion to a narrower float.
    if (types.size() < 2) return std::nullopt;
    std::optional<Precision> to = reduced_type(types[0]), from = reduced_type(types[1]);
    return !to || to == from ? std::nullopt : to;
  }
  if (op == "mma" || op == "wgmma" || op == "tcgen05") {
    // The operand (A, B) types: any reduced one names the precision.
    std::optional<Precision> narrowest;
    for (const auto& t : types)
      if (auto r = reduced_type(t)) narrowest = r;
    return narrowest;
  }
  if (is_arithmetic(op))
    for (const auto& t : types)
      if (auto r = reduced_type(t)) return r;
  return std::nullopt;
}

// A 32-bit immediate that keeps the sign, the exponent and the top of the mantissa
// and clears the low `k` mantissa bits, 8 <= k <= 20: how a float is rounded to
// bf16 (k = 16) or tf32 (k = 13) by hand.
int cleared_low_bits(const std::string& immediate) {
  int64_t v = 0;
  try {
    size_t used = 0;
    if (immediate.rfind("0x", 0) == 0 || immediate.rfind("0X", 0) == 0)
      v = std::stoll(immediate.substr(2), &used, 16), used += 2;
    else
      v = std::stoll(immediate, &used, 10);
    if (used != immediate.size()) return 0;
  } catch (const std::exception&) {
    return 0;
  }
  uint32_t m = static_cast<uint32_t>(v);
  for (int k = 8; k <= 20; ++k)
    if (m == (0xFFFFFFFFu << k)) return k;
  return 0;
}

}  // namespace

std::vector<ReducedPrecisionUse> reduced_precision_uses(const std::string& ptx) {
  std::vector<ReducedPrecisionUse> uses;
  std::map<std::string, bool> holds_float_bits;  // 32-bit registers moved from an f32 register
  struct Mask {
    int cleared = 0;
    std::string text;
    int line = 0;
  };
  std::map<std::string, Mask> masked;  // 32-bit registers that hold a value with low mantissa bits cleared
  auto report_mask = [&](const Mask& m) {
    uses.push_back({m.cleared >= 16 ? Precision::bf16 : Precision::tf32, m.text, m.line});
  };
  // One statement at a time: a line may hold several (inline asm), each ended by ';'.
  for (const auto& [line, number] : ptx_statements(ptx)) {
    // Registers belong to their function: what one function's %r27 held says nothing of
    // the next one's.
    if (line.find(".entry") != std::string::npos || line.find(".func") != std::string::npos) {
      holds_float_bits.clear();
      masked.clear();
    }
    auto ins = parse_ptx_instruction(line);
    if (!ins) continue;
    std::string text = trim_ptx(line);
    while (!text.empty() && (text[0] == '{' || text[0] == '}')) text = trim_ptx(text.substr(1));
    if (std::optional<Precision> p = instruction_precision(*ins)) {
      uses.push_back({*p, text, number});
      continue;
    }
    const std::string& op = ins->opcode;
    const auto& o = ins->operands;
    if ((op == "mov.b32" || op == "mov.u32") && o.size() == 2) {
      // A masked pattern moved into a float register is a float rounded by hand.
      if (o[0].rfind("%f", 0) == 0)
        if (auto it = masked.find(o[1]); it != masked.end()) report_mask(it->second);
      holds_float_bits[o[0]] = o[1].rfind("%f", 0) == 0;
      masked.erase(o[0]);
      continue;
    }
    if ((op == "and.b32" || op == "and.u32") && o.size() == 3) {
      for (int src : {1, 2}) {
        int k = cleared_low_bits(o[3 - src]);
        if (!k) continue;
        auto it = holds_float_bits.find(o[src]);
        if (it != holds_float_bits.end() && it->second)
          report_mask({k, text, number});
        else
          masked[o[0]] = {k, text, number};
        break;
      }
      holds_float_bits.erase(o[0]);
      continue;
    }
    if (!o.empty()) {
      holds_float_bits.erase(o[0]);
      masked.erase(o[0]);
    }
  }
  return uses;
}

std::set<Precision> admitted_precisions(Precision declared, const std::set<DType>& buffer_dtypes) {
  std::set<Precision> out;
  if (declared == Precision::tf32 || declared == Precision::x3tf32) out.insert(Precision::tf32);
  if (declared == Precision::bf16) out.insert({Precision::bf16, Precision::tf32});
  if (declared == Precision::f16) out.insert({Precision::f16, Precision::tf32});
  if (buffer_dtypes.count(DType::f16)) out.insert(Precision::f16);
  if (buffer_dtypes.count(DType::bf16)) out.insert(Precision::bf16);
  return out;
}

std::optional<ReducedPrecisionUse> undeclared_precision(const std::string& ptx, const std::set<Precision>& admitted) {
  for (auto& use : reduced_precision_uses(ptx))
    if (!admitted.count(use.precision)) return use;
  return std::nullopt;
}

Precision compiled_precision(const std::string& ptx) {
  static const std::map<Precision, int> rank{
      {Precision::fp8, 0}, {Precision::bf16, 1}, {Precision::f16, 2}, {Precision::tf32, 3}};
  Precision best = Precision::f32;
  int best_rank = 4;
  for (const auto& use : reduced_precision_uses(ptx)) {
    int r = rank.at(use.precision);
    if (r < best_rank) best = use.precision, best_rank = r;
  }
  return best;
}

}  // namespace cusched::runtime
