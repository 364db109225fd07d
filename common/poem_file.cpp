#include "poem_file.hpp"

#include <filesystem>
#include <fstream>
#include <istream>

#include "errors.hpp"
#include "utf8.hpp"

namespace tang {

LineRead read_line(std::istream& in, std::string& line, std::size_t max_bytes) {
  line.clear();
  std::streambuf* buffer = in.rdbuf();
  if (buffer == nullptr) return LineRead::kEnd;
  for (;;) {
    const int c = buffer->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in.setstate(std::ios::eofbit);
      return line.empty() ? LineRead::kEnd : LineRead::kLine;
    }
    if (c == '\n') return LineRead::kLine;
    if (line.size() == max_bytes) return LineRead::kTooLong;
    line.push_back(static_cast<char>(c));
  }
}

void check_poem_file(const std::string& path, const std::string& flag) {
  const std::string named = flag + " " + path;
  const std::string what_to_do = ": pass the poems, one a line (data/tang_poems.txt)";
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::is_regular_file(status)) {
    throw BadOption(named +
                    (std::filesystem::exists(status) ? " is not a regular file" : " not found") +
                    what_to_do);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw BadOption(named + " cannot be opened: check its permissions");
  std::string line;
  std::size_t number = 0, poems = 0;
  for (LineRead r; (r = read_line(in, line)) != LineRead::kEnd;) {
    ++number;
    const std::string at = named + " line " + std::to_string(number);
    if (r == LineRead::kTooLong) {
      throw BadOption(at + " is longer than " + std::to_string(kMaxPoemLineBytes) +
                      " bytes: a corpus has one poem a line (is it the right file?)");
    }
    if (number == 1 && line.starts_with("\xEF\xBB\xBF")) {
      throw BadOption(named +
                      " starts with a byte-order mark (EF BB BF): save it as UTF-8 without one");
    }
    if (line.find('\r') != std::string::npos) {
      throw BadOption(at +
                      " ends in CR (Windows or old Mac line ends): convert them to LF, "
                      "e.g. tr -d '\\r'");
    }
    try {
      for (std::size_t offset = 0; offset < line.size();) offset += utf8_char_length(line, offset);
    } catch (const UserError& e) {
      throw BadOption(at + ": " + e.what());
    }
    poems += !line.empty();
  }
  if (in.bad()) throw BadOption(named + " could not be read to the end");
  if (poems == 0)
    throw BadOption(named + (number == 0 ? " is empty" : " has no poem, only empty lines") +
                    what_to_do);
}

}  // namespace tang
