// cost_model.hpp: why the cache gives about 25x at 120 characters, not 60x.
//
// Without the cache, writing character i runs the whole text so far (i
// positions: the newline and i-1 characters) through the model; with it, one
// position. So n characters cost
//
//   without: 1 + 2 + ... + n = n(n+1)/2 positions      with: n positions
//
// which is n/2 + 1/2 times as many (60.5x at n = 120). But a position is not
// the unit of cost. A step of k positions reads every weight once, whatever k
// is (one matrix-matrix product per weight matrix), computes the output layer
// for the last position only, and draws one character; only the arithmetic
// inside the blocks grows with k. So a step costs about
//
//   t(k) = t1 + (k - 1) * b     t1: a one-position step, b: one more position
//
// and the speed-up is  sum_i t(i) / (n * t1) = 1 + (b / t1) * (n - 1) / 2
// (exercise 06c computes it).
#pragma once

#include <cstddef>

#include "gpt.hpp"

namespace tang {

struct StepCosts {
  double t1_ms = 0.0;  // a one-position step: forward over 1 position + the draw
  double b_ms = 0.0;   // what each more position in the window adds
};

// Times forward (no cache, the plain kernels) over windows of 1 and of
// `window` positions, median of `runs`, and derives t1 and b. t1 also gets the
// draw (softmax and sampling), which every step pays once.
StepCosts measure_step_costs(const GPT& model, std::size_t window, std::size_t runs);

// The arithmetic of the model (positions, the predicted speed-up) is exercise
// 06c: exercise/cost_model.hpp.

}  // namespace tang
