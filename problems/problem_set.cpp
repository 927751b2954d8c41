#include "problems/problem_set.h"

namespace cusched {

const std::vector<Problem>& all_problems() {
  static const std::vector<Problem> all = {
      make_matmul(),
      make_softmax(),
      make_layernorm(),
  };
  return all;
}

}  // namespace cusched
