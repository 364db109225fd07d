#include "09_inside/head_patterns.hpp"

#include <algorithm>

#include "09_inside/inside_view.hpp"
#include "09_inside/poem_layout.hpp"

namespace tang {

const std::array<const char*, kPatterns> kPatternNames = {
    "self", "previous", "column", "next column", "newline", "rhyme ends", "punctuation"};

namespace {

// For each query t, the positions a pattern looks for (empty: t does not count).
using Targets = std::vector<std::vector<std::size_t>>;

// The six patterns besides "column", which exercise 09a scores.
std::array<Targets, kPatterns> targets_of(const PoemLayout& p) {
  const std::size_t T = p.line.size();
  std::array<Targets, kPatterns> targets;
  for (Targets& t : targets) t.assign(T, {});
  std::vector<std::size_t> rhymes = rhyme_positions(p), marks;
  for (std::size_t t = 0; t < T; ++t) {
    targets[0][t] = {t};
    if (t > 0) targets[1][t] = {t - 1};
    const int line = p.line[t], column = p.column[t];
    if (line >= 1) {  // the previous line's next column, if it has one
      const std::vector<std::size_t>& previous = p.lines[line - 1];
      const std::size_t next_column = static_cast<std::size_t>(column) + 1;
      if (next_column < previous.size()) targets[3][t] = {previous[next_column]};
    }
    targets[4][t] = {0};
    // t predicts the rhyme of line 4 or a later even line: the rhymes before it
    const auto next = std::find(rhymes.begin(), rhymes.end(), t + 1);
    if (next != rhymes.end() && next != rhymes.begin()) targets[5][t].assign(rhymes.begin(), next);
    if (p.mark[t]) marks.push_back(t);
    targets[6][t] = marks;
  }
  return targets;
}

void add(PatternSum& sum, std::span<const float> weights, std::size_t T, std::size_t t,
         const std::vector<std::size_t>& targets) {
  if (targets.empty()) return;
  for (std::size_t s : targets) sum.weight += weights[t * T + s];
  sum.queries += 1;
}

void add_poem(PatternSums& sums, std::span<const float> weights, const PoemLayout& layout,
              const std::array<Targets, kPatterns>& targets) {
  const std::size_t T = layout.line.size();
  for (std::size_t k = 0; k < kPatterns; ++k) {
    if (k == 2) {  // the previous line's column: exercise 09a
      const PatternSum s = previous_line_column(weights, T, layout.line, layout.column);
      sums[k].weight += s.weight, sums[k].queries += s.queries;
      continue;
    }
    for (std::size_t t = 0; t < T; ++t) add(sums[k], weights, T, t, targets[k][t]);
  }
}

}  // namespace

HeadPatterns measure_head_patterns(const GPT& model,
                                   const std::vector<std::vector<TokenId>>& poems) {
  const GPTConfig& cfg = model.config();
  HeadPatterns result;
  result.L = cfg.n_layer, result.NH = cfg.n_head;
  result.heads.assign(result.L * result.NH, {});
  Activations acts(cfg, 1, Keep::kEverything);
  for (const std::vector<TokenId>& poem : poems) {
    const std::size_t T = std::min(poem.size() - 1, cfg.block_size);  // not the final newline
    const std::span<const TokenId> tokens(poem.data(), T);
    const InsideView view = look_inside(model, tokens, acts);
    const PoemLayout layout = layout_of(model.tokenizer(), tokens);
    const auto targets = targets_of(layout);
    for (std::size_t l = 0; l < result.L; ++l) {
      for (std::size_t h = 0; h < result.NH; ++h)
        add_poem(result.heads[l * result.NH + h], view.weights(l, h), layout, targets);
    }
    std::vector<float> uniform(T * T, 0.0f);  // (T, T) 1 / (t + 1) on s <= t
    for (std::size_t t = 0; t < T; ++t)
      std::fill_n(uniform.begin() + t * T, t + 1, 1.0f / static_cast<float>(t + 1));
    add_poem(result.uniform, uniform, layout, targets);
    result.poems += 1, result.positions += T;
  }
  return result;
}

}  // namespace tang
