// variant_runs.hpp: the five models scripts/train_variants.sh trains with one
// recipe (the same corpus, steps, batch, learning rate and dropout), and where
// the course keeps them: data/variants/<name>.safetensors, with each run's log
// beside it (<name>.csv).
#pragma once

#include <string>
#include <vector>

#include "gpt.hpp"

namespace tang {

struct VariantRun {
  std::string name;  // the file's stem, e.g. "grouped_query"
  std::string seed;  // the trainer's --seed
};

// In the script's order: multi-head twice (seeds 1337 and 2: how far two runs of
// one recipe land apart), grouped-query (2 key/value heads), multi-query, latent (d_c 32).
const std::vector<VariantRun>& variant_runs();

// data/variants in the source tree.
std::string default_variants_dir();

// The model of `run` in `dir`. Throws UserError naming the file and how to make
// it when it is missing, and every error of load_checkpoint.
GPT load_variant(const std::string& dir, const VariantRun& run);

// "" when `dir` holds all five, else what is missing and how to make it.
std::string missing_variants(const std::string& dir);

}  // namespace tang
