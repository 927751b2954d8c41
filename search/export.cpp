#include "search/export.h"

#include <cctype>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "dsl/error.h"
#include "dsl/input_limits.h"
#include "runtime/tensor_map.h"
#include "search/store.h"

namespace cusched::search {

namespace {

std::string identifier(const std::string& name) {
  std::string s;
  for (char c : name) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "b_" + s;
  return s;
}

// Text that stays inside a comment: no line breaks or other control characters
// (which would end a // comment and turn the rest into code) and no "*/".
std::string comment_text(const std::string& text) {
  std::string s = valid_utf8(text);
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  for (size_t p = s.find("*/"); p != std::string::npos; p = s.find("*/", p)) s.replace(p, 2, "* /");
  while (!s.empty() && s.back() == '\\') s.pop_back();  // a trailing backslash would continue a // comment
  return s;
}

// A Python string literal holding `text`.
std::string python_string(const std::string& text) {
  std::string out = "\"";
  for (char c : comment_text(text)) {
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out + "\"";
}

const char* torch_scalar_type(DType t) {
  switch (t) {
    case DType::f32:
      return "torch::kFloat";
    case DType::f16:
      return "torch::kHalf";
    case DType::bf16:
      return "torch::kBFloat16";
    case DType::i32:
      return "torch::kInt";
    case DType::i64:
      return "torch::kLong";
    case DType::boolean:
      return "torch::kBool";
    case DType::f64:
      return "torch::kDouble";
  }
  return "torch::kFloat";
}

const char* torch_dtype(DType t) {
  switch (t) {
    case DType::f32:
      return "torch.float32";
    case DType::f16:
      return "torch.float16";
    case DType::bf16:
      return "torch.bfloat16";
    case DType::i32:
      return "torch.int32";
    case DType::i64:
      return "torch.int64";
    case DType::boolean:
      return "torch.bool";
    case DType::f64:
      return "torch.float64";
  }
  return "torch.float32";
}

std::string shape_list(const std::vector<int64_t>& shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return shape.size() == 1 ? s + "," : s;
}

std::string torch_random(const BufferSpec& b) {
  std::string shape = "(" + shape_list(b.shape) + ")";
  if (b.dtype == DType::boolean) return "torch.rand(" + shape + ", device=\"cuda\") > 0.5";
  if (!dtype_is_float(b.dtype))
    return "torch.randint(0, 10, " + shape + ", device=\"cuda\", dtype=" + torch_dtype(b.dtype) + ")";
  return "torch.randn(" + shape + ", device=\"cuda\", dtype=" + torch_dtype(b.dtype) + ")";
}

void append_inlined(const KernelBundle& bundle, const std::string& text, std::set<std::string>& done,
                    std::ostringstream& out, int depth) {
  static const std::regex include_line(R"(^\s*#\s*include\s*["<]([^">]+)[">].*$)");
  static const std::regex pragma_once(R"(^\s*#\s*pragma\s+once\s*$)");
  std::istringstream in(text);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (depth > 0 && std::regex_match(line, pragma_once)) continue;
    if (std::regex_match(line, m, include_line)) {
      auto it = bundle.headers.find(m[1]);
      if (it != bundle.headers.end()) {
        if (done.insert(it->first).second) {
          out << "// ---- begin " << it->first << " ----\n";
          append_inlined(bundle, it->second, done, out, depth + 1);
          out << "// ---- end " << it->first << " ----\n";
        } else {
          out << "// " << it->first << " is inlined above\n";
        }
        continue;
      }
    }
    out << line << "\n";
  }
}

// The launcher's function that encodes a tiled tensor map through the driver's
// cuTensorMapEncodeTiled, found at run time (so the program needs no -lcuda), with the
// settings the runtime uses (runtime/tensor_map.cpp): zeros outside the tensor, element
// strides 1, 128-byte L2 promotion.
const char* kEncodeTensorMap = R"(// Encodes a tiled tensor map (dimensions innermost first) as cusched's runtime does.
static cudaError_t cusched_encode_tensor_map(CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank,
                                             void* address, const cuuint64_t* dims, const cuuint64_t* strides,
                                             const cuuint32_t* box, bool swizzle_128) {
  using Encode = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                              const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                              CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
  static Encode encode = nullptr;
  if (!encode) {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found) !=
            cudaSuccess || found != cudaDriverEntryPointSuccess || !fn)
      return cudaErrorNotSupported;
    encode = reinterpret_cast<Encode>(fn);
  }
  const cuuint32_t element_strides[5] = {1, 1, 1, 1, 1};
  return encode(map, type, rank, address, dims, strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                swizzle_128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE,
                CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS
             ? cudaSuccess
             : cudaErrorInvalidValue;
}

)";

// The launcher's lines that encode the tensor map `g` (swizzled or not) of the buffer at the
// C pointer `ptr` into the 64-byte aligned local `name`, returning the error after freeing
// `cleanup`.
std::string encode_lines(const runtime::TensorMapGeometry& g, bool swizzle_128, const std::string& name,
                         const std::string& ptr, const std::string& cleanup) {
  std::string dims, strides = g.rank > 1 ? "" : "0", box;
  for (cuuint32_t i = 0; i < g.rank; ++i) {
    dims += (i ? ", " : "") + std::to_string(g.dims[i]);
    box += (i ? ", " : "") + std::to_string(g.box[i]);
    if (i + 1 < g.rank) strides += (i ? ", " : "") + std::to_string(g.strides[i]);
  }
  std::ostringstream o;
  o << "  alignas(64) CUtensorMap " << name << ";\n";
  o << "  {\n    const cuuint64_t dims[] = {" << dims << "}, strides[] = {" << strides << "};\n";
  o << "    const cuuint32_t box[] = {" << box << "};\n";
  o << "    const cudaError_t encoded = cusched_encode_tensor_map(&" << name << ", " << g.type_name << ", " << g.rank
    << ", (void*)" << ptr << ", dims, strides, box, " << (swizzle_128 ? "true" : "false") << ");\n";
  o << "    if (encoded != cudaSuccess) {\n" << cleanup << "      return encoded;\n    }\n  }\n";
  return o.str();
}

}  // namespace

std::string inline_headers(const KernelBundle& bundle) {
  std::set<std::string> done;
  std::ostringstream out;
  append_inlined(bundle, bundle.source, done, out, 0);
  return out.str();
}

std::string export_kernel(const KernelBundle& bundle, const ExportOptions& options) {
  if (bundle.launches.empty())
    fail("export-no-launches", "The kernel bundle has no launches, so there is nothing to export.",
         "Export a candidate that was lowered successfully.");
  std::map<std::string, std::string> var;  // buffer name -> C identifier
  std::vector<const BufferSpec*> params, scratch;
  for (const auto& b : bundle.buffers) {
    var[b.name] = identifier(b.name);
    (b.role == BufferRole::Scratch ? scratch : params).push_back(&b);
  }
  // Each launch's tensor maps as the runtime lays them out (runtime::tensor_map_geometry),
  // by the launcher's local name for them.
  auto map_var = [&](const LaunchSpec& l, const TensorMapSpec& m) { return identifier(l.kernel + "_" + m.name); };
  std::map<std::string, runtime::TensorMapGeometry> geometry;
  for (const auto& l : bundle.launches) {
    for (const auto& a : l.args)
      if (!bundle.find_buffer(a))
        fail("export-unknown-buffer",
             "Launch of '" + l.kernel + "' passes buffer '" + a + "', which the bundle does not declare.",
             "Regenerate the bundle; every launch argument must name one of its buffers.");
    for (const auto& m : l.tensor_maps) {
      const BufferSpec* b = bundle.find_buffer(m.buffer);
      if (!b)
        fail("export-tensor-maps",
             "Launch of '" + l.kernel + "' reads tensor map '" + m.name + "' of buffer '" + m.buffer +
                 "', which the bundle does not declare.",
             "Regenerate the bundle; every tensor map must name one of its buffers.");
      try {
        geometry[map_var(l, m)] = runtime::tensor_map_geometry(m, *b);
      } catch (const UserError& e) {
        fail("export-tensor-maps", "Launch of '" + l.kernel + "' cannot be exported: " + e.error().message,
             e.error().hint);
      }
    }
  }
  const bool tensor_maps = !geometry.empty();

  std::ostringstream o;
  const bool bench_size = options.size.empty() || options.size == "bench";
  o << "// " << comment_text(options.title.empty() ? "cusched kernel for " + bundle.problem : options.title) << "\n";
  o << "// Generated by `cusched export`. Precision: " << comment_text(precision_name(bundle.precision))
    << (bundle.schedule_hash.empty() ? "" : ". Schedule hash: " + comment_text(bundle.schedule_hash)) << ".\n";
  if (!bench_size)
    o << "// Lowered at the " << comment_text(options.size)
      << " size, not the benchmark size: its shapes are fixed at the " << comment_text(options.size)
      << " size's\n// (a search on the CPU verifies there). Lower it at --size bench for the benchmark shapes.\n";
  o << "// Host entry point: cusched_launch(";
  for (const auto* b : params) o << var[b->name] << ", ";
  o << "stream).\n";
  o << "#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n";
  if (tensor_maps) o << "#include <cuda.h>  // CUtensorMap; the encoder comes from the driver at run time\n";
  o << "\n";
  o << "// ======== kernel source ========\n" << inline_headers(bundle) << "\n";

  o << "// ======== host launcher ========\n";
  o << "// Runs the launches in order on `stream`. Pointers are device pointers to\n// row-major buffers:\n";
  for (const auto* b : params)
    o << "//   " << var[b->name] << ": " << (b->role == BufferRole::Input ? "input " : "output ")
      << dtype_name(b->dtype) << " " << nlohmann::json(b->shape).dump() << "\n";
  o << "// Returns cudaSuccess, launch errors surfacing through cudaGetLastError() or the next\n"
       "// synchronisation"
    << (tensor_maps ? ", or, launching nothing, the error of a tensor map the driver cannot encode.\n" : ".\n");
  if (tensor_maps) o << kEncodeTensorMap;
  o << "cudaError_t cusched_launch(";
  for (const auto* b : params)
    o << (b->role == BufferRole::Input ? "const " : "") << dtype_c_name(b->dtype) << "* " << var[b->name] << ", ";
  o << "cudaStream_t stream) {\n";
  for (const auto* b : scratch) {
    o << "  " << dtype_c_name(b->dtype) << "* " << var[b->name] << " = nullptr;\n";
    o << "  cudaMallocAsync(reinterpret_cast<void**>(&" << var[b->name] << "), " << b->bytes() << ", stream);\n";
  }
  for (const auto& b : bundle.buffers)
    if (b.zero_before_launch) o << "  cudaMemsetAsync(" << var[b.name] << ", 0, " << b.bytes() << ", stream);\n";
  // Every launch's tensor maps, encoded before the first launch; each is passed by value
  // after the launch's buffer pointers, as the kernel declares it.
  std::string cleanup;
  for (const auto* b : scratch) cleanup += "      cudaFreeAsync(" + var[b->name] + ", stream);\n";
  for (const auto& l : bundle.launches)
    for (const auto& m : l.tensor_maps)
      o << encode_lines(geometry.at(map_var(l, m)), m.swizzle_bytes == 128, map_var(l, m), var[m.buffer], cleanup);
  // Every kernel after the first is a programmatic dependent launch, as the runtime
  // times them: its blocks may start while the previous kernel finishes, and the
  // generated kernel waits for it (griddepcontrol.wait) before any work.
  for (size_t li = 0; li < bundle.launches.size(); ++li) {
    const LaunchSpec& l = bundle.launches[li];
    o << "  {\n    void* args[] = {";
    for (size_t i = 0; i < l.args.size(); ++i) o << (i ? ", " : "") << "(void*)&" << var[l.args[i]];
    for (size_t i = 0; i < l.tensor_maps.size(); ++i)
      o << (i || !l.args.empty() ? ", " : "") << "(void*)&" << map_var(l, l.tensor_maps[i]);
    if (l.args.empty() && l.tensor_maps.empty()) o << "nullptr";
    o << "};\n";
    if (l.dynamic_smem_bytes > 48 * 1024)
      o << "    cudaFuncSetAttribute((const void*)" << l.kernel << ", cudaFuncAttributeMaxDynamicSharedMemorySize, "
        << l.dynamic_smem_bytes << ");\n";
    if (l.cluster > 8)
      o << "    cudaFuncSetAttribute((const void*)" << l.kernel
        << ", cudaFuncAttributeNonPortableClusterSizeAllowed, 1);\n";
    auto dim3_text = [](const std::array<int64_t, 3>& d) {
      return "dim3(" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) + ")";
    };
    const std::string grid = dim3_text(l.grid), block = dim3_text(l.block);
    if (li == 0) {
      o << "    cudaLaunchKernel((const void*)" << l.kernel << ", " << grid << ", " << block << ", args, "
        << l.dynamic_smem_bytes << ", stream);\n  }\n";
    } else {
      o << "    cudaLaunchAttribute dependent[1];\n";
      o << "    dependent[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;\n";
      o << "    dependent[0].val.programmaticStreamSerializationAllowed = 1;\n";
      o << "    cudaLaunchConfig_t config = {};\n";
      o << "    config.gridDim = " << grid << ";\n    config.blockDim = " << block << ";\n";
      o << "    config.dynamicSmemBytes = " << l.dynamic_smem_bytes << ";\n    config.stream = stream;\n";
      o << "    config.attrs = dependent;\n    config.numAttrs = 1;\n";
      o << "    cudaLaunchKernelExC(&config, (const void*)" << l.kernel << ", args);\n  }\n";
    }
  }
  for (const auto* b : scratch) o << "  cudaFreeAsync(" << var[b->name] << ", stream);\n";
  o << "  return cudaSuccess;\n}\n\n";

  // The PyTorch check, in a comment so the file stays plain CUDA.
  std::string op = valid_utf8(options.torch_op);
  for (size_t p = op.find("*/"); p != std::string::npos; p = op.find("*/", p)) op.replace(p, 2, "* /");
  for (char& c : op)
    if (c == '\n' || c == '\r') c = ' ';
  std::string module = identifier("cusched_" + (bundle.problem.empty() ? std::string("kernel") : bundle.problem));
  std::string sig, call, checks, inputs_py, outputs_py, outputs_tuple;
  int outputs = 0;
  for (const auto* b : params) {
    sig += (sig.empty() ? "" : ", ") + std::string("torch::Tensor ") + var[b->name];
    std::string sizes;
    for (size_t i = 0; i < b->shape.size(); ++i) sizes += (i ? ", " : "") + std::to_string(b->shape[i]);
    checks += "  TORCH_CHECK(" + var[b->name] + ".is_cuda() && " + var[b->name] + ".is_contiguous(), \"" +
              var[b->name] + " must be a contiguous CUDA tensor\");\n";
    checks += "  TORCH_CHECK(" + var[b->name] + ".scalar_type() == " + torch_scalar_type(b->dtype) + ", \"" +
              var[b->name] + " must be " + torch_dtype(b->dtype) + "\");\n";
    checks += "  TORCH_CHECK(" + var[b->name] + ".sizes() == torch::IntArrayRef({" + sizes + "}), \"" + var[b->name] +
              " must have shape (" + shape_list(b->shape) + ")\");\n";
    outputs += b->role == BufferRole::Input ? 0 : 1;
    call += std::string(call.empty() ? "" : ", ") + "reinterpret_cast<" +
            (b->role == BufferRole::Input ? "const " : "") + dtype_c_name(b->dtype) + "*>(" + var[b->name] +
            ".data_ptr())";
    if (b->role == BufferRole::Input) {
      inputs_py += var[b->name] + " = " + torch_random(*b) + "\n";
    } else {
      outputs_py += var[b->name] + " = torch.empty((" + shape_list(b->shape) +
                    "), device=\"cuda\", dtype=" + torch_dtype(b->dtype) + ")\n";
      outputs_tuple += var[b->name] + ", ";
    }
  }
  std::string args_py;
  for (const auto* b : params) args_py += (args_py.empty() ? "" : ", ") + var[b->name];
  o << "/* PyTorch check: save this file as " << comment_text(options.file_name)
    << " and run the Python below (needs a CUDA build of PyTorch and nvcc).\n\n";
  o << "import os\nimport torch\nimport torch.nn.functional as F\nfrom torch.utils.cpp_extension import "
       "load_inline\n\n";
  if (!bench_size)
    o << "print(\"note: this kernel was lowered at the " << comment_text(options.size)
      << " size; the shapes below are that size's, not the benchmark's\")\n";
  o << "# The kernel may use sm_90a (H200) features: an architecture list without 9.0a cannot build it.\n";
  o << "if \"9.0a\" not in os.environ.get(\"TORCH_CUDA_ARCH_LIST\", \"\"):\n";
  o << "    if os.environ.get(\"TORCH_CUDA_ARCH_LIST\"):\n";
  o << "        print(\"note: TORCH_CUDA_ARCH_LIST=\" + os.environ[\"TORCH_CUDA_ARCH_LIST\"] + \" cannot build sm_90a "
       "code; using 9.0a\")\n";
  o << "    os.environ[\"TORCH_CUDA_ARCH_LIST\"] = \"9.0a\"\n";
  o << "binding = r'''\n#include <torch/extension.h>\n#include <c10/cuda/CUDAStream.h>\n";
  o << "void run(" << sig << ") {\n"
    << checks << "  TORCH_CHECK(cusched_launch(" << call << (call.empty() ? "" : ", ")
    << "c10::cuda::getCurrentCUDAStream()) == cudaSuccess, \"the kernel's tensor maps could not be encoded\");\n"
    << "}\n'''\n";
  o << "mod = load_inline(name=\"" << module << "\", cpp_sources=\"void run(" << sig << ");\",\n"
    << "                  cuda_sources=open(" << python_string(options.file_name)
    << ").read() + binding, functions=[\"run\"])\n";
  o << inputs_py << outputs_py;
  o << "mod.run(" << args_py << ")\ntorch.cuda.synchronize()\n";
  if (op.empty())
    o << "expected = ...  # the PyTorch expression for " << (bundle.problem.empty() ? "this kernel" : bundle.problem)
      << "\n";
  else
    o << "expected = " << op << "\n";
  o << "expected = expected if isinstance(expected, (tuple, list)) else (expected,)\n";
  o << "assert len(expected) == " << outputs << ", f\"the PyTorch expression gives {len(expected)} outputs, the kernel "
    << outputs << "\"\n";
  o << "for got, want in zip((" << outputs_tuple << "), expected):\n";
  o << "    want = want.reshape(got.shape) if want.dim() == 0 and got.numel() == 1 else want  # a scalar result in a "
       "1-element buffer\n";
  o << "    assert got.shape == want.shape, f\"shape {tuple(got.shape)} from the kernel, {tuple(want.shape)} from "
       "PyTorch\"\n";
  o << "    assert got.dtype == want.dtype, f\"dtype {got.dtype} from the kernel, {want.dtype} from PyTorch\"\n";
  o << "    torch.testing.assert_close(got, want, atol=" << options.atol << ", rtol=" << options.rtol << ")\n";
  o << "print(\"cusched kernel matches PyTorch\")\n*/\n";
  return o.str();
}

std::string export_candidate(const Store& store, std::optional<int64_t> candidate, std::optional<int64_t> run,
                             ExportOptions options) {
  if (!candidate) {
    if (!run) run = store.latest_run();
    if (!run)
      fail("export-empty-store", "The store '" + store.path() + "' has no runs.", "Run `cusched search` first.");
    if (!store.find_run(*run))
      fail("export-unknown-run", "The store has no run " + std::to_string(*run) + ".",
           "List runs with `cusched report`.");
    auto best = store.leaderboard(*run, 1);
    if (best.empty())
      fail("export-nothing-verified", "Run " + std::to_string(*run) + " has no verified candidate to export.",
           "Pass --candidate ID to export a specific candidate, or search longer.");
    candidate = best[0].candidate.id;
  }
  auto c = store.candidate(*candidate);
  if (!c)
    fail("export-unknown-candidate", "The store has no candidate " + std::to_string(*candidate) + ".",
         "Use an id from the report's leaderboard.");
  auto a = store.artifacts(*candidate);
  if (!a || a->kernel_bundle.is_null())
    fail("export-no-bundle",
         "Candidate " + std::to_string(*candidate) + " has no kernel bundle stored (it was never lowered).",
         "Export a candidate whose status is lowered or evaluated.");
  auto r = store.find_run(c->run);
  if (options.torch_op.empty() && r && r->config.is_object() && r->config.contains("torch_op") &&
      r->config["torch_op"].is_string())
    options.torch_op = r->config["torch_op"];
  if (r) options.size = r->size;
  if (options.title.empty()) {
    options.title = (r ? r->problem : std::string("kernel")) + ", candidate " + std::to_string(c->id);
    if (auto e = store.evaluation(c->id)) {
      options.title += ", verdict " + e->verdict;
      if (e->median_ms) options.title += ", median " + std::to_string(*e->median_ms) + " ms";
    }
  }
  return export_kernel(KernelBundle::from_json(a->kernel_bundle), options);
}

}  // namespace cusched::search
