#include "08_many_poems/big_model.hpp"

#include <chrono>
#include <stdexcept>
#include <vector>

#include "parameters.hpp"
#include "rng.hpp"
#include "spread.hpp"

namespace tang {

GPT gpt2_small_shaped(const Tokenizer& tokenizer, std::uint64_t seed) {
  GPTConfig config;
  config.n_layer = 12;
  config.n_head = 12;
  config.n_embd = 768;
  config.block_size = 128;
  config.vocab_size = tokenizer.size();
  return initialised_model(config, tokenizer, seed);
}

double time_batched_step_ms(const GPT& model, const StoredWeights& weights, std::size_t B,
                            std::size_t cached, std::size_t steps,
                            const SamplingSettings& settings) {
  if (steps == 0) throw std::invalid_argument("time_batched_step_ms: time at least one step");
  BatchedStep<> step(model, weights, B, cached, settings);
  step.run();  // warms up
  std::vector<double> times;
  for (std::size_t s = 0; s < steps; ++s) {
    const auto start = std::chrono::steady_clock::now();
    step.run();
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
  }
  return median(times);
}

}  // namespace tang
