// batch_writer.hpp: many poems written together, each as it would be alone.
//
// Every poem has its own seed (its own coins), its own KV cache and its own
// length: a poem that writes its newline leaves the batch, and the others go
// on in a smaller one. Poem b is exactly the poem lesson 06 writes alone with
// Rng(seeds[b]) (tested): batching changes the speed, never the text.
//
// A shared opening is run through the model once (a prefill, lesson 04) and
// its cache copied to every poem, instead of B prefills of the same
// characters (llama.cpp's seq_cp goes further: the poems share the same cells).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "06_kvcache/step_cost.hpp"
#include "08_many_poems/stored_weights.hpp"
#include "gpt.hpp"
#include "sampling.hpp"

namespace tang {

struct BatchedPoems {
  std::vector<std::string> poems;  // (B) the opening + what was written, no newline
  std::size_t steps = 0;           // batched steps run
  std::size_t characters = 0;      // characters written, all poems
  std::vector<StepWork> work;      // (steps) what each batched step pushed through the model
};

// Writes one poem per seed after "\n" + opening, at most max_chars new
// characters each, with up to `batch` poems in flight (the seeds are taken in
// order as places free up). Throws UserError when the opening does not fit the
// context with max_chars more.
BatchedPoems write_batched(const GPT& model, const StoredWeights& weights,
                           std::span<const std::uint64_t> seeds, const std::string& opening,
                           const SamplingSettings& settings, std::size_t max_chars,
                           std::size_t batch);

}  // namespace tang
