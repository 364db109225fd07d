#include "00_train/train_state.hpp"

#include <algorithm>

#include "checkpoint.hpp"
#include "errors.hpp"
#include "safetensors.hpp"

namespace tang {

void save_train_state(const std::string& path, const TrainableGPT& model, const AdamW& optimizer,
                      const Tokenizer& tokenizer, const TrainProgress& progress,
                      const std::map<std::string, std::string>& settings) {
  SafetensorsFile file;
  file.metadata = describe_model(model.config(), tokenizer);
  for (const auto& [key, value] : settings) file.metadata["setting." + key] = value;
  file.metadata["step"] = std::to_string(progress.step);
  file.metadata["rng_state"] = std::to_string(progress.rng_state);
  file.metadata["elapsed_seconds"] = std::to_string(progress.elapsed_seconds);
  if (!progress.pending_row.empty()) file.metadata["pending_row"] = progress.pending_row;
  for (std::size_t i = 0; i < progress.outputs.size(); ++i)
    file.metadata["output." + std::to_string(i)] = progress.outputs[i];
  const std::vector<std::size_t> shape{model.params.size()};
  file.tensors.push_back(make_f32_tensor("params", shape, model.params.data()));
  file.tensors.push_back(make_f32_tensor("adam.m", shape, optimizer.m.data()));
  file.tensors.push_back(make_f32_tensor("adam.v", shape, optimizer.v.data()));
  write_safetensors(path, file);
}

namespace {

std::vector<std::string> outputs_of(const SafetensorsFile& file) {
  std::vector<std::string> outputs;
  for (std::size_t i = 0;; ++i) {
    const auto it = file.metadata.find("output." + std::to_string(i));
    if (it == file.metadata.end()) return outputs;
    outputs.push_back(it->second);
  }
}

}  // namespace

std::vector<std::string> outputs_recorded_in(const std::string& path) {
  return outputs_of(read_safetensors(path, "--state"));
}

TrainProgress load_train_state(const std::string& path, TrainableGPT& model, AdamW& optimizer,
                               const Tokenizer& tokenizer,
                               const std::map<std::string, std::string>& settings) {
  const SafetensorsFile file = read_safetensors(path, "--state");
  const auto refuse = [&](const std::string& why) {
    throw UserError(
        "cannot resume from " + path + ": " + why +
        "; resume it with the settings it was made with, or start afresh with another --state");
  };
  const GPTConfig saved = config_from_metadata(file.metadata, path);
  const GPTConfig& ours = model.config();
  if (saved.describe() != ours.describe()) {  // every number of the shape, the variant too
    refuse("it holds a model of " + saved.describe() + ", this run builds " + ours.describe());
  }
  if (tokenizer_from_metadata(file.metadata, path).characters() != tokenizer.characters()) {
    refuse("its vocabulary differs from this corpus");
  }
  for (const auto& [key, value] : settings) {
    auto it = file.metadata.find("setting." + key);
    if (it != file.metadata.end() && it->second != value) {
      refuse("it was trained with " + key + " = " + it->second + ", this run asks for " + value);
    }
  }
  auto tensor = [&](const std::string& name) -> std::vector<float> {
    auto it = std::find_if(file.tensors.begin(), file.tensors.end(),
                           [&](const NamedTensor& t) { return t.name == name; });
    if (it == file.tensors.end()) refuse("it has no tensor '" + name + "'");
    std::vector<float> values = it->to_floats();
    if (values.size() != model.params.size()) refuse("tensor '" + name + "' has the wrong size");
    return values;
  };
  const auto params = tensor("params"), m = tensor("adam.m"), v = tensor("adam.v");
  std::copy(params.begin(), params.end(), model.params.begin());
  std::copy(m.begin(), m.end(), optimizer.m.begin());
  std::copy(v.begin(), v.end(), optimizer.v.begin());

  TrainProgress progress;
  try {
    progress.step = std::stol(file.metadata.at("step"));
    progress.rng_state = std::stoull(file.metadata.at("rng_state"));
    progress.elapsed_seconds = std::stod(file.metadata.at("elapsed_seconds"));
  } catch (const std::exception&) {
    refuse("its step, rng_state or elapsed_seconds metadata is missing or not a number");
  }
  if (const auto it = file.metadata.find("pending_row"); it != file.metadata.end())
    progress.pending_row = it->second;
  progress.outputs = outputs_of(file);
  return progress;
}

}  // namespace tang
