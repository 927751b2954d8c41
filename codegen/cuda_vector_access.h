#pragma once
// When a Vectorized loop can become float2 / float4 accesses: the loop body is one
// Store (possibly under an If whose condition does not depend on the loop variable v)
// either of an f32 buffer at `base + v` (a pointwise loop: one vector store), or of a
// register element that does not depend on v (a reduction loop: the lanes update the
// accumulator one after another, in order, as the serial loop would); every load that
// depends on v reads another f32 global or shared buffer at `base' + v` or `base' - v`
// (a descending access, as a reverse scan's: the vector starts at the last lane, its
// components in reverse lane order), or is a register array, read lane by lane; and each
// vector's lowest index is provably a multiple of the lane count: in its affine form every
// coefficient and the constant are multiples of it. A pointwise store may also target a register array at base + v
// (assigned lane by lane). A Select whose condition does not depend on v, reading such
// a buffer in one arm and a register array in the other (a shared copy's register tail,
// cache_read registers), is read as one vector from whichever arm the condition picks.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "codegen/cuda_expr_emitter.h"
#include "dsl/expr_substitute.h"

namespace cusched {

struct VectorAccessPlan {
  int lanes = 4;                                // 2 (float2) or 4 (float4)
  int64_t first = 0;                            // the loop's min: lane k has v = first + k
  const StmtNode* store = nullptr;              // the Store of the body
  const StmtNode* guard = nullptr;              // the If around it, or null
  bool accumulate = false;                      // the Store updates one register element per lane, in order
  bool register_target = false;                 // a pointwise Store into a register array, lane by lane
  bool descending_store = false;                // the vector store's index falls as v grows
  std::vector<const ExprNode*> vector_loads;    // loads read as one vector each
  std::vector<bool> descending_loads;           // of each vector load: its index falls as v grows
  std::vector<const ExprNode*> vector_selects;  // Selects of a vector load or register elements, one vector each
};

// The plan for `loop` (a Vectorized For), or nullopt when the access pattern is not
// provably aligned and contiguous; the emitter then writes unrolled scalar code.
std::optional<VectorAccessPlan> plan_vector_access(
    const StmtNode& loop, const std::function<const EmittedBuffer*(const std::string&)>& lookup);

// +1 where `index` is `var` plus an integer expression that, with `first` added, is a
// multiple of `lanes` whatever its variables are; -1 where `index` is an integer
// expression minus `var` whose value at the last lane (var = first + lanes - 1) is such a
// multiple; 0 otherwise.
int aligned_lane_direction(const Expr& index, const std::string& var, int64_t first, int64_t lanes);

}  // namespace cusched
