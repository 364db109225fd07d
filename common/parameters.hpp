// parameters.hpp: every learned number of the GPT, named, in one flat buffer.
//
// As in llm.c, all parameters live in one contiguous float array and each
// weight is a named view into it. Gradients and AdamW moments use the same
// layout, so the optimizer and the checkpoint code are each one loop.
// The names are the tensor names in our safetensors files (docs/checkpoint-format.md).
#pragma once

#include <string>
#include <vector>

#include "config.hpp"
#include "tensor.hpp"

namespace tang {

struct ParameterSpec {
  std::string name;                // e.g. "h.0.attn.qkv.weight"
  std::vector<std::size_t> shape;  // e.g. {3C, C}: (out, in) as in torch.nn.Linear
  std::size_t offset = 0;          // first float in the flat buffer
  std::size_t size = 0;            // number of floats
  bool is_matrix = false;          // 2-D weights get weight decay; vectors do not
};

// The parameters of a config, in buffer order.
std::vector<ParameterSpec> parameter_layout(const GPTConfig& config);
std::size_t parameter_count(const GPTConfig& config);

// One transformer block (pre-LayerNorm): x += attn(ln_1(x)); x += mlp(ln_2(x)).
struct LayerWeights {
  View<1> ln1_w, ln1_b;  // (C)
  View<2> qkv_w;         // (3C, C): rows 0..C-1 make q, then k, then v
  View<1> qkv_b;         // (3C)
  View<2> attn_proj_w;   // (C, C)
  View<1> attn_proj_b;   // (C)
  View<1> ln2_w, ln2_b;  // (C)
  View<2> fc_w;          // (4C, C)
  View<1> fc_b;          // (4C)
  View<2> fc_proj_w;     // (C, 4C)
  View<1> fc_proj_b;     // (C)
};

struct GPTWeights {
  View<2> wte;  // (V, C) token embedding, also the output layer (tied)
  View<2> wpe;  // (T_max, C) position embedding
  std::vector<LayerWeights> layers;
  View<1> lnf_w, lnf_b;  // (C) final LayerNorm
};

// Views into `flat`, which must hold parameter_count(config) floats.
GPTWeights bind_weights(const GPTConfig& config, float* flat);

}  // namespace tang
