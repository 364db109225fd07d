#include "07_verse/beam_search.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <set>

#include "03_topk_topp/sampler.hpp"         // lesson 03
#include "06_kvcache/kv_cache.hpp"          // lesson 06
#include "07_verse/exercise/beam_step.hpp"  // exercise 07b

namespace tang {

namespace {

struct Beam {
  KVCache cache;                 // this beam's keys and values (lesson 06)
  std::vector<TokenId> context;  // "\n" + the poem so far
  WrittenVerse verse;
};

// ln softmax(logits) into `log_p` (V), and the probability of the characters
// `mask` allows, from one pass of exp (in double for the sum).
double log_softmax(std::span<const float> logits, const LogitMask& mask,
                   std::vector<float>& log_p) {
  const float max = *std::max_element(logits.begin(), logits.end());
  log_p.resize(logits.size());
  double sum = 0.0, allowed = 0.0;
  for (std::size_t i = 0; i < logits.size(); ++i) {
    const double e = std::exp(static_cast<double>(logits[i] - max));
    sum += e;
    if (mask.allows(static_cast<TokenId>(i))) allowed += e;
  }
  const double log_sum = std::log(sum);
  for (std::size_t i = 0; i < logits.size(); ++i) {
    log_p[i] = static_cast<float>(static_cast<double>(logits[i] - max) - log_sum);
  }
  return allowed / sum;
}

}  // namespace

WrittenVerse write_verse(const GPT& model, const VerseConstraint& constraint,
                         const BeamSettings& settings, Rng& rng, std::ostream* trace) {
  const Tokenizer& tokenizer = model.tokenizer();
  const SamplingSettings& sampling = settings.sampling;
  std::vector<Beam> beams;
  beams.push_back(Beam{KVCache(model.config()), tokenizer.encode("\n"), {}});
  Activations acts(model.config());  // shared: the beams run one after the other

  for (std::size_t step = 0; step < constraint.length(); ++step) {
    const std::size_t B = beams.size();
    std::vector<double> scores(B);
    std::vector<std::vector<float>> log_probs(B);  // (B, V)
    std::vector<LogitMask> candidates;             // (B)
    std::vector<double> allowed_mass(B);
    for (std::size_t b = 0; b < B; ++b) {
      Beam& beam = beams[b];
      const std::span<const TokenId> written(beam.context.begin() + 1, beam.context.end());
      // Only the character the cache has not seen goes through the model (the
      // whole "\n" on the first step). A model whose context is shorter than
      // the poem slides its window as lesson 06's CachedPredictor does: the
      // cache is rebuilt from the last block_size characters.
      std::span<const TokenId> window(beam.context);
      if (window.size() > model.config().block_size) {
        window = window.last(model.config().block_size);
        beam.cache.length = 0;
      }
      const std::span<const TokenId> unseen = window.subspan(beam.cache.length);
      const View<2> out = forward_with_cache(model, unseen, beam.cache.length, beam.cache, acts);
      const std::span<const float> logits = require_finite({out.data(), out.size()});
      scores[b] = beam.verse.score;
      const LogitMask mask = constraint.allowed_next(written);
      allowed_mass[b] = log_softmax(logits, mask, log_probs[b]);
      if (sampling.temperature == 0.0f) {
        candidates.push_back(mask);
        continue;
      }
      std::vector<TokenId> drawn;  // `width` draws with the lesson's sampler, each one coin
      for (std::size_t d = 0; d < settings.width; ++d) {
        std::vector<float> z(logits.begin(), logits.end());
        mask.apply(z);
        drawn.push_back(sample_next(z, sampling, rng));
      }
      candidates.push_back(LogitMask(logits.size()).allow_only(drawn));
    }

    const std::vector<BeamChoice> choices =
        beam_step(scores, log_probs, candidates, settings.width);

    // The kept beams: a beam extended once moves on, one extended twice is copied.
    std::vector<std::size_t> children(B, 0);
    for (const BeamChoice& c : choices) ++children.at(c.beam);
    std::vector<Beam> next;
    for (const BeamChoice& c : choices) {
      Beam& parent = beams[c.beam];
      Beam child = --children[c.beam] == 0 ? std::move(parent) : parent;
      const auto t = static_cast<std::size_t>(c.token);
      child.context.push_back(c.token);
      child.verse.tokens.push_back(c.token);
      child.verse.score = c.score;
      child.verse.log_p.push_back(log_probs[c.beam][t]);
      child.verse.allowed_mass.push_back(allowed_mass[c.beam]);
      next.push_back(std::move(child));
    }
    beams = std::move(next);

    if (trace) {
      *trace << "    step " << step + 1 << ":";
      for (std::size_t b = 0; b < beams.size(); ++b) {
        std::string text = tokenizer.decode(beams[b].verse.tokens);
        if (!text.empty() && text.back() == '\n') text.back() = ' ';
        char score[32];
        std::snprintf(score, sizeof score, "%.2f", beams[b].verse.score);
        *trace << (b == 0 ? " " : " | ") << score << " " << text;
      }
      *trace << "\n";
    }
  }
  return std::move(beams.front().verse);  // beam_step returns the best first
}

double mean_log_p_per_character(const WrittenVerse& verse, const VerseVocabulary& vocab) {
  double sum = 0.0;
  std::size_t n = 0;
  for (std::size_t i = 0; i < verse.tokens.size(); ++i) {
    const TokenId t = verse.tokens[i];
    if (t == vocab.comma || t == vocab.full_stop || t == vocab.newline) continue;
    sum += verse.log_p[i];
    ++n;
  }
  return n ? sum / static_cast<double>(n) : 0.0;
}

}  // namespace tang
