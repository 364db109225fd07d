// stop_strings.hpp: a request's `stop` strings, applied to a text as it is written.
//
// The text must end before the first stop string it would hold, and a stream
// must not send a character that turns out to begin one. So each written
// character goes in, and comes out again only once no stop string can begin at
// or before it: "月" waits while the stop is "月光" and the text ends in "月".
//
//   StopStrings stops({"月光"});
//   stops.add(c)     the characters that can go out now, in order (maybe none)
//   stops.matched()  a stop string was found: nothing more goes out; end the text
//   stops.flush()    the text ended without one: the characters still held
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "11_server/poem_service.hpp"  // WrittenCharacter

namespace tang {

class StopStrings {
 public:
  explicit StopStrings(std::vector<std::string> stops) : stops_(std::move(stops)) {}
  std::vector<WrittenCharacter> add(WrittenCharacter c);
  bool matched() const { return matched_; }
  std::vector<WrittenCharacter> flush();

 private:
  std::vector<std::string> stops_;
  std::deque<WrittenCharacter> held_;  // characters a stop string may begin in
  bool matched_ = false;
};

}  // namespace tang
