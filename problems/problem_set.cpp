#include "problems/problem_set.h"

namespace cusched {

const std::vector<Problem>& all_problems() {
  static const std::vector<Problem> all = {
      make_matmul(),
      make_matmul_rect(),
      make_matmul_bf16(),
      make_bmm(),
      make_matvec(),
      make_relu(),
      make_relu_large(),
      make_gelu(),
      make_gelu_large(),
      make_softmax(),
      make_softmax_large(),
      make_layernorm(),
      make_rmsnorm(),
      make_sum_dim1(),
      make_sum_dim1_small(),
      make_max_dim1(),
      make_argmax_dim1(),
      make_maxpool2d(),
      make_conv2d(),
      make_mse_loss(),
      make_cross_entropy(),
      make_gemm_add_relu(),
      make_gemm_scale_leakyrelu(),
      make_gemm_gelu_softmax(),
      make_conv2d_relu_bias(),
  };
  return all;
}

}  // namespace cusched
