#include "10_cache_size/variant_runs.hpp"

#include <filesystem>

#include "checkpoint.hpp"
#include "errors.hpp"
#include "safetensors.hpp"

#ifndef TANG_DATA_DIR
#define TANG_DATA_DIR "data"
#endif

namespace tang {

const std::vector<std::string>& variant_names() {
  static const std::vector<std::string> names = {"multi_head", "grouped_query", "multi_query",
                                                 "latent"};
  return names;
}

const std::vector<std::uint64_t>& variant_seeds() {
  static const std::vector<std::uint64_t> seeds = {1, 2, 3};
  return seeds;
}

const std::vector<VariantRun>& variant_runs() {
  static const std::vector<VariantRun> runs = [] {
    std::vector<VariantRun> all;
    for (const std::string& variant : variant_names())
      for (const std::uint64_t seed : variant_seeds()) all.push_back({variant, seed});
    return all;
  }();
  return runs;
}

std::string default_variants_dir() {
  return std::string(TANG_DATA_DIR) + "/variants";
}

namespace {
std::string path_of(const std::string& dir, const VariantRun& run) {
  return dir + "/" + run.name() + ".safetensors";
}
}  // namespace

std::string missing_variants(const std::string& dir) {
  for (const VariantRun& run : variant_runs()) {
    if (!std::filesystem::exists(path_of(dir, run))) {
      return "--variants " + dir + " has no " + run.name() +
             ".safetensors: train the twelve models with scripts/train_variants.sh (it writes "
             "runs/variants/) and pass --variants runs/variants";
    }
  }
  return "";
}

GPT load_variant(const std::string& dir, const VariantRun& run) {
  const std::string missing = missing_variants(dir);
  if (!missing.empty()) throw UserError(missing);
  const std::string path = path_of(dir, run);
  const SafetensorsFile file = read_safetensors(path, "--variants");
  // The pairs are only pairs if the trainer's metadata says so.
  const auto note = [&](const std::string& key) {
    const auto it = file.metadata.find(key);
    return it == file.metadata.end() ? std::string("none") : it->second;
  };
  const std::string data_seed = std::to_string(kVariantDataSeed);
  if (note("seed") != std::to_string(run.seed) || note("data_seed") != data_seed) {
    throw UserError("--variants " + dir + ": " + run.name() +
                    ".safetensors was trained with seed " + note("seed") + " and data seed " +
                    note("data_seed") + ", not seed " + std::to_string(run.seed) +
                    " and data seed " + data_seed +
                    ": lesson 10 compares runs that saw the same batches; train them with "
                    "scripts/train_variants.sh");
  }
  return model_from_safetensors(file, path);
}

}  // namespace tang
