#include "topk_topp_section.hpp"

#include <cstdio>
#include <ostream>

#include "sampler.hpp"

namespace tang {

namespace {

void show_topk_topp(LessonContext& c) {
  const float t = temperature_or(c.options, 1.5f);
  char heading[96];
  std::snprintf(heading, sizeof heading,
                "  T = %.1f, only the %zu most likely characters (top-k = %zu):\n", t,
                c.options.top_k, c.options.top_k);
  c.out << heading;
  print_poems(c, sampling_picker({t, c.options.top_k, 1.0f}), 3);
  std::snprintf(heading, sizeof heading,
                "  T = %.1f, the smallest set reaching p = %.2f (top-p, exercise 03):\n", t,
                c.options.top_p);
  c.out << heading;
  print_poems(c, sampling_picker({t, 0, c.options.top_p}), 3);
}

std::string needs(const LessonOptions&) { return "\n"; }  // a poem starts after a newline

}  // namespace

Section topk_topp_section() {
  return {"Top-k and top-p: a high temperature without the long tail", show_topk_topp, needs};
}

}  // namespace tang
