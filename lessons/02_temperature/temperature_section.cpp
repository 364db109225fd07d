#include "temperature_section.hpp"

#include <ostream>

#include "exercise/sample_with_temperature.hpp"

namespace tang {

namespace {

void show_temperatures(LessonContext& c) {
  c.out << "Divide the logits by T before softmax, then draw. Same seed for every T:\n";
  const std::vector<float> temperatures = c.options.temperature
                                              ? std::vector<float>{*c.options.temperature}
                                              : std::vector<float>{0.3f, 1.0f, 1.5f};
  for (float t : temperatures) {
    c.out << "  T = " << label(t) << (t == 0.0f ? " (greedy)" : "") << "\n";
    // every character drawn by exercise 02's function
    const Picker draw = [t, &c](std::span<float> logits, std::size_t, Rng& rng) {
      if (c.trace) c.trace->start(logits, t);
      const float coin = rng.uniform();
      const TokenId next = mine::sample_with_temperature(logits, t, coin);
      if (c.trace) c.trace->drawn(t == 0.0f ? -1.0f : coin, next);
      return next;
    };
    print_poems(c, draw, 3);
  }
}

std::string needs(const LessonOptions&) {
  return "\n";
}  // a poem starts after a newline

}  // namespace

Section temperature_section() {
  return {"Temperature: the same seed at three temperatures", show_temperatures, needs};
}

}  // namespace tang
