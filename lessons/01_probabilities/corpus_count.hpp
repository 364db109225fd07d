// corpus_count.hpp: check the model against the data it learned from.
#pragma once

#include <string>
#include <vector>

namespace tang {

struct FollowCount {
  std::size_t occurrences = 0;  // times `text` appears in the corpus
  std::size_t followed = 0;     // of those, times the next character is `next`
};

// Counts (overlapping) occurrences of `text` in the corpus file, and how many
// are immediately followed by `next`.
FollowCount count_followers(const std::string& corpus_path, const std::string& text,
                            const std::string& next);

// The poems the trainer holds out (every 20th, counting from 0: lesson 00),
// each with its newline: poems the model never trained on.
std::vector<std::string> held_out_poems(const std::string& corpus_path);

}  // namespace tang
