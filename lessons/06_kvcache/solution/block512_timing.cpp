// SOLUTION to exercise 06b (the learner's file is exercise/block512_timing.cpp,
// whose comment specifies the behaviour).

#include "06_kvcache/exercise/block512_timing.hpp"

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "06_kvcache/cache_timing.hpp"
#include "parameters.hpp"
#include "rng.hpp"

namespace tang::reference {

namespace {

// Context 512, everything else the course's model, random weights.
GPT random_block512_model(std::uint64_t seed) {
  GPTConfig config;
  config.block_size = 512;
  config.n_layer = 4;
  config.n_head = 4;
  config.n_embd = 128;
  Tokenizer tokenizer({"\n", "春", "风", "花", "月", "夜", "山", "水", "人", "，", "。"});
  config.vocab_size = tokenizer.size();
  Rng rng(seed);
  Tensor<1> parameters = Tensor<1>::from_shape({parameter_count(config)});
  initialise_parameters(config, parameters.data(), rng);
  return GPT(config, std::move(tokenizer), std::move(parameters));
}

}  // namespace

CacheRatio time_block512(std::size_t n_chars, std::uint64_t seed) {
  if (n_chars == 0 || n_chars > 511) {
    throw std::invalid_argument("time_block512: n_chars must be in 1 .. 511, not " +
                                std::to_string(n_chars));
  }
  const GPT model = random_block512_model(seed);
  const SamplingSettings plain{1.0f, 0, 1.0f};  // temperature 1, no top-k, no top-p
  const TimedText without = write_chars(model, /*use_cache=*/false, n_chars, plain, seed);
  const TimedText with = write_chars(model, /*use_cache=*/true, n_chars, plain, seed);

  CacheRatio result;
  result.config = model.config();
  result.without_cache_ms = without.milliseconds;
  result.with_cache_ms = with.milliseconds;
  result.ratio = without.milliseconds / with.milliseconds;
  result.text_without_cache = model.tokenizer().decode(without.ids);
  result.text_with_cache = model.tokenizer().decode(with.ids);
  return result;
}

}  // namespace tang::reference
