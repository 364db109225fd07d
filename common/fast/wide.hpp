// wide.hpp (under the hood): the widest vector of floats this CPU has, for the
// decoding step's products (few_rows_matmul.cpp, panel_matmul.cpp).
#pragma once

#include <cstddef>
#include <cstring>

namespace tang::fast {

#if defined(__AVX512F__)
using Wide = float __attribute__((vector_size(64)));  // 16 floats, one zmm register
#else
using Wide = float __attribute__((vector_size(32)));  // 8 floats, one ymm register
#endif
inline constexpr std::size_t kWideLanes = sizeof(Wide) / sizeof(float);

// The kWideLanes floats from p on (any alignment).
inline Wide load_wide(const float* p) {
  Wide v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace tang::fast
