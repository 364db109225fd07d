#include "parameters.hpp"

#include <cmath>

namespace tang {

namespace {

// A dimension of a parameter's shape, resolved against a config.
enum class Dim { V, T, C, C2, C3, C4, P, DC };

std::size_t resolve(Dim d, const GPTConfig& c) {
  switch (d) {
    case Dim::V:
      return c.vocab_size;
    case Dim::T:
      return c.block_size;
    case Dim::C:
      return c.n_embd;
    case Dim::C2:
      return 2 * c.n_embd;
    case Dim::C3:
      return 3 * c.n_embd;
    case Dim::P:  // queries and what the cache keeps: 3C for multi-head attention
      return c.proj_width();
    case Dim::DC:
      return c.kv_latent;
    case Dim::C4:
      return 4 * c.n_embd;
  }
  return 0;
}

// Which models have a parameter.
enum class Has { kAll, kQkv, kLatent };

bool has(Has which, const GPTConfig& c) {
  const bool latent = c.attention() == Attention::kLatent;
  return which == Has::kAll || (which == Has::kLatent) == latent;
}

template <typename Weights>
struct Entry {
  const char* name;
  std::vector<Dim> shape;
  Init init;
  float* Weights::*field;
  Has which = Has::kAll;
};

// THE table. Buffer order: wte, wpe, then every block (h.0., h.1., ...), then ln_f.
const std::vector<Entry<GPTWeights>> kModelBefore = {
    {"wte.weight", {Dim::V, Dim::C}, Init::kNormal, &GPTWeights::wte},
    {"wpe.weight", {Dim::T, Dim::C}, Init::kNormal, &GPTWeights::wpe},
};
const std::vector<Entry<LayerWeights>> kBlock = {
    {"ln_1.weight", {Dim::C}, Init::kOnes, &LayerWeights::ln1_w},
    {"ln_1.bias", {Dim::C}, Init::kZeros, &LayerWeights::ln1_b},
    // queries, keys and values (multi-head: P = 3C; grouped: P = C + 2 KVH HS)
    {"attn.qkv.weight", {Dim::P, Dim::C}, Init::kNormal, &LayerWeights::qkv_w, Has::kQkv},
    {"attn.qkv.bias", {Dim::P}, Init::kZeros, &LayerWeights::qkv_b, Has::kQkv},
    // latent attention: queries and the latent (P = C + d_c), then keys and values from it
    {"attn.q_latent.weight", {Dim::P, Dim::C}, Init::kNormal, &LayerWeights::qkv_w, Has::kLatent},
    {"attn.q_latent.bias", {Dim::P}, Init::kZeros, &LayerWeights::qkv_b, Has::kLatent},
    {"attn.kv_up.weight", {Dim::C2, Dim::DC}, Init::kFanIn, &LayerWeights::kv_up_w, Has::kLatent},
    {"attn.proj.weight", {Dim::C, Dim::C}, Init::kNormal, &LayerWeights::attn_proj_w},
    {"attn.proj.bias", {Dim::C}, Init::kZeros, &LayerWeights::attn_proj_b},
    {"ln_2.weight", {Dim::C}, Init::kOnes, &LayerWeights::ln2_w},
    {"ln_2.bias", {Dim::C}, Init::kZeros, &LayerWeights::ln2_b},
    {"mlp.fc.weight", {Dim::C4, Dim::C}, Init::kNormal, &LayerWeights::fc_w},
    {"mlp.fc.bias", {Dim::C4}, Init::kZeros, &LayerWeights::fc_b},
    {"mlp.proj.weight", {Dim::C, Dim::C4}, Init::kNormal, &LayerWeights::fc_proj_w},
    {"mlp.proj.bias", {Dim::C}, Init::kZeros, &LayerWeights::fc_proj_b},
};
const std::vector<Entry<GPTWeights>> kModelAfter = {
    {"ln_f.weight", {Dim::C}, Init::kOnes, &GPTWeights::lnf_w},
    {"ln_f.bias", {Dim::C}, Init::kZeros, &GPTWeights::lnf_b},
};

// Walks the table in buffer order: visit(spec, field of GPTWeights or nullptr,
// layer index and field of LayerWeights or nullptr).
template <typename Visit>
void walk(const GPTConfig& config, Visit visit) {
  std::size_t offset = 0;
  auto spec_of = [&](const std::string& name, const std::vector<Dim>& dims, Init init) {
    ParameterSpec spec{name, {}, init, offset, 1};
    for (Dim d : dims) {
      spec.shape.push_back(resolve(d, config));
      spec.size *= spec.shape.back();
    }
    offset += spec.size;
    return spec;
  };
  for (const auto& e : kModelBefore) visit(spec_of(e.name, e.shape, e.init), e.field, 0, nullptr);
  for (std::size_t l = 0; l < config.n_layer; ++l) {
    const std::string prefix = "h." + std::to_string(l) + ".";
    for (const auto& e : kBlock) {
      if (has(e.which, config))
        visit(spec_of(prefix + e.name, e.shape, e.init), nullptr, l, e.field);
    }
  }
  for (const auto& e : kModelAfter) visit(spec_of(e.name, e.shape, e.init), e.field, 0, nullptr);
}

}  // namespace

std::vector<ParameterSpec> parameter_layout(const GPTConfig& config) {
  std::vector<ParameterSpec> specs;
  walk(config,
       [&](ParameterSpec spec, auto, std::size_t, auto) { specs.push_back(std::move(spec)); });
  return specs;
}

std::size_t parameter_count(const GPTConfig& config) {
  const auto specs = parameter_layout(config);
  return specs.back().offset + specs.back().size;
}

GPTWeights bind_weights(const GPTConfig& config, float* flat) {
  GPTWeights w{};
  w.layers.resize(config.n_layer);
  walk(config, [&](const ParameterSpec& spec, float* GPTWeights::*model_field, std::size_t layer,
                   float* LayerWeights::*layer_field) {
    if (model_field) w.*model_field = flat + spec.offset;
    if (layer_field) w.layers[layer].*layer_field = flat + spec.offset;
  });
  return w;
}

void initialise_parameters(const GPTConfig& config, float* flat, Rng& rng) {
  for (const ParameterSpec& spec : parameter_layout(config)) {
    float* p = flat + spec.offset;
    for (std::size_t i = 0; i < spec.size; ++i) {
      switch (spec.init) {
        case Init::kNormal:
          p[i] = 0.02f * rng.normal();
          break;
        case Init::kFanIn:  // one draw per weight, as kNormal: the same stream of numbers
          p[i] = rng.normal() / std::sqrt(static_cast<float>(spec.shape[1]));
          break;
        case Init::kZeros:
          p[i] = 0.0f;
          break;
        case Init::kOnes:
          p[i] = 1.0f;
          break;
      }
    }
  }
}

}  // namespace tang
