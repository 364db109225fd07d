#include "03_topk_topp/topk_topp_section.hpp"

#include <ostream>

#include "02_temperature/poems.hpp"  // lesson 02
#include "03_topk_topp/min_p_sampler.hpp"
#include "03_topk_topp/sampler.hpp"
#include "errors.hpp"

namespace tang {

namespace {

// Three poems with one picker. As run_lesson does for a whole section, a block
// whose exercise is not done yet prints the stub's line in place of its poems,
// and the next block runs: the three blocks need exercises 02, 03 and 03b.
void print_block(LessonContext& c, const Picker& pick) {
  try {
    print_poems(c, pick, 3);
  } catch (const NotImplemented& e) {
    c.out << "  " << e.what() << "\n";
  }
}

void show_topk_topp(LessonContext& c) {
  const float t = c.options.temperature.value_or(1.5f);
  if (c.options.top_k == 0) {
    c.out << "  T = " << label(t) << ", top-k off (--top-k 0): every character may come:\n";
  } else {
    c.out << "  T = " << label(t) << ", only the " << c.options.top_k
          << " most likely characters (top-k = " << c.options.top_k << "):\n";
  }
  print_block(c, sampling_picker({t, c.options.top_k, 1.0f}));
  if (c.options.top_p >= 1.0f) {
    c.out << "  T = " << label(t) << ", top-p off (--top-p 1): every character may come:\n";
  } else {
    c.out << "  T = " << label(t) << ", the smallest set reaching p = " << label(c.options.top_p)
          << " (top-p, exercise 03):\n";
  }
  print_block(c, sampling_picker({t, 0, c.options.top_p}));
  // llama.cpp's defaults: --repeat-penalty 1.1 --repeat-last-n 64 --min-p 0.05
  const MinPSettings s{t, 1.1f, 64, 0.05f};
  c.out << "  T = " << label(t) << ", repetition penalty " << label(s.penalty) << " over the last "
        << s.last_n << " characters, then min-p " << label(s.min_p) << " (exercise 03b):\n";
  print_block(c, min_p_picker(s));
}

std::string needs(const LessonOptions&) {
  return "\n";
}  // a poem starts after a newline

}  // namespace

Section topk_topp_section() {
  return {"Top-k and top-p: a high temperature without the long tail", show_topk_topp, needs};
}

}  // namespace tang
