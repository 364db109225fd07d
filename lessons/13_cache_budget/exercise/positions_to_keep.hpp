// exercise/positions_to_keep.hpp: EXERCISE 13, which positions a cache on a
// budget keeps.
//
// DroppingCache (dropping_cache.hpp) asks this function after every step which
// of its positions to keep. It runs the reference solution
// (solution/positions_to_keep.cpp) unless the lesson is started with --yours 13;
// then YOUR file exercise/positions_to_keep.cpp, whose comment says exactly what
// it must do. Check yours with
//   cmake --build --preset release --target exercise_13_test
//   ctest --preset yours -L '^yours_13$'
//   build/release/lessons/13_cache_budget/lesson_13_cache_budget --yours 13 --section 13
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace tang::mine {

// received (n): the attention each held position has received so far, oldest
// first. Returns the indices (into received) of the positions to keep, in
// increasing order: at most `budget` of them.
std::vector<std::size_t> positions_to_keep(std::span<const float> received, std::size_t budget,
                                           std::size_t sinks, std::size_t window);

}  // namespace tang::mine

// The reference solution's (solution/positions_to_keep.cpp): the same signature as
// yours, written once above (decltype names a function's type).
namespace tang::reference {
decltype(mine::positions_to_keep) positions_to_keep;
}  // namespace tang::reference

// What the lessons call: the reference solution's, or with --yours 13 yours, checked
// against it at every call (positions_to_keep_switch.cpp, common/exercise_code.hpp).
namespace tang {
decltype(mine::positions_to_keep) positions_to_keep;
}  // namespace tang
