// checkpoint.hpp: a whole model in one safetensors file.
//
// Tensors: the parameters under the names of parameter_layout(), float32.
// __metadata__ (all strings, as safetensors requires):
//   "format": "tang-gpt-1"
//   "n_layer", "n_head", "n_embd", "block_size", "vocab_size": decimal numbers
//   "vocab": a JSON array of the characters in id order ("\n" first)
//   "n_kv_head" or "kv_latent": only in lesson 10's variants (config.hpp)
//   any other keys are kept as notes (e.g. how the model was trained)
// See docs/checkpoint-format.md.
#pragma once

#include <map>
#include <string>

#include "gpt.hpp"
#include "safetensors.hpp"

namespace tang {

inline constexpr const char* kCheckpointFormat = "tang-gpt-1";

// The model a safetensors file describes. Throws UserError naming what is
// wrong: metadata missing or disagreeing with the tensors, a missing or extra
// tensor, a bad vocabulary, and every format error of parse_safetensors().
GPT model_from_safetensors(const SafetensorsFile& file, const std::string& source);
// `flag` names the option the path came from, for the "not found" message.
GPT load_checkpoint(const std::string& path, const std::string& flag = "--checkpoint");

SafetensorsFile model_to_safetensors(const GPT& model,
                                     const std::map<std::string, std::string>& notes = {});
void save_checkpoint(const std::string& path, const GPT& model,
                     const std::map<std::string, std::string>& notes = {});

// Config and vocabulary as metadata entries, and back (shared with the trainer's state file).
std::map<std::string, std::string> describe_model(const GPTConfig& config,
                                                  const Tokenizer& tokenizer);
GPTConfig config_from_metadata(const std::map<std::string, std::string>& metadata,
                               const std::string& source);
Tokenizer tokenizer_from_metadata(const std::map<std::string, std::string>& metadata,
                                  const std::string& source);

// The shipped model, data/tang_gpt.safetensors in the source tree.
std::string default_checkpoint_path();

}  // namespace tang
