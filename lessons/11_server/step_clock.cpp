#include "11_server/step_clock.hpp"

namespace tang {

StepPrice StepClock::price(std::span<const StepWork> works) const {
  StepPrice p;
  p.drawn_at_ms.assign(works.size(), 0.0);
  if (!on()) return p;
  std::size_t drawing = 0, drawn = 0;
  for (const StepWork& w : works) drawing += w.draws;
  if (overhead_) p.overhead_ms = overhead_(drawing);
  // a pass's texts draw after the passes before it and their share of the
  // overhead: a piece that ends its opening before the batch, the batch last
  for (std::size_t i = 0; i < works.size(); ++i) {
    p.ms += predict_(works[i]);
    drawn += works[i].draws;
    p.drawn_at_ms[i] = p.ms + (drawing ? p.overhead_ms * double(drawn) / double(drawing) : 0.0);
  }
  return p;
}

void StepClock::add(const StepPrice& step) {
  after_.push_back(after_.back() + (step.ms + step.overhead_ms) / 1000);
  overhead_seconds_ += step.overhead_ms / 1000;
}

void StepClock::drew(TextSteps& t, double at_ms) const {
  if (!t.answered) {
    t.first = steps();
    t.answered = true;
    t.first_in_step_ms = at_ms;
  }
  t.last = steps();
}

PredictedTimes StepClock::times(const TextSteps& t) const {
  if (!on() || !t.answered) return {};
  return {after_[t.first - 1] - after_[t.arrival] + t.first_in_step_ms / 1000,
          after_[t.last] - after_[t.arrival]};
}

}  // namespace tang
