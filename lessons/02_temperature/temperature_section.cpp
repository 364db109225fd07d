#include "02_temperature/temperature_section.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <vector>

#include "02_temperature/distribution.hpp"
#include "02_temperature/exercise/sample_with_temperature.hpp"
#include "02_temperature/poems.hpp"
#include "sampling.hpp"

namespace tang {

namespace {

const std::string kContext = "床前明月光，疑是地上";  // lesson 01's second prompt

// One context's next-character distribution at each temperature, in numbers
// (distribution.hpp) and as bars.
void show_spread(LessonContext& c, const std::vector<float>& temperatures) {
  Recompute predictor(c.model);
  const std::span<const float> logits = predictor.next_logits(c.model.tokenizer().encode(kContext));
  c.out << "After 「" << kContext << "」, the same logits at each temperature:\n"
        << "     T    entropy  exp(entropy)  top 20  p = 0.9 takes\n";
  std::vector<std::vector<float>> at_t;
  for (float t : temperatures) {
    std::vector<float> p(logits.begin(), logits.end());
    if (t == 0.0f) {  // greedy: all of it on the largest
      std::fill(p.begin(), p.end(), 0.0f);
      p[static_cast<std::size_t>(argmax(logits))] = 1.0f;
    } else {
      const float max = *std::max_element(p.begin(), p.end());
      for (float& z : p) z = (z - max) / t;
      softmax_in_place(p);
    }
    const Spread s = spread_of(p);
    char row[128];
    std::snprintf(row, sizeof row, "  %6s  %6.2f   %9.1f     %5.1f%%  %5zu characters\n",
                  label(t).c_str(), s.entropy, s.choices, 100.0 * s.top20, s.nucleus);
    c.out << row;
    at_t.push_back(std::move(p));
  }
  for (std::size_t i = 0; i < temperatures.size(); ++i) {
    c.out << "    T = " << label(temperatures[i]) << ", the 5 most likely:\n";
    print_bars(c.out, c.model.tokenizer(), at_t[i], 5);
  }
  c.out << "\n";
}

void show_temperatures(LessonContext& c) {
  const std::vector<float> temperatures = c.options.temperature
                                              ? std::vector<float>{*c.options.temperature}
                                              : std::vector<float>{0.3f, 1.0f, 1.5f};
  show_spread(c, temperatures);
  c.out << "Divide the logits by T before softmax, then draw. Same seed for every T:\n";
  for (float t : temperatures) {
    c.out << "  T = " << label(t) << (t == 0.0f ? " (greedy)" : "") << "\n";
    // every character drawn by exercise 02's function
    const Picker draw = [t](std::span<float> logits, std::size_t, Rng& rng, StepRecord* record) {
      if (record) record->begin(logits, t);  // --trace
      const float coin = rng.uniform();
      const TokenId next = sample_with_temperature(logits, t, coin);
      if (record) record->drawn(t == 0.0f ? -1.0f : coin, next);
      return next;
    };
    print_poems(c, draw, 3);
  }
}

std::string needs(const LessonOptions&) {
  return "\n" + kContext;  // a poem starts after a newline
}

}  // namespace

Section temperature_section() {
  return {"Temperature: the same seed at three temperatures", show_temperatures, needs};
}

}  // namespace tang
