// fuzz_stop_strings: any bytes as a request's stop strings and a written text,
// fed to lesson 11's StopStrings one character at a time (stop_strings.hpp).
//
// The input's lines: up to four stop strings, then the text (UTF-8 that does not
// split is skipped: the request parser refuses it before a StopStrings exists).
// Writing ends as soon as a stop string is complete: what goes out, character
// by character, then flush(), must be the text before the first place a stop
// string begins in the shortest beginning of the text that holds one (all of
// it when none does), and matched() must say whether one did. Anything else is
// a finding.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "11_server/serving/stop_strings.hpp"
#include "errors.hpp"
#include "fuzz_checks.hpp"
#include "utf8.hpp"

using tang::fuzz::finding;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> lines;
  std::size_t from = 0;
  for (std::size_t at; (at = input.find('\n', from)) != std::string_view::npos && lines.size() < 4;
       from = at + 1)
    lines.emplace_back(input.substr(from, at - from));
  const std::string text(input.substr(from));
  std::vector<std::string> stops, characters;
  try {
    for (const std::string& line : lines)
      if (!line.empty() && !tang::utf8_split(line).empty()) stops.push_back(line);
    characters = tang::utf8_split(text);
  } catch (const tang::UserError&) {
    return 0;
  }
  // the answer, from each beginning of the text, the shortest first
  std::size_t cut = std::string::npos;
  std::string written;
  for (std::size_t i = 0; i < characters.size() && cut == std::string::npos; ++i) {
    written += characters[i];
    for (const std::string& s : stops) cut = std::min(cut, written.find(s));
  }
  const std::string expected = text.substr(0, cut);

  tang::StopStrings matcher(stops);
  std::string sent;
  for (const std::string& c : characters) {
    for (const tang::WrittenCharacter& out : matcher.add({c, 0.5, {}})) sent += out.character;
    if (matcher.matched()) break;
  }
  if (!matcher.matched())
    for (const tang::WrittenCharacter& out : matcher.flush()) sent += out.character;
  if (matcher.matched() != (cut != std::string::npos)) finding("matched() says otherwise", text);
  if (sent != expected) finding("sent another text", sent + " instead of " + expected);
  return 0;
}
