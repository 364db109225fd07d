#include "09_inside/knockout.hpp"

#include <algorithm>

#include "03_topk_topp/poem_measures.hpp"
#include "07_verse/check_verse.hpp"
#include "08_many_poems/batch_writer.hpp"
#include "08_many_poems/stored_weights.hpp"

namespace tang {

GPT without_head(const GPT& model, std::size_t layer, std::size_t head) {
  const GPTConfig& cfg = model.config();
  const std::size_t C = cfg.n_embd, HS = cfg.head_size();
  GPT copy(cfg, model.tokenizer(), model.parameters());
  float* proj = copy.weights().layers.at(layer).attn_proj_w;  // (C, C): out[o] = sum_i W[o][i] y[i]
  for (std::size_t o = 0; o < C; ++o)
    std::fill_n(proj + o * C + head * HS, HS, 0.0f);  // head h's output is y[h HS .. h HS + HS)
  return copy;
}

namespace {

double heldout_loss(const GPT& model, const std::vector<std::vector<TokenId>>& poems) {
  Activations acts(model.config(), 1, Keep::kEverything);
  const std::size_t V = model.config().vocab_size;
  double nats = 0.0;
  std::size_t scored = 0;
  for (const std::vector<TokenId>& poem : poems) {
    const std::size_t T = poem.size() - 1;  // position t predicts poem[t + 1]
    const View<2> logits =
        forward(model, std::span(poem.data(), T), acts, LogitsFor::kAllPositions);  // (T, V)
    for (std::size_t t = 0; t < T; ++t)
      nats -= log_probability(std::span(logits.data() + t * V, V), poem[t + 1]);
    scored += T;
  }
  return scored > 0 ? nats / static_cast<double>(scored) : 0.0;
}

}  // namespace

ModelScore score_model(const GPT& model, const KnockoutBench& bench) {
  ModelScore score;
  score.loss = heldout_loss(model, bench.heldout);
  const StoredWeights weights(model, WeightFormat::kFp32);
  const BatchedPoems written =
      write_batched(model, weights, bench.seeds, "", bench.settings, bench.max_chars, 32);
  for (const std::string& poem : written.poems) {
    score.poems += 1;
    if (!is_regular_verse(poem)) continue;
    score.in_form += 1;
    if (check_verse(poem, *bench.tables).rhyme_ok()) score.rhyming += 1;
  }
  for (const std::string& poem : written.poems) {
    const LineCopies copies = count_copied_lines(poem, *bench.training_lines);
    score.lines += copies.long_lines, score.copied += copies.copied;
  }
  return score;
}

}  // namespace tang
