#pragma once
// Constructors of the problems, one per file; problem_set.cpp lists them.
#include "problems/problem.h"

namespace cusched {

Problem make_matmul();
Problem make_softmax();
Problem make_layernorm();

}  // namespace cusched
