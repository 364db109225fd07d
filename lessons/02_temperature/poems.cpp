#include "02_temperature/poems.hpp"

#include <ostream>
#include <string>

#include "trace.hpp"

namespace tang {

StepReport step_lines(LessonContext& c) {
  if (!c.options.trace) return {};
  return [&c](std::size_t step, const StepRecord& record) {
    c.out << step_line(record, step, c.model.tokenizer());
  };
}

void print_poems(LessonContext& c, const Picker& pick, std::size_t count) {
  Recompute predictor(c.model);
  Rng rng(c.options.seed);
  const StepReport report = step_lines(c);
  for (std::size_t i = 0; i < count; ++i) {
    const std::string poem =
        write_poem(predictor, c.model.tokenizer(), "", pick, rng, c.options.length, report);
    c.out << "    " << poem << "\n";
  }
}

}  // namespace tang
