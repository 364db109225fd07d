#include "checkpoint.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "errors.hpp"
#include "parameters.hpp"

#ifndef TANG_DATA_DIR
#define TANG_DATA_DIR "data"
#endif

namespace tang {

namespace {

[[noreturn]] void bad(const std::string& source, const std::string& what) {
  throw UserError("checkpoint " + source + " " + what +
                  ": use a checkpoint written by lesson_00_train (or the shipped one)");
}

const std::string& require_key(const std::map<std::string, std::string>& metadata,
                               const std::string& key, const std::string& source) {
  auto it = metadata.find(key);
  if (it == metadata.end()) bad(source, "has no '" + key + "' in its metadata");
  return it->second;
}

std::size_t parse_count(const std::map<std::string, std::string>& metadata, const std::string& key,
                        const std::string& source) {
  const std::string& text = require_key(metadata, key, source);
  std::size_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    bad(source, "has metadata " + key + " = '" + text + "', not a whole number");
  }
  return value;
}

}  // namespace

std::map<std::string, std::string> describe_model(const GPTConfig& config,
                                                  const Tokenizer& tokenizer) {
  std::map<std::string, std::string> metadata = {
      {"format", kCheckpointFormat},
      {"n_layer", std::to_string(config.n_layer)},
      {"n_head", std::to_string(config.n_head)},
      {"n_embd", std::to_string(config.n_embd)},
      {"block_size", std::to_string(config.block_size)},
      {"vocab_size", std::to_string(config.vocab_size)},
      {"vocab", nlohmann::json(tokenizer.characters()).dump()}};
  // lesson 10's variants only: a file without them is a multi-head model
  if (config.attention() == Attention::kGroupedQuery)
    metadata["n_kv_head"] = std::to_string(config.kv_heads());
  if (config.attention() == Attention::kLatent)
    metadata["kv_latent"] = std::to_string(config.kv_latent);
  return metadata;
}

GPTConfig config_from_metadata(const std::map<std::string, std::string>& metadata,
                               const std::string& source) {
  const std::string& format = require_key(metadata, "format", source);
  if (format != kCheckpointFormat)
    bad(source, "has format '" + format + "', expected '" + kCheckpointFormat + "'");
  GPTConfig config;
  config.n_layer = parse_count(metadata, "n_layer", source);
  config.n_head = parse_count(metadata, "n_head", source);
  config.n_embd = parse_count(metadata, "n_embd", source);
  config.block_size = parse_count(metadata, "block_size", source);
  config.vocab_size = parse_count(metadata, "vocab_size", source);
  if (metadata.count("n_kv_head") != 0)
    config.n_kv_head = parse_count(metadata, "n_kv_head", source);
  if (metadata.count("kv_latent") != 0)
    config.kv_latent = parse_count(metadata, "kv_latent", source);
  try {
    config.validate();
  } catch (const UserError& e) {
    bad(source, std::string("has metadata that is not a model (") + e.what() + ")");
  }
  return config;
}

Tokenizer tokenizer_from_metadata(const std::map<std::string, std::string>& metadata,
                                  const std::string& source) {
  const std::string& text = require_key(metadata, "vocab", source);
  const auto vocab = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (vocab.is_discarded() || !vocab.is_array())
    bad(source, "has a 'vocab' that is not a JSON array");
  std::vector<std::string> characters;
  for (const auto& c : vocab) {
    if (!c.is_string()) bad(source, "has a 'vocab' entry that is not a string");
    characters.push_back(c.get<std::string>());
  }
  try {
    return Tokenizer(std::move(characters));
  } catch (const UserError& e) {
    bad(source, std::string("has a bad vocabulary (") + e.what() + ")");
  }
}

GPT model_from_safetensors(const SafetensorsFile& file, const std::string& path) {
  const GPTConfig config = config_from_metadata(file.metadata, path);
  Tokenizer tokenizer = tokenizer_from_metadata(file.metadata, path);
  if (tokenizer.size() != config.vocab_size) {
    bad(path, "has vocab_size " + std::to_string(config.vocab_size) + " but " +
                  std::to_string(tokenizer.size()) + " characters in 'vocab'");
  }

  // Every expected tensor exactly once, with its shape and dtype; nothing else.
  // All of it is checked before the parameter buffer is allocated: the metadata
  // alone could ask for terabytes, the tensors in the file cannot.
  const auto layout = parameter_layout(config);
  std::map<std::string, const NamedTensor*> by_name;
  for (const NamedTensor& t : file.tensors) by_name[t.name] = &t;
  std::vector<const NamedTensor*> found;  // in layout order
  for (const ParameterSpec& spec : layout) {
    auto it = by_name.find(spec.name);
    if (it == by_name.end()) {
      bad(path, "has no tensor '" + spec.name + "', which its metadata (" + config.describe() +
                    ") needs");
    }
    const NamedTensor& t = *it->second;
    if (t.shape != spec.shape) {
      auto show = [](const std::vector<std::size_t>& s) {
        std::string r = "(";
        for (std::size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
        return r + ")";
      };
      bad(path, "has tensor '" + spec.name + "' of shape " + show(t.shape) + " but its metadata (" +
                    config.describe() + ") needs " + show(spec.shape));
    }
    if (t.dtype != "F32") {
      bad(path, "has tensor '" + spec.name + "' of dtype " + t.dtype +
                    ", but this course reads float32 (F32) weights only");
    }
    if (t.bytes.size() != spec.size * sizeof(float)) {  // only a file built in memory can get here
      bad(path, "has tensor '" + spec.name + "' with " + std::to_string(t.bytes.size()) +
                    " bytes, but its shape needs " + std::to_string(spec.size * sizeof(float)));
    }
    found.push_back(&t);
    by_name.erase(it);
  }
  if (!by_name.empty()) bad(path, "has an unexpected tensor '" + by_name.begin()->first + "'");

  Tensor<1> parameters = Tensor<1>::from_shape({parameter_count(config)});
  for (std::size_t i = 0; i < layout.size(); ++i) {
    const std::vector<float> values = found[i]->to_floats();
    // A NaN or infinite weight would turn every logit into NaN and the text
    // into garbage without a word: a damaged file (or a diverged training run).
    const auto bad_value =
        std::find_if(values.begin(), values.end(), [](float v) { return !std::isfinite(v); });
    if (bad_value != values.end()) {
      bad(path, "has tensor '" + layout[i].name + "' with a non-finite value (" +
                    std::to_string(*bad_value) + ") at element " +
                    std::to_string(bad_value - values.begin()));
    }
    std::copy(values.begin(), values.end(),
              parameters.begin() + static_cast<std::ptrdiff_t>(layout[i].offset));
  }
  return GPT(config, std::move(tokenizer), std::move(parameters));
}

GPT load_checkpoint(const std::string& path, const std::string& flag) {
  return model_from_safetensors(read_safetensors(path, flag), path);
}

SafetensorsFile model_to_safetensors(const GPT& model,
                                     const std::map<std::string, std::string>& notes) {
  SafetensorsFile file;
  file.metadata = notes;
  for (const auto& [key, value] : describe_model(model.config(), model.tokenizer())) {
    file.metadata[key] = value;
  }
  for (const ParameterSpec& spec : parameter_layout(model.config())) {
    file.tensors.push_back(
        make_f32_tensor(spec.name, spec.shape, model.parameters().data() + spec.offset));
  }
  return file;
}

void save_checkpoint(const std::string& path, const GPT& model,
                     const std::map<std::string, std::string>& notes) {
  write_safetensors(path, model_to_safetensors(model, notes));
}

std::string default_checkpoint_path() {
  return std::string(TANG_DATA_DIR) + "/tang_gpt.safetensors";
}

}  // namespace tang
