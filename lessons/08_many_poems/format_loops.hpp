// format_loops.hpp: lesson 08's matrix products, as loops the machine profile
// measures (06_kvcache/machine_profile.hpp).
#pragma once

#include <vector>

#include "06_kvcache/machine_profile.hpp"
#include "08_many_poems/stored_weights.hpp"

namespace tang {

// The name of a format's loop in the profile: "fp32", "bf16", "int8".
std::string loop_name(WeightFormat format);

// Bytes a weight takes in a format (int8: 32 quants and a 4-byte scale per 32).
double bytes_per_weight(WeightFormat format);

// Lesson 06's plain fp32 loop, then StoredMatrix::matmul in each format.
std::vector<LoopToMeasure> lesson_loops();

}  // namespace tang
