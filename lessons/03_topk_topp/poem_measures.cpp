#include "03_topk_topp/poem_measures.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "utf8.hpp"

namespace tang {

bool is_punctuation(const std::string& character) {
  return character == "，" || character == "。";
}

std::vector<std::string> lines_of_poem(const std::string& poem) {
  std::vector<std::string> lines;
  std::string line;
  for (const std::string& c : utf8_split(poem)) {
    if (is_punctuation(c)) {
      lines.push_back(line);  // the mark ends the line
      line.clear();
    } else {
      line += c;
    }
  }
  return lines;  // what is left in `line` never got its mark
}

LineCopies count_copied_lines(const std::string& poem,
                              const std::unordered_set<std::string>& training_lines) {
  LineCopies count;
  for (const std::string& line : lines_of_poem(poem)) {
    if (utf8_split(line).size() < 5) continue;
    count.long_lines += 1;
    if (training_lines.count(line) > 0) count.copied += 1;
  }
  return count;
}

bool repeats_a_character(const std::string& poem) {
  std::map<std::string, int> seen;
  for (const std::string& c : utf8_split(poem)) {
    if (!is_punctuation(c) && ++seen[c] == 2) return true;
  }
  return false;
}

bool is_regular_verse(const std::string& poem) {
  const std::vector<std::string> characters = utf8_split(poem);
  if (characters.empty() || characters.back() != "。") return false;
  const std::vector<std::string> lines = lines_of_poem(poem);
  const std::size_t length = utf8_split(lines.front()).size();
  if (length != 5 && length != 7) return false;
  for (const std::string& line : lines) {
    const std::vector<std::string> cs = utf8_split(line);
    if (cs.size() != length) return false;
    for (const std::string& c : cs) {
      const char32_t code = utf8_decode_one(c);
      if (code < 0x4E00 || code > 0x9FFF) return false;  // CJK Unified Ideographs only
    }
  }
  return true;
}

double log_probability(std::span<const float> logits, TokenId id) {
  const double max = *std::max_element(logits.begin(), logits.end());
  double sum = 0.0;
  for (const float z : logits) sum += std::exp(static_cast<double>(z) - max);
  return (static_cast<double>(logits[static_cast<std::size_t>(id)]) - max) - std::log(sum);
}

void Tally::add(const std::string& poem, bool ended, double log_p_sum,
                std::size_t scored_characters,
                const std::unordered_set<std::string>& training_lines) {
  poems += 1;
  const LineCopies copies = count_copied_lines(poem, training_lines);
  lines.long_lines += copies.long_lines;
  lines.copied += copies.copied;
  if (repeats_a_character(poem)) repeating += 1;
  if (ended && is_regular_verse(poem)) valid += 1;
  for (const std::string& c : utf8_split(poem)) {
    characters += 1;
    if (!is_punctuation(c)) distinct.insert(c);
  }
  log_p += log_p_sum;
  scored += scored_characters;
}

}  // namespace tang
