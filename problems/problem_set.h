#pragma once
// Constructors of the problems, one per file; problem_set.cpp lists them.
#include "problems/problem.h"

namespace cusched {

// Level 1: single operators.
Problem make_matmul();
Problem make_matmul_rect();
Problem make_matmul_bf16();
Problem make_bmm();
Problem make_matvec();
Problem make_relu();
Problem make_relu_large();
Problem make_gelu();
Problem make_gelu_large();
Problem make_softmax();
Problem make_softmax_large();
Problem make_layernorm();
Problem make_rmsnorm();
Problem make_sum_dim1();
Problem make_sum_dim1_small();
Problem make_max_dim1();
Problem make_argmax_dim1();
Problem make_maxpool2d();
Problem make_conv2d();
Problem make_mse_loss();
Problem make_cross_entropy();
// Level 2: an operator followed by fused epilogues.
Problem make_gemm_add_relu();
Problem make_gemm_scale_leakyrelu();
Problem make_gemm_gelu_softmax();
Problem make_conv2d_relu_bias();

}  // namespace cusched
