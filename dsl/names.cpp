#include "dsl/names.h"

#include <set>

#include "dsl/input_limits.h"

namespace cusched {

namespace {

// C++20 keywords and alternative tokens, CUDA keywords and built-ins, and the device
// functions and types that generated kernels use by name.
const std::set<std::string>& reserved_words() {
  static const std::set<std::string> words = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch", "char",
      "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr", "constinit",
      "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete", "do", "double",
      "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if",
      "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or",
      "or_eq", "private", "protected", "public", "register", "reinterpret_cast", "requires", "return", "short",
      "signed", "sizeof", "static", "static_assert", "static_cast", "struct", "switch", "template", "this",
      "thread_local", "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual",
      "void", "volatile", "wchar_t", "while", "xor", "xor_eq", "final", "override", "main", "NULL",
      // CUDA built-in variables, types and qualifiers
      "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "clusterIdx", "clusterDim", "dim3", "uint3", "half",
      "half2", "float2", "float4", "int2", "int4", "uint", "uint2", "uint4", "longlong", "size_t", "int8_t", "int16_t",
      "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "nv_bfloat16", "nv_bfloat162",
      "cudaStream_t", "std", "cuda", "cooperative_groups", "cg", "nvcuda", "wmma",
      // device functions the generated code calls
      "max", "min", "abs", "exp", "expf", "exp2f", "log", "logf", "log2f", "sqrt", "sqrtf", "rsqrtf", "tanh", "tanhf",
      "erf", "erff", "fabs", "fabsf", "fmaxf", "fminf", "fmax", "fmin", "fma", "fmaf", "pow", "powf", "floor", "floorf",
      "ceil", "ceilf", "rint", "rintf", "log1p", "log1pf", "expm1", "expm1f", "isnan", "isinf", "isfinite", "printf",
      "assert", "memcpy", "memset", "sin", "sinf", "cos", "cosf", "INFINITY", "NAN"};
  return words;
}

bool is_identifier(const std::string& s) {
  if (s.empty()) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (!alpha(s[0])) return false;
  for (char c : s)
    if (!alpha(c) && !digit(c)) return false;
  return true;
}

// Kernel functions are named k<index>_<stage>.
bool looks_like_kernel_name(const std::string& s) {
  size_t i = 1;
  if (s.size() < 3 || s[0] != 'k') return false;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  return i > 1 && i < s.size() && s[i] == '_';
}

Error bad_name(const std::string& name, const std::string& role, const std::string& why, const std::string& hint) {
  return Error{-1,
               "",
               "bad-name",
               "The name '" + valid_utf8(name.substr(0, 80)) + (name.size() > 80 ? "..." : "") + "' for " + role + " " +
                   why + ".",
               hint,
               ""};
}

}  // namespace

std::optional<Error> name_error(const std::string& name, const std::string& role) {
  const std::string fix =
      "Choose a short name of letters, digits and underscores that starts with a letter, e.g. 'io' or 'A_shared'.";
  if (name.size() > kMaxNameLength)
    return bad_name(name, role, "is longer than " + std::to_string(kMaxNameLength) + " characters", fix);
  if (!is_identifier(name))
    return bad_name(name, role, "is not an identifier (letters, digits and underscores, not starting with a digit)",
                    fix);
  if (reserved_words().count(name))
    return bad_name(name, role, "is a C++ or CUDA keyword, built-in or device function that the generated source uses",
                    fix);
  if (name.rfind("cusched", 0) == 0 || name.rfind("__", 0) == 0 ||
      (name[0] == '_' && name.size() > 1 && name[1] >= 'A' && name[1] <= 'Z'))
    return bad_name(name, role, "is in the namespace of generated and reserved names (cusched..., __..., _X...)", fix);
  if (looks_like_kernel_name(name))
    return bad_name(name, role, "has the form k<number>_... that generated kernel functions have", fix);
  return std::nullopt;
}

void require_usable_name(const std::string& name, const std::string& role) {
  if (auto e = name_error(name, role)) throw UserError(*e);
}

}  // namespace cusched
