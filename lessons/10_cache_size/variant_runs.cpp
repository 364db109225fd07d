#include "10_cache_size/variant_runs.hpp"

#include <filesystem>

#include "checkpoint.hpp"
#include "errors.hpp"

#ifndef TANG_DATA_DIR
#define TANG_DATA_DIR "data"
#endif

namespace tang {

const std::vector<VariantRun>& variant_runs() {
  static const std::vector<VariantRun> runs = {{"multi_head", "1337"},
                                               {"multi_head_seed2", "2"},
                                               {"grouped_query", "1337"},
                                               {"multi_query", "1337"},
                                               {"latent", "1337"}};
  return runs;
}

std::string default_variants_dir() {
  return std::string(TANG_DATA_DIR) + "/variants";
}

namespace {
std::string path_of(const std::string& dir, const VariantRun& run) {
  return dir + "/" + run.name + ".safetensors";
}
}  // namespace

std::string missing_variants(const std::string& dir) {
  for (const VariantRun& run : variant_runs()) {
    if (!std::filesystem::exists(path_of(dir, run))) {
      return "--variants " + dir + " has no " + run.name +
             ".safetensors: train the five models with scripts/train_variants.sh (it writes "
             "runs/variants/) and pass --variants runs/variants";
    }
  }
  return "";
}

GPT load_variant(const std::string& dir, const VariantRun& run) {
  const std::string missing = missing_variants(dir);
  if (!missing.empty()) throw UserError(missing);
  return load_checkpoint(path_of(dir, run), "--variants");
}

}  // namespace tang
