#include "topk_topp_section.hpp"

#include <ostream>

#include "sampler.hpp"

namespace tang {

namespace {

void show_topk_topp(LessonContext& c) {
  const float t = temperature_or(c.options, 1.5f);
  if (c.options.top_k == 0) {
    c.out << "  T = " << label(t) << ", top-k off (--top-k 0): every character may come:\n";
  } else {
    c.out << "  T = " << label(t) << ", only the " << c.options.top_k
          << " most likely characters (top-k = " << c.options.top_k << "):\n";
  }
  print_poems(c, sampling_picker({t, c.options.top_k, 1.0f, c.trace}), 3);
  if (c.options.top_p >= 1.0f) {
    c.out << "  T = " << label(t) << ", top-p off (--top-p 1): every character may come:\n";
  } else {
    c.out << "  T = " << label(t) << ", the smallest set reaching p = " << label(c.options.top_p)
          << " (top-p, exercise 03):\n";
  }
  print_poems(c, sampling_picker({t, 0, c.options.top_p, c.trace}), 3);
}

std::string needs(const LessonOptions&) {
  return "\n";
}  // a poem starts after a newline

}  // namespace

Section topk_topp_section() {
  return {"Top-k and top-p: a high temperature without the long tail", show_topk_topp, needs};
}

}  // namespace tang
