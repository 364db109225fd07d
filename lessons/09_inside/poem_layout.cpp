#include "09_inside/poem_layout.hpp"

namespace tang {

PoemLayout layout_of(const Tokenizer& tokenizer, std::span<const TokenId> tokens) {
  const auto comma = tokenizer.find("，"), stop = tokenizer.find("。");
  const TokenId newline = tokenizer.newline();
  PoemLayout p;
  const std::size_t T = tokens.size();
  p.line.assign(T, -1), p.column.assign(T, -1), p.mark.assign(T, false);
  int line = 0, column = 0;
  for (std::size_t t = 0; t < T; ++t) {
    const TokenId id = tokens[t];
    if (id == newline) continue;  // the opening newline (or an ending one) is in no line
    if (id == comma || id == stop) {
      p.mark[t] = true;
      if (column > 0) ++line;  // a mark ends the line it follows
      column = 0;
      continue;
    }
    if (p.lines.size() <= static_cast<std::size_t>(line)) p.lines.resize(line + 1);
    p.line[t] = line, p.column[t] = column++;
    p.lines[line].push_back(t);
  }
  return p;
}

std::vector<std::size_t> rhyme_positions(const PoemLayout& layout) {
  std::vector<std::size_t> positions;
  for (std::size_t i = 1; i < layout.lines.size(); i += 2)
    positions.push_back(layout.lines[i].back());
  return positions;
}

}  // namespace tang
