#include "parameters.hpp"

namespace tang {

std::vector<ParameterSpec> parameter_layout(const GPTConfig& config) {
  const std::size_t C = config.n_embd, V = config.vocab_size, T = config.block_size;
  std::vector<ParameterSpec> specs;
  std::size_t offset = 0;
  auto add = [&](std::string name, std::vector<std::size_t> shape) {
    std::size_t size = 1;
    for (std::size_t d : shape) size *= d;
    const bool is_matrix = shape.size() == 2;
    specs.push_back({std::move(name), std::move(shape), offset, size, is_matrix});
    offset += size;
  };
  add("wte.weight", {V, C});
  add("wpe.weight", {T, C});
  for (std::size_t l = 0; l < config.n_layer; ++l) {
    const std::string p = "h." + std::to_string(l) + ".";
    add(p + "ln_1.weight", {C});
    add(p + "ln_1.bias", {C});
    add(p + "attn.qkv.weight", {3 * C, C});
    add(p + "attn.qkv.bias", {3 * C});
    add(p + "attn.proj.weight", {C, C});
    add(p + "attn.proj.bias", {C});
    add(p + "ln_2.weight", {C});
    add(p + "ln_2.bias", {C});
    add(p + "mlp.fc.weight", {4 * C, C});
    add(p + "mlp.fc.bias", {4 * C});
    add(p + "mlp.proj.weight", {C, 4 * C});
    add(p + "mlp.proj.bias", {C});
  }
  add("ln_f.weight", {C});
  add("ln_f.bias", {C});
  return specs;
}

std::size_t parameter_count(const GPTConfig& config) {
  const auto specs = parameter_layout(config);
  return specs.back().offset + specs.back().size;
}

GPTWeights bind_weights(const GPTConfig& config, float* flat) {
  const auto specs = parameter_layout(config);
  std::size_t next = 0;  // walks the specs in the order parameter_layout added them
  auto vec = [&]() {
    const ParameterSpec& s = specs[next++];
    return view_of<1>(flat + s.offset, {s.shape[0]});
  };
  auto mat = [&]() {
    const ParameterSpec& s = specs[next++];
    return view_of<2>(flat + s.offset, {s.shape[0], s.shape[1]});
  };
  auto wte = mat();
  auto wpe = mat();
  std::vector<LayerWeights> layers;
  for (std::size_t l = 0; l < config.n_layer; ++l) {
    // Braced initialisation runs left to right, the order of parameter_layout.
    layers.push_back(LayerWeights{vec(), vec(), mat(), vec(), mat(), vec(), vec(), vec(), mat(),
                                  vec(), mat(), vec()});
  }
  auto lnf_w = vec();
  auto lnf_b = vec();
  return GPTWeights{std::move(wte), std::move(wpe), std::move(layers), std::move(lnf_w),
                    std::move(lnf_b)};
}

}  // namespace tang
