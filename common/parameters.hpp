// parameters.hpp: every learned number of the GPT, named, in one flat buffer.
//
// One table (parameters.cpp) lists each parameter once: its name in our
// checkpoints, its shape, how training initialises it, and the field of
// LayerWeights / GPTWeights that points at it. Everything else is derived from
// that table: the buffer layout, the checkpoint tensor names, the random
// initialisation, and the named views into the weights, their gradients
// (same layout) and AdamW's moments. As in llm.c, all parameters live in one
// contiguous float array, so the optimizer and the checkpoint code are one loop each.
#pragma once

#include <string>
#include <vector>

#include "config.hpp"
#include "rng.hpp"
#include "tensor.hpp"

namespace tang {

// How training starts a parameter: GPT-2's rule.
enum class Init {
  kNormal,  // matrices: N(0, 0.02^2)
  kFanIn,   // latent attention's kv_up (2C, d_c): N(0, 1/d_c), so that keys and values
            // rebuilt from the latent start at the scale a multi-head model's keys have
  kZeros,   // biases
  kOnes,    // LayerNorm scales
};

struct ParameterSpec {
  std::string name;                // e.g. "h.0.attn.qkv.weight"
  std::vector<std::size_t> shape;  // e.g. {3C, C}: (out, in) as in torch.nn.Linear
  Init init = Init::kZeros;
  std::size_t offset = 0;                            // first float in the flat buffer
  std::size_t size = 0;                              // number of floats
  bool decays() const { return shape.size() == 2; }  // AdamW decays matrices only
};

// One transformer block (pre-LayerNorm): x += attn(ln_1(x)); x += mlp(ln_2(x)).
// Plain pointers into the flat buffer, as in llm.c.
struct LayerWeights {
  float* ln1_w;        // (C)
  float* ln1_b;        // (C)
  float* qkv_w;        // (P, C): rows 0..C-1 make q, then k, then v (P = 3C; lesson 10's
  float* qkv_b;        // (P)      variants: config.proj_width(), attention_inputs.hpp)
  float* kv_up_w;      // (2C, d_c) latent attention only: keys, then values, from the latent
  float* attn_proj_w;  // (C, C)
  float* attn_proj_b;  // (C)
  float* ln2_w;        // (C)
  float* ln2_b;        // (C)
  float* fc_w;         // (4C, C)
  float* fc_b;         // (4C)
  float* fc_proj_w;    // (C, 4C)
  float* fc_proj_b;    // (C)
};

struct GPTWeights {
  float* wte;  // (V, C) token embedding, also the output layer (tied)
  float* wpe;  // (T_max, C) position embedding
  std::vector<LayerWeights> layers;
  float* lnf_w;  // (C) final LayerNorm
  float* lnf_b;  // (C)
};

// The parameters of a config, in buffer order.
std::vector<ParameterSpec> parameter_layout(const GPTConfig& config);
std::size_t parameter_count(const GPTConfig& config);

// Named views into `flat`, which must hold parameter_count(config) floats.
GPTWeights bind_weights(const GPTConfig& config, float* flat);

// Fills `flat` by each parameter's Init rule, drawing from `rng` in buffer order.
void initialise_parameters(const GPTConfig& config, float* flat, Rng& rng);

}  // namespace tang
