// Errors on IR that the lowering does not produce but a hand-written or edited program
// can hold: an mbarrier used before it is initialised (the interpreter), and ldmatrix
// loads the instruction does not have (the CUDA emitter). The emitter's ldmatrix error
// is also reached from the lowering: a tensor-core schedule emitted as the f64 reference.
#include <gtest/gtest.h>

#include "codegen/cuda_emitter.h"
#include "codegen/lower.h"
#include "dsl/dsl.h"
#include "problems/baseline_steps.h"
#include "tests/interp/ir_test_support.h"

namespace cusched {
namespace {

using namespace cusched::test;

bool mentions(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// 64 threads. When `init`, thread 0 initialises mbarrier bar[0] for one arrival, then
// (when `barrier`) the block synchronises; thread 0 announces 256 bytes and bulk-copies
// 64 floats of G into S; every thread waits on the phase and copies S[t] to Y[t].
LoweredProgram bulk_copy_through(bool init, bool barrier) {
  Expr t = var("t"), tid = make_var("tid");
  std::vector<Stmt> body;
  if (init) body.push_back(make_if(tid == make_int(0), make_mbarrier_init("bar", make_int(0), 1)));
  if (barrier) body.push_back(make_barrier());
  body.push_back(make_if(tid == make_int(0), make_block({make_mbarrier_expect("bar", make_int(0), make_int(256)),
                                                         make_bulk_copy("S", make_int(0), load("G", make_int(0)),
                                                                        make_int(256), "bar", make_int(0))})));
  body.push_back(make_mbarrier_wait("bar", make_int(0), make_int(0)));
  body.push_back(bound("t", 64, GpuAxis::ThreadX, make_store("Y", t, load("S", t))));
  Stmt k = make_allocate("S", MemScope::Shared, DType::f32, 64,
                         make_allocate("bar", MemScope::Shared, DType::i64, 1, make_block(body)));
  return program({buffer("G", DType::f32, 64, BufferRole::Input), buffer("Y", DType::f32, 64, BufferRole::Output)},
                 {kernel("bulk", {1, 1, 1}, {64, 1, 1}, {"G", "Y"}, k)});
}

HostBuffers bulk_inputs() {
  HostBuffers b;
  for (int i = 0; i < 64; ++i) b["G"].push_back(i + 0.5);
  return b;
}

TEST(IrErrors, AnMbarrierInitialisedAndPublishedByABarrierWorks) {
  HostBuffers b = bulk_inputs();
  interpret(bulk_copy_through(true, true), b);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(b["Y"][i], i + 0.5);
}

TEST(IrErrors, AnMbarrierNoThreadInitialisedIsReported) {
  HostBuffers b = bulk_inputs();
  std::string message;
  EXPECT_EQ(error_code([&] { interpret(bulk_copy_through(false, true), b); }, &message), "mbarrier-not-initialized");
  EXPECT_TRUE(mentions(message, "bar[0]")) << message;
  EXPECT_TRUE(mentions(message, "before any thread")) << message;
}

TEST(IrErrors, AnMbarrierUsedByOtherThreadsBeforeABarrierIsReported) {
  // Thread 0 initialises, announces, copies and waits in one barrier interval (its own
  // initialisation is visible to it); thread 1's wait in that interval is not ordered
  // after the initialisation.
  HostBuffers b = bulk_inputs();
  std::string message;
  EXPECT_EQ(error_code([&] { interpret(bulk_copy_through(true, false), b); }, &message), "mbarrier-not-initialized");
  EXPECT_TRUE(mentions(message, "same barrier interval")) << message;
  EXPECT_TRUE(mentions(message, "thread (1, 0, 0)")) << message;
}

// One warp loads `matrices` 8x8 matrices of `t` from a shared tile into a register
// fragment with one ldmatrix (transposed when `transpose`) and stores the fragment.
LoweredProgram one_ldmatrix(DType t, int matrices, bool transpose) {
  const Expr lane = var("lane");
  const int64_t per_row = 16 / dtype_bytes(t), elements = matrices * 4 / dtype_bytes(t);  // of the fragment
  Stmt fill =
      serial("e", 0, 8 * per_row * matrices / 32 + 1,
             make_if(var("e") * make_int(32) + lane < make_int(8 * per_row * matrices),
                     make_store("As", var("e") * make_int(32) + lane, load("A", var("e") * make_int(32) + lane, t))));
  std::vector<Stmt> out;
  for (int64_t w = 0; w < elements; ++w)
    out.push_back(make_store("Out", lane * make_int(elements) + make_int(w), load("frag", make_int(w), t)));
  Stmt body =
      make_block({bound("lane", 32, GpuAxis::ThreadX, fill), make_barrier(),
                  bound("lane", 32, GpuAxis::ThreadX,
                        make_ldmatrix("frag", make_int(0), "As", (lane % make_int(8 * matrices)) * make_int(per_row),
                                      matrices, transpose)),
                  bound("lane", 32, GpuAxis::ThreadX, make_block(out))});
  body = make_allocate("frag", MemScope::Register, t, elements, body);
  body = make_allocate("As", MemScope::Shared, t, 8 * per_row * matrices, body);
  return program(
      {buffer("A", t, 8 * per_row * matrices, BufferRole::Input), buffer("Out", t, 32 * elements, BufferRole::Output)},
      {kernel("ldm", {1, 1, 1}, {32, 1, 1}, {"A", "Out"}, body)});
}

TEST(IrErrors, LdMatrixShapesTheInstructionHasAreEmitted) {
  EXPECT_TRUE(mentions(emit_cuda(one_ldmatrix(DType::f32, 4, false)), "cusched::ldmatrix_x4(")) << "f32 x4";
  EXPECT_TRUE(mentions(emit_cuda(one_ldmatrix(DType::f16, 2, true)), "cusched::ldmatrix_x2_trans(")) << "f16 x2 trans";
}

TEST(IrErrors, LdMatrixShapesTheInstructionLacksAreEmitterErrors) {
  struct Case {
    DType t;
    int matrices;
    bool transpose;
    const char* why;
  };
  for (const Case& c :
       {Case{DType::f32, 3, false, "three matrices"}, Case{DType::f32, 4, true, "a transposed 32-bit load"},
        Case{DType::f64, 2, false, "64-bit elements"}}) {
    SCOPED_TRACE(c.why);
    std::string message;
    EXPECT_EQ(error_code([&] { emit_cuda(one_ldmatrix(c.t, c.matrices, c.transpose)); }, &message),
              "ldmatrix-unsupported");
    EXPECT_TRUE(mentions(message, "'frag'")) << message;
  }
}

// A 32 x 16 tensor-core tile of C = A B (64 x 48 x 40), warps of 16 x 8, K steps of 8,
// A and B staged in shared memory: the lowering loads A's fragments with ldmatrix.
LoweredProgram lowered_tensor_core_tile() {
  Size M("M"), N("N"), K("K");
  Tensor A("A", DType::f32, {M, K}), B("B", DType::f32, {K, N});
  Var i("i", M), j("j", N);
  RVar k("k", K);
  ScheduleContext c;
  c.pipeline = Pipeline({compute("C", {i, j}, sum(k, A(i, k) * B(k, j)))});
  c.sizes = {{"M", 64}, {"N", 48}, {"K", 40}};
  const nlohmann::json steps = tensor_core_tile_steps("C", "i", "j", "k", "A", 4, "B", 8, "", {32, 16, 16, 8, 8});
  return lower(Schedule::from_json(c, steps), "matmul");
}

TEST(IrErrors, TensorCoreLoadsHaveNoF64ReferenceForm) {
  // The f64 reference keeps shared tiles in doubles, which ldmatrix cannot load.
  const LoweredProgram p = lowered_tensor_core_tile();
  ASSERT_TRUE(mentions(print_ir(p), "ldmatrix")) << "the lowering no longer loads fragments with ldmatrix:\n"
                                                 << print_ir(p);
  EXPECT_TRUE(mentions(emit_cuda(p), "cusched::ldmatrix_x")) << "the f32 kernel must emit";
  std::string message;
  EXPECT_EQ(error_code([&] { emit_cuda(p, {.reference_f64 = true}); }, &message), "ldmatrix-unsupported");
  EXPECT_TRUE(mentions(message, "f64 reference")) << message;
}

}  // namespace
}  // namespace cusched
