#pragma once
// The math of a lower-precision tensor-core sketch's other stages in fast form: a sketch
// whose contraction rounds its operands to TF32, BF16 or F16 already answers only a
// tolerance of about 1e-2, within which the GPU's approximate exp, log, tanh and division
// (precision math "fast") stay, while a fused epilogue's exact functions (mish's softplus
// and tanh, sigmoid) can take longer than the contraction. erf (GELU) has no fast form.
#include "problems/problem.h"
#include "search/class_sketches.h"

namespace cusched::search {

// `sketch` with math "fast" for every stage of the problem that computes a function with
// a fast form or an f32 division, other than the stages its tensor_core steps name, where
// one of those rounds operands to TF32, BF16 or F16; its idea says so. The sketch as it
// is otherwise.
Sketch with_fast_epilogue(const Problem& problem, Sketch sketch);

}  // namespace cusched::search
