// step_clock.hpp: the engine's steps on the cost model's clock.
//
// Given EngineOptions::predict_ms, every step is priced before it runs: the
// work of each forward pass (06_kvcache/step_cost.hpp), in the order they run
// (the openings' pieces, then the batch), plus what the step costs besides
// (step_overhead.hpp). The clock adds the steps up; a text's predicted times
// are read off the sums: from the step it arrived in to its first draw, and to
// its last.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "06_kvcache/step_cost.hpp"  // StepWork
#include "11_server/engine_options.hpp"

namespace tang {

struct StepPrice {
  double ms = 0, overhead_ms = 0;   // the forward passes; the rest of the step
  std::vector<double> drawn_at_ms;  // (passes) when the texts of a pass draw
};

// When a text arrived and drew, in steps of the clock.
struct TextSteps {
  std::size_t arrival = 0, first = 0, last = 0;
  double first_in_step_ms = 0;  // from its first draw's step's start to the draw
  bool answered = false;
};

class StepClock {
 public:
  explicit StepClock(const EngineOptions& o)
      : predict_(o.predict_ms), overhead_(o.step_overhead_ms) {}
  bool on() const { return static_cast<bool>(predict_); }
  // The step's forward passes, in the order they run. Nothing without
  // predict_ms; throws what the model throws.
  StepPrice price(std::span<const StepWork> works) const;
  void add(const StepPrice& step);  // the step ran
  std::size_t steps() const { return after_.size() - 1; }
  // `t` drew in the step just added, `at_ms` after its start.
  void drew(TextSteps& t, double at_ms) const;
  PredictedTimes times(const TextSteps& t) const;
  double seconds() const { return after_.back(); }
  double overhead_seconds() const { return overhead_seconds_; }

 private:
  std::function<double(const StepWork&)> predict_;
  std::function<double(std::size_t)> overhead_;
  std::vector<double> after_ = {0};  // (steps + 1) the predicted seconds of steps 1 .. i
  double overhead_seconds_ = 0;      // the overhead's part of after_.back()
};

}  // namespace tang
