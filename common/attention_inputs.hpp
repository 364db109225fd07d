// attention_inputs.hpp: the queries, keys and values of one block, for every
// way of sharing keys and values the course trains (lesson 10).
//
// Attention (ops::attention_forward) reads one query, key and value vector per
// head and position: qkv (N, 3C). How a block makes them is the variant:
//
//   multi-head     one matmul: ln_1(x) (N, C) @ qkv_w^T -> qkv (N, 3C)
//   grouped-query  ln_1(x) @ qkv_w^T -> proj (N, C + 2 KVH HS): the queries and
//                  KVH key/value heads; query head h reads key/value head
//                  h / (NH / KVH), so each of those is copied to its heads.
//                  Multi-query is the case KVH = 1.
//   latent         ln_1(x) @ qkv_w^T -> proj (N, C + d_c): the queries and one
//                  latent vector c per position; keys and values are its
//                  up-projection, kv (N, 2C) = c @ kv_up_w^T (no bias).
//
// A cache then holds 2 KVH HS floats per position and layer (grouped) or d_c
// (latent) instead of 2C. The uncached forward here rebuilds the full qkv so
// that one attention kernel and its backward serve every variant; lesson 10's
// cached steps read the small vectors directly.
#pragma once

#include "config.hpp"
#include "gpt.hpp"
#include "parameters.hpp"

namespace tang {

// ln1 (N, C) of layer L -> L.qkv (N, 3C), through L.proj and L.latent where the
// variant has them.
void attention_inputs_forward(const GPTConfig& config, const LayerWeights& w, Activations::Layer& L,
                              std::size_t N, const Kernels& kernels);

// The trainer's backward pass (lessons/00_train/trainable_gpt.cpp) walks the
// same steps in reverse: a shared key/value head's gradient is the sum over the
// query heads that read it.

}  // namespace tang
