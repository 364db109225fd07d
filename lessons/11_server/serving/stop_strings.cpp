#include "11_server/serving/stop_strings.hpp"

#include <algorithm>

namespace tang {

std::vector<WrittenCharacter> StopStrings::add(WrittenCharacter c) {
  if (matched_) return {};
  held_.push_back(std::move(c));
  std::string text;  // the held characters, one after another
  for (const WrittenCharacter& h : held_) text += h.character;
  // A stop string in the held text: what comes before it goes out, the rest never.
  std::size_t cut = std::string::npos;
  for (const std::string& s : stops_) cut = std::min(cut, text.find(s));
  // Otherwise the held text keeps its longest end that begins a stop string.
  std::size_t keep_from = text.size();
  if (cut == std::string::npos) {
    for (const std::string& s : stops_) {
      for (std::size_t from = text.size() - std::min(text.size(), s.size() - 1); from < keep_from;
           ++from) {
        if (s.compare(0, text.size() - from, text, from) == 0) {
          keep_from = from;
          break;
        }
      }
    }
  } else {
    matched_ = true;
    keep_from = cut;
  }
  // Stop strings are whole characters of UTF-8, so both ends fall between characters.
  std::vector<WrittenCharacter> out;
  std::size_t at = 0;
  while (!held_.empty() && at + held_.front().character.size() <= keep_from) {
    at += held_.front().character.size();
    out.push_back(std::move(held_.front()));
    held_.pop_front();
  }
  if (matched_) held_.clear();
  return out;
}

std::vector<WrittenCharacter> StopStrings::flush() {
  std::vector<WrittenCharacter> out(std::make_move_iterator(held_.begin()),
                                    std::make_move_iterator(held_.end()));
  held_.clear();
  return out;
}

}  // namespace tang
