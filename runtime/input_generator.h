#pragma once
// Seeded random tensor contents, generated on the host. Each element is a pure
// function of (seed, index), so the result does not depend on the thread count.
#include <cstdint>
#include <string>
#include <vector>

#include "codegen/kernel_bundle.h"
#include "runtime/evaluation.h"

namespace cusched::runtime {

// The distribution used for an input that the request does not list:
// normal(0, 1) for floating point, randint(0, 9) for integers, randint(0, 1) for bool.
Distribution default_distribution(DType t);

// The seed of one buffer in one trial.
uint64_t trial_seed(uint64_t base_seed, int trial, const std::string& buffer);

// Throws UserError ("bad-distribution") for an unknown kind, an empty randint range or a
// negative standard deviation.
void check_distribution(const BufferSpec& buffer, const Distribution& d);

// `buffer.elements()` values drawn from `d`, stored as `buffer.dtype`.
// Throws UserError ("bad-distribution") for an unknown kind or empty range.
std::vector<uint8_t> generate_input(const BufferSpec& buffer, const Distribution& d, uint64_t seed);

}  // namespace cusched::runtime
