// positions_to_keep_switch.hpp: the small cases --yours 13 runs before the
// lesson's first call of positions_to_keep.
//
// The lesson's own calls never reach some parts of the rule: attention summed
// over heads, layers and queries never ties, so a wrong tie rule matches the
// reference on every call of a run. Each case here is a part of the rule on a
// list small enough to check by eye (the window, the sinks, the heavy hitters,
// the window not counted twice, a tie), and the note of the first case where
// yours differs names that part.
#pragma once

#include "13_cache_budget/exercise/positions_to_keep.hpp"

namespace tang {

class ExerciseSwitch;

// Runs every case with `yours` beside the reference solution, through `use`:
// one note at the first case where they differ (common/exercise_code.hpp).
void check_keep_rule_cases(ExerciseSwitch& use, decltype(mine::positions_to_keep)* yours);

}  // namespace tang
