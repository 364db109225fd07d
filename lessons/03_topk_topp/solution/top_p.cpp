// SOLUTION to exercise 03 (the learner's file is exercise/top_p.cpp, whose
// comment specifies the behaviour). The lesson's top_p_filter implements the
// same boundary rule; the exercise's version simply owns its scratch space.

#include "exercise/top_p.hpp"

#include <vector>

#include "top_k_top_p.hpp"

namespace tang::mine {

void top_p_filter(std::span<float> probabilities, float p) {
  std::vector<NucleusKey> keys;  // the ranking: (probability, id) keys, best first
  tang::top_p_filter(probabilities, p, keys);
}

}  // namespace tang::mine
