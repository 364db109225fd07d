// variant_runs.hpp: the twelve models scripts/train_variants.sh trains with one
// recipe (the same corpus, steps, batch, learning rate and dropout, and one
// batch order, --data-seed 1337): four ways of sharing keys and values, each
// with initialisation seeds 1, 2 and 3. The course keeps them in
// data/variants/<variant>_seed<s>.safetensors, each run's log beside it
// (<name>.csv, and the trainer's lines in <name>.txt).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpt.hpp"

namespace tang {

// multi_head, grouped_query (2 key/value heads), multi_query, latent (d_c 32).
const std::vector<std::string>& variant_names();
// The initialisation seeds every variant is trained with: 1, 2, 3.
const std::vector<std::uint64_t>& variant_seeds();
// The seed of the batch order all twelve runs share.
constexpr std::uint64_t kVariantDataSeed = 1337;

struct VariantRun {
  std::string variant;  // e.g. "grouped_query"
  std::uint64_t seed;   // the trainer's --seed
  std::string name() const { return variant + "_seed" + std::to_string(seed); }
};

// Variant by variant, seed by seed: run v * variant_seeds().size() + s.
const std::vector<VariantRun>& variant_runs();

// data/variants in the source tree.
std::string default_variants_dir();

// The model of `run` in `dir`. Throws UserError naming the file and how to make
// it when it is missing, and every error of load_checkpoint.
GPT load_variant(const std::string& dir, const VariantRun& run);

// "" when `dir` holds all twelve, else what is missing and how to make it.
std::string missing_variants(const std::string& dir);

}  // namespace tang
