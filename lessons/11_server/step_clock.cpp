#include "11_server/step_clock.hpp"

namespace tang {

StepPrice StepClock::price(std::span<const StepWork> works, std::size_t pieces,
                           std::size_t drawing) const {
  StepPrice p;
  p.drawn_at_ms.assign(pieces, 0.0);
  if (!on()) return p;
  if (overhead_) p.overhead_ms = overhead_(drawing);
  // a piece that ends its opening draws after the works before it and its share
  // of the overhead, before the batch runs
  std::size_t drawn = 0;
  for (std::size_t i = 0; i < works.size(); ++i) {
    p.ms += predict_(works[i]);
    if (i < pieces && works[i].draws > 0)
      p.drawn_at_ms[i] = p.ms + p.overhead_ms * double(++drawn) / double(drawing);
  }
  return p;
}

void StepClock::add(const StepPrice& step) {
  after_.push_back(after_.back() + (step.ms + step.overhead_ms) / 1000);
  overhead_seconds_ += step.overhead_ms / 1000;
}

void StepClock::drew(TextSteps& t, double at_ms) const {
  if (!t.answered) t.first = steps(), t.answered = true, t.first_in_step_ms = at_ms;
  t.last = steps();
}

PredictedTimes StepClock::times(const TextSteps& t) const {
  if (!on() || !t.answered) return {};
  return {after_[t.first - 1] - after_[t.arrival] + t.first_in_step_ms / 1000,
          after_[t.last] - after_[t.arrival]};
}

}  // namespace tang
