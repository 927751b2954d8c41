#include "hand_built_ir.h"

namespace cusched::test {

Expr v(const std::string& name) { return make_var(name); }

Expr ld(const std::string& buffer, DType t, Expr index) { return make_load(buffer, t, {std::move(index)}); }

BufferSpec buffer(const std::string& name, DType t, std::vector<int64_t> shape, BufferRole role) {
  BufferSpec b;
  b.name = name;
  b.dtype = t;
  b.shape = std::move(shape);
  b.role = role;
  return b;
}

namespace {

LoweredProgram program(const std::string& problem, std::vector<BufferSpec> buffers) {
  LoweredProgram p;
  p.problem = problem;
  p.schedule_hash = "hand-built";
  p.buffers = std::move(buffers);
  p.schedule_text = {"(hand-built IR)"};
  return p;
}

Kernel kernel(const std::string& name, std::array<int64_t, 3> grid, std::array<int64_t, 3> block,
              std::vector<std::string> params, Stmt body) {
  Kernel k;
  k.name = name;
  k.grid = grid;
  k.block = block;
  k.params = std::move(params);
  k.body = std::move(body);
  return k;
}

}  // namespace

LoweredProgram elementwise_program(int lanes, int stride, int offset) {
  const int64_t threads = 256 / stride;
  Expr index = v("io") * 256 + v("ii") * stride + offset + v("v");
  Stmt store = make_store("C", index, ld("A", DType::f32, index) + 2.0f * ld("B", DType::f32, index));
  Stmt body = make_for("io", 0, 1024, LoopKind::Serial, GpuAxis::BlockX,
                       make_for("ii", 0, threads, LoopKind::Serial, GpuAxis::ThreadX,
                                make_for("v", 0, lanes, LoopKind::Vectorized, GpuAxis::None, store)));
  LoweredProgram p = program("add", {buffer("A", DType::f32, {1024, 256}, BufferRole::Input),
                                     buffer("B", DType::f32, {1024, 256}, BufferRole::Input),
                                     buffer("C", DType::f32, {1024, 256}, BufferRole::Output)});
  p.kernels.push_back(kernel("add_kernel", {1024, 1, 1}, {threads, 1, 1}, {"A", "B", "C"}, body));
  return p;
}

LoweredProgram block_sum_program() {
  Expr acc = ld("acc", DType::f32, 0);
  Stmt per_thread = make_block({
      make_store("acc", 0, 0.0f),
      make_for("k", 0, 4, LoopKind::Unrolled, GpuAxis::None,
               make_store("acc", 0, acc + ld("A", DType::f32, v("r") * 1024 + v("k") * 256 + v("t")))),
      make_store("tile", v("t"), acc),
      make_barrier(),
      make_store("acc", 0, ld("tile", DType::f32, 255 - v("t"))),
      make_allreduce("acc", "", 0, ReduceOp::Sum, GpuAxis::ThreadX, 256, "block"),
      make_if(v("t") == 0, make_store("B", v("r"), acc)),
  });
  Stmt body =
      make_for("r", 0, 128, LoopKind::Serial, GpuAxis::BlockX,
               make_allocate("tile", MemScope::Shared, DType::f32, 256,
                             make_allocate("acc", MemScope::Register, DType::f32, 1,
                                           make_for("t", 0, 256, LoopKind::Serial, GpuAxis::ThreadX, per_thread))));
  LoweredProgram p = program("row_sum", {buffer("A", DType::f32, {128, 1024}, BufferRole::Input),
                                         buffer("B", DType::f32, {128}, BufferRole::Output)});
  p.kernels.push_back(kernel("row_sum_kernel", {128, 1, 1}, {256, 1, 1}, {"A", "B"}, body));
  return p;
}

LoweredProgram y_axis_sum_program() {
  Expr acc = ld("acc", DType::f32, 0);
  Stmt per_thread = make_block({
      make_store("acc", 0, ld("A", DType::f32, v("b") * 256 + v("y") * 32 + v("x"))),
      make_allreduce("acc", "", 0, ReduceOp::Sum, GpuAxis::ThreadY, 8, "block"),
      make_if(v("y") == 0, make_store("B", v("b") * 32 + v("x"), acc)),
  });
  Stmt body = make_for("b", 0, 64, LoopKind::Serial, GpuAxis::BlockX,
                       make_allocate("acc", MemScope::Register, DType::f32, 1,
                                     make_for("y", 0, 8, LoopKind::Serial, GpuAxis::ThreadY,
                                              make_for("x", 0, 32, LoopKind::Serial, GpuAxis::ThreadX, per_thread))));
  LoweredProgram p = program("column_sum", {buffer("A", DType::f32, {64, 8, 32}, BufferRole::Input),
                                            buffer("B", DType::f32, {64, 32}, BufferRole::Output)});
  p.kernels.push_back(kernel("column_sum_kernel", {64, 1, 1}, {32, 8, 1}, {"A", "B"}, body));
  return p;
}

LoweredProgram argmax_program(int64_t width, const std::string& kind) {
  Stmt per_thread = make_block({
      make_store("val", 0, ld("A", DType::f32, v("r") * static_cast<int>(width) + v("t"))),
      make_store("idx", 0, cast(DType::i64, v("t"))),
      make_allreduce("val", "idx", 0, ReduceOp::ArgMax, GpuAxis::ThreadX, width, kind),
      make_if(v("t") == 0, make_store("Out", v("r"), ld("idx", DType::i64, 0))),
  });
  Stmt body =
      make_for("r", 0, 64, LoopKind::Serial, GpuAxis::BlockX,
               make_allocate("val", MemScope::Register, DType::f32, 1,
                             make_allocate("idx", MemScope::Register, DType::i64, 1,
                                           make_for("t", 0, width, LoopKind::Serial, GpuAxis::ThreadX, per_thread))));
  LoweredProgram p = program("argmax", {buffer("A", DType::f32, {64, width}, BufferRole::Input),
                                        buffer("Out", DType::i64, {64}, BufferRole::Output)});
  p.kernels.push_back(kernel("argmax_kernel", {64, 1, 1}, {width, 1, 1}, {"A", "Out"}, body));
  return p;
}

LoweredProgram large_shared_program() {
  Expr flat = v("k") * 256 + v("t");
  Stmt per_thread = make_block({
      make_for("k", 0, 64, LoopKind::Serial, GpuAxis::None, make_store("tile", flat, ld("A", DType::f32, flat))),
      make_barrier(),
      make_for("k", 0, 64, LoopKind::Serial, GpuAxis::None,
               make_store("Out", flat, ld("tile", DType::f32, 16383 - flat))),
  });
  Stmt body = make_for("b", 0, 1, LoopKind::Serial, GpuAxis::BlockX,
                       make_allocate("tile", MemScope::Shared, DType::f32, 16384,
                                     make_for("t", 0, 256, LoopKind::Serial, GpuAxis::ThreadX, per_thread)));
  LoweredProgram p = program("reverse", {buffer("A", DType::f32, {16384}, BufferRole::Input),
                                         buffer("Out", DType::f32, {16384}, BufferRole::Output)});
  p.kernels.push_back(kernel("reverse_kernel", {1, 1, 1}, {256, 1, 1}, {"A", "Out"}, body));
  return p;
}

LoweredProgram wide_copy_program() { return wide_copy_program(v("io") * 65536 + v("ii")); }

LoweredProgram wide_copy_program(Expr index) {
  Stmt body = make_for(
      "io", 0, 65536, LoopKind::Serial, GpuAxis::BlockX,
      make_for("ii", 0, 65536, LoopKind::Serial, GpuAxis::None, make_store("Out", index, ld("A", DType::f32, index))));
  LoweredProgram p = program("copy", {buffer("A", DType::f32, {65536, 65536}, BufferRole::Input),
                                      buffer("Out", DType::f32, {65536, 65536}, BufferRole::Output)});
  p.kernels.push_back(kernel("copy_kernel", {65536, 1, 1}, {1, 1, 1}, {"A", "Out"}, body));
  return p;
}

LoweredProgram scalar_program(Expr value, DType out_type) {
  Stmt body = make_for("b", 0, 1, LoopKind::Serial, GpuAxis::BlockX,
                       make_for("t", 0, 32, LoopKind::Serial, GpuAxis::ThreadX, make_store("Out", v("t"), value)));
  LoweredProgram p = program(
      "scalar", {buffer("A", DType::f32, {32}, BufferRole::Input), buffer("H", DType::f16, {32}, BufferRole::Input),
                 buffer("Out", out_type, {32}, BufferRole::Output)});
  p.kernels.push_back(kernel("scalar_kernel", {1, 1, 1}, {32, 1, 1}, {"A", "H", "Out"}, body));
  return p;
}

}  // namespace cusched::test
