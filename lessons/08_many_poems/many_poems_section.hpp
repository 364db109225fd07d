// many_poems_section.hpp: section 8, many poems at once and weights below fp32.
#pragma once

#include <string>
#include <vector>

#include "08_many_poems/stored_weights.hpp"
#include "lesson.hpp"

namespace tang {

// Lesson 08's own flags, checked before the lesson prints.
struct ManyPoemsOptions {
  std::size_t batch = 16;        // --batch: poems in flight for the shared opening
  std::string weights = "fp32";  // --weights
  bool skip_big_model = false;   // --no-big-model
  WeightFormat format = WeightFormat::kFp32;
  // The poems' length: --length, or on a model whose context is shorter than
  // its default, the longest that fits.
  std::size_t length = 0;
  CLI::Option* length_flag = nullptr;               // --length, to tell given from default
  std::vector<std::vector<TokenId>> quality_poems;  // held-out poems of --corpus, read first
};

// Section 8, with its flags --batch and --weights.
Section many_poems_section();

}  // namespace tang
