#include "08_many_poems/weight_quality.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>
#include <stdexcept>

#include "06_kvcache/kv_cache.hpp"
#include "errors.hpp"

namespace tang {

namespace {

// softmax in double: (V) -> (V)
void probabilities(const float* logits, std::size_t V, std::vector<double>& p) {
  const float max = *std::max_element(logits, logits + V);
  double sum = 0.0;
  p.resize(V);
  for (std::size_t i = 0; i < V; ++i) sum += p[i] = std::exp(static_cast<double>(logits[i] - max));
  for (double& x : p) x /= sum;
}

}  // namespace

WeightQuality compare_with_fp32(const GPT& model, const StoredWeights& fp32,
                                const StoredWeights& weights,
                                const std::vector<std::vector<TokenId>>& poems, std::size_t batch) {
  const GPTConfig& cfg = model.config();
  const std::size_t V = cfg.vocab_size;
  for (const auto& poem : poems) {
    if (poem.size() < 2 || poem.size() > cfg.block_size + 1)
      throw std::invalid_argument("compare_with_fp32: a poem of " + std::to_string(poem.size()) +
                                  " ids does not fit the context");
  }
  Activations ours = step_activations(cfg, batch), theirs = step_activations(cfg, batch);
  WeightQuality q;
  double loss = 0.0, fp32_loss = 0.0, kl = 0.0;
  std::size_t same = 0;
  std::vector<double> p32, p;
  for (std::size_t first = 0; first < poems.size(); first += batch) {
    const std::size_t B = std::min(batch, poems.size() - first);
    std::vector<std::unique_ptr<KVCache>> c32, c;
    for (std::size_t b = 0; b < B; ++b) {
      c32.push_back(std::make_unique<KVCache>(cfg));
      c.push_back(std::make_unique<KVCache>(cfg));
    }
    for (std::size_t t = 0;; ++t) {   // step t feeds character t, predicts t + 1
      std::vector<std::size_t> rows;  // the poems that still have a character to predict
      std::vector<TokenId> tokens;
      std::vector<KVCache*> k32, k;
      for (std::size_t b = 0; b < B; ++b) {
        const auto& poem = poems[first + b];
        if (t + 1 >= poem.size()) continue;
        rows.push_back(b);
        tokens.push_back(poem[t]);
        k32.push_back(c32[b].get());
        k.push_back(c[b].get());
      }
      if (rows.empty()) break;
      const View<2> z32 =
          forward_with_cache(model, fp32, tokens, k32, theirs, LogitsFor::kLastPosition);  // (n, V)
      const View<2> z =
          forward_with_cache(model, weights, tokens, k, ours, LogitsFor::kLastPosition);
      for (std::size_t r = 0; r < rows.size(); ++r) {
        const auto target = static_cast<std::size_t>(poems[first + rows[r]][t + 1]);
        probabilities(z32.data() + r * V, V, p32);
        probabilities(z.data() + r * V, V, p);
        loss -= std::log(p[target]);
        fp32_loss -= std::log(p32[target]);
        for (std::size_t i = 0; i < V; ++i) {
          if (p32[i] > 0.0) kl += p32[i] * std::log(p32[i] / std::max(p[i], 1e-300));
        }
        same += std::max_element(p32.begin(), p32.end()) - p32.begin() ==
                std::max_element(p.begin(), p.end()) - p.begin();
        ++q.positions;
      }
    }
  }
  const double n = static_cast<double>(std::max<std::size_t>(q.positions, 1));
  q.loss = loss / n;
  q.fp32_loss = fp32_loss / n;
  q.kl = kl / n;
  q.top1 = static_cast<double>(same) / n;
  return q;
}

std::vector<std::vector<TokenId>> heldout_poems(const GPT& model, const std::string& corpus,
                                                std::size_t count) {
  std::ifstream in(corpus);
  if (!in) throw BadOption("--corpus " + corpus + " cannot be read: pass the poems, one a line");
  std::vector<std::vector<TokenId>> poems;
  std::size_t index = 0;
  for (std::string line; poems.size() < count && std::getline(in, line); ++index) {
    if (index % 20 != 0 || line.empty()) continue;
    std::vector<TokenId> ids;
    try {
      ids = model.tokenizer().encode("\n" + line + "\n");
    } catch (const UserError& e) {
      throw BadOption("--corpus " + corpus + " line " + std::to_string(index + 1) + ": " +
                      e.what() + "; pass the corpus the model was trained on");
    }
    if (ids.size() <= model.config().block_size + 1) poems.push_back(std::move(ids));
  }
  return poems;
}

}  // namespace tang
