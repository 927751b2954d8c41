// The CUDA of the tensor-core statements: Mma (mma.sync through the device library),
// Wgmma (the source's wgmma function for its N and precision, and the fragment arrays it
// reads declared as words) and LdMatrix.
#include <sstream>

#include "codegen/cuda_kernel_writer.h"
#include "codegen/mma_layout.h"
#include "codegen/passes/simplify.h"
#include "codegen/wgmma_layout.h"
#include "dsl/error.h"

namespace cusched::cuda_emit {

// One tensor-core instruction for the warp: this lane's fragments, then mma.sync
// accumulating in place into four consecutive accumulators.
void KernelWriter::mma(const StmtNode& s) {
  const MmaLayout& l = mma_layout(s.mma_shape);
  const EmittedBuffer* acc = lookup(s.buffer);
  if (!acc || acc->scope != MemScope::Register || acc->dtype != DType::f32)
    fail("malformed-ir",
         "Kernel '" + kernel_.name + "' accumulates tensor-core tiles into '" + s.buffer +
             "', which is not an f32 register array in scope.",
         "Allocate the accumulators as f32 registers around the Mma.");
  if (static_cast<int>(s.operands.size()) != l.a_count + l.b_count)
    fail("malformed-ir",
         "Kernel '" + kernel_.name + "' has an Mma with " + std::to_string(s.operands.size()) + " operands; " +
             s.mma_shape + " takes " + std::to_string(l.a_count + l.b_count) + ".",
         "Give each lane its A fragment elements and then its B fragment elements.");
  auto values = [&](int first, int count) {
    std::vector<std::string> v;
    for (int i = first; i < first + count; ++i) v.push_back(expr_.text_as(s.operands[i], DType::f32));
    return v;
  };
  auto joined = [](const std::vector<std::string>& v) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i];
    return out;
  };
  const std::vector<std::string> a = values(0, l.a_count), b = values(l.a_count, l.b_count);
  const std::string d = "&" + expr_.element(s.buffer, s.index);
  open("");
  if (s.mma_shape == "m16n8k8") {
    line("const float mma_a[4] = {" + joined(a) + "};");
    line("const float mma_b[2] = {" + joined(b) + "};");
    line("cusched::mma_m16n8k8_" + precision_name(s.mma_precision) + "(" + d + ", mma_a, mma_b, " + d + ");");
  } else {
    const std::string pack = s.mma_precision == Precision::bf16 ? "cusched::pack_bf16x2" : "cusched::pack_f16x2";
    auto pairs = [&](const std::vector<std::string>& v) {
      std::vector<std::string> out;
      for (size_t i = 0; i + 1 < v.size(); i += 2) out.push_back(pack + "(" + v[i] + ", " + v[i + 1] + ")");
      return out;
    };
    line("const unsigned int mma_a[4] = {" + joined(pairs(a)) + "};");
    line("const unsigned int mma_b[2] = {" + joined(pairs(b)) + "};");
    line("cusched::mma_m16n8k16_" + precision_name(s.mma_precision) + "(" + d + ", mma_a, mma_b, " + d + ");");
  }
  close();
}

void collect_wgmma_fragments(const Stmt& s, std::set<std::string>& tf32_words,
                             std::map<std::string, DType>& half_words) {
  if (!s) return;
  if (s->kind == StmtKind::Wgmma)
    for (const auto& o : s->operands) {
      if (o->op != ExprOp::Load) continue;
      if (const DType t = wgmma_operand_type(s->mma_precision); t != DType::f32)
        half_words[o->name] = t;
      else
        tf32_words.insert(o->name);
    }
  for (const auto& c : s->body) collect_wgmma_fragments(c, tf32_words, half_words);
}

void collect_wgmma_widths(const Stmt& s, std::set<std::pair<int64_t, Precision>>& out) {
  if (!s) return;
  if (s->kind == StmtKind::Wgmma) out.insert({s->width, s->mma_precision});
  for (const auto& c : s->body) collect_wgmma_widths(c, out);
}

std::string wgmma_function_name(int64_t n, Precision p) {
  return "cusched_wgmma_m64n" + std::to_string(n) + "k" + std::to_string(wgmma_k(p)) + "_" + precision_name(p);
}

// wgmma.mma_async m64nNk8 with tf32 A, or m64nNk16 with bf16 or f16 A, in registers and
// B (K-major) through a descriptor, D = A x B + D on N/2 accumulators per thread (its
// operand list depends on N). The A registers are read-write operands of 32-bit words
// (the fragment arrays are declared as words, tf32_words and half_words), so that the
// instruction reads the fragment's own registers, not copies that the compiler may reuse
// while the instruction is in flight.
std::string wgmma_function(int64_t n, Precision p) {
  const int64_t acc = n / 2;
  const std::string type = precision_name(p == Precision::x3tf32 ? Precision::tf32 : p);
  const bool k16 = wgmma_k(p) == kWgmmaK16;
  std::ostringstream os;
  os << "__device__ __forceinline__ void " << wgmma_function_name(n, p)
     << "(float* d, unsigned int& a0, unsigned int& a1, unsigned int& a2, unsigned int& a3, unsigned long long b) {\n";
  os << "  asm volatile(\n      \"{\\n.reg .pred p;\\nsetp.ne.b32 p, 1, 0;\\n\"\n";
  os << "      \"wgmma.mma_async.sync.aligned.m64n" << n << "k" << wgmma_k(p) << ".f32." << type << "." << type << " {";
  for (int64_t i = 0; i < acc; ++i) os << (i ? ", " : "") << "%" << i;
  // The immediates: scale-d by the predicate, A and B not negated, and for 16-bit B not
  // transposed (K-major).
  os << "}, {%" << acc << ", %" << acc + 1 << ", %" << acc + 2 << ", %" << acc + 3 << "}, %" << acc + 4
     << (k16 ? ", p, 1, 1, 0;" : ", p, 1, 1;") << "\\n}\\n\"\n      : ";
  for (int64_t i = 0; i < acc; ++i) os << (i ? ", " : "") << "\"+f\"(d[" << i << "])";
  os << ", \"+r\"(a0), \"+r\"(a1), \"+r\"(a2), \"+r\"(a3)\n      : \"l\"(b));\n}\n";
  return os.str();
}

// One warpgroup MMA: this thread's A elements as tf32 bit patterns (k8) or as words of
// two bf16 or f16 elements (k16), the descriptor of B's shared tile, accumulating in place
// into N/2 consecutive accumulators through the source's function for this N and
// precision (wgmma_function).
void KernelWriter::wgmma(const StmtNode& s) {
  const EmittedBuffer* acc = lookup(s.buffer);
  const EmittedBuffer* b = lookup(s.source);
  const DType operand = wgmma_operand_type(s.mma_precision);
  const bool k16 = operand != DType::f32;
  if (!acc || acc->scope != MemScope::Register || acc->dtype != DType::f32 || !b || b->scope != MemScope::Shared ||
      b->dtype != operand || options_.reference_f64)
    fail("wgmma-unsupported",
         "Kernel '" + kernel_.name + "' has a wgmma into '" + s.buffer + "' reading '" + s.source +
             "', which are not an f32 register array and a shared array of " + dtype_name(operand) + " in scope" +
             (options_.reference_f64 ? " (the f64 reference has no warpgroup tensor cores)." : "."),
         "Allocate the accumulators as f32 registers and stage B in shared memory in the operand type; emit "
         "tensor-core kernels in their own precision.");
  if (s.operands.size() != static_cast<size_t>(wgmma_a_elements(s.mma_precision)) ||
      s.mma_precision == Precision::x3tf32)
    fail("malformed-ir",
         "Kernel '" + kernel_.name + "' has a wgmma with " + std::to_string(s.operands.size()) + " A elements in " +
             precision_name(s.mma_precision) + ".",
         "Give each thread its four tf32 or eight bf16 or f16 A elements.");
  std::string args = "&" + expr_.element(s.buffer, s.index);
  for (size_t i = 0; i < s.operands.size(); ++i) {
    const Expr& o = s.operands[i];
    const EmittedBuffer* r = o->op == ExprOp::Load && o->args.size() == 1 ? lookup(o->name) : nullptr;
    int64_t at = 0;
    const bool word_pair = k16 && r && half_words_.count(o->name) && is_const_int(simplify(o->args[0]), &at) &&
                           at % 2 == static_cast<int64_t>(i % 2);
    if (!r || r->scope != MemScope::Register || (!k16 && r->dtype != DType::f32) || (k16 && !word_pair))
      fail("malformed-ir",
           "Kernel '" + kernel_.name + "' gives a wgmma the A element " + to_string(o) +
               ", which is not an element of its register fragment" +
               (k16 ? " at a constant index of the right half of a word." : "."),
           "Load the A fragment into registers before the wgmma and pass its elements (k16: elements 2m and 2m + 1 "
           "in operands 2m and 2m + 1).");
    if (!k16) {
      args += ", " + expr_.element(o->name, o->args[0]);
    } else if (i % 2 == 0) {
      int64_t next = 0;
      const Expr& hi = s.operands[i + 1];
      if (hi->op != ExprOp::Load || hi->name != o->name || !is_const_int(simplify(hi->args[0]), &next) ||
          next != at + 1)
        fail("malformed-ir",
             "Kernel '" + kernel_.name + "' gives a wgmma A elements " + to_string(o) + " and " + to_string(hi) +
                 ", which are not one word of its fragment.",
             "Pass elements 2m and 2m + 1 of the fragment as operands 2m and 2m + 1.");
      args += ", " + o->name + "[" + std::to_string(at / 2) + "]";
    }
  }
  args += ", cusched::wgmma_descriptor_sw128(&" + expr_.element(s.source, s.value) + ")";
  line(wgmma_function_name(s.width, s.mma_precision) + "(" + args + ");");
}

// One warp-wide ldmatrix: the lane's row address, then the received words unpacked
// into the fragment's elements (cusched_mma.cuh).
void KernelWriter::ldmatrix(const StmtNode& s) {
  const EmittedBuffer* frag = lookup(s.buffer);
  const EmittedBuffer* src = lookup(s.source);
  if (!frag || frag->scope != MemScope::Register || !src || src->scope != MemScope::Shared || frag->dtype != src->dtype)
    fail("malformed-ir",
         "Kernel '" + kernel_.name + "' loads ldmatrix fragment '" + s.buffer + "' from '" + s.source +
             "', which are not a register array and a shared array of one element type in scope.",
         "Allocate the fragment in registers with the shared source's element type.");
  const int bytes = dtype_bytes(src->dtype);
  if (options_.reference_f64 || (bytes != 2 && bytes != 4) || (s.transpose && bytes != 2) ||
      (s.matrices != 1 && s.matrices != 2 && s.matrices != 4))
    fail("ldmatrix-unsupported",
         "Kernel '" + kernel_.name + "' loads '" + s.buffer + "' with an ldmatrix of " + std::to_string(s.matrices) +
             " matrices of " + dtype_name(src->dtype) + (s.transpose ? " elements, transposed," : " elements") +
             (options_.reference_f64 ? " in the f64 reference, whose shared arrays hold doubles."
                                     : ", which the instruction does not have."),
         "Load 1, 2 or 4 matrices of 16-bit or 32-bit elements (transposed only 16-bit), and emit tensor-core kernels "
         "in their own precision.");
  const std::string n = std::to_string(s.matrices);
  open("");
  line("unsigned int ldm[" + n + "];");
  line(std::string("cusched::ldmatrix_x") + n + (s.transpose ? "_trans" : "") + "(ldm, &" +
       expr_.element(s.source, s.value) + ");");
  const int per_word = 4 / bytes;
  for (int j = 0; j < s.matrices; ++j)
    for (int e = 0; e < per_word; ++e) {
      const std::string target = expr_.element(s.buffer, s.index + make_int(j * per_word + e));
      const std::string word = "ldm[" + std::to_string(j) + "]";
      if (bytes == 4)
        line(target + " = " + (frag->f32_words ? word : "__uint_as_float(" + word + ")") + ";");
      else
        line(target + " = " + (src->dtype == DType::bf16 ? "__ushort_as_bfloat16" : "__ushort_as_half") +
             "(static_cast<unsigned short>(" + word + (e ? " >> 16" : " & 0xffffu") + "));");
    }
  close();
}

}  // namespace cusched::cuda_emit
