// paged_forward.hpp: lesson 06's cached forward over the paged cache.
//
// A text's cache is now its block table (block_pool.hpp): the pool's blocks
// holding its positions, in order. forward_with_cache below is lesson 06's
// forward_with_cache with the cache swapped for the table and the pool, every
// changed line marked "// NEW": the attention step reads and writes its rows
// through the table (exercise 11a). Everything else, and so every logit, is
// lesson 06's, bit for bit (tested).
#pragma once

#include <span>
#include <stdexcept>
#include <vector>

#include "06_kvcache/kv_cache.hpp"  // ModelMatrices, embed_with_offset
#include "11_server/block_pool.hpp"
#include "11_server/exercise/paged_attention.hpp"  // exercise 11a
#include "gpt.hpp"
#include "ops.hpp"

namespace tang {

// One text's view of the paged cache.
struct PagedText {
  std::vector<BlockId> table;       // its blocks, in order of position
  std::vector<TokenId> tokens;      // the characters at positions 0 .. length-1
  std::size_t registered = 0;       // its first blocks already registered as full
  BlockHash last_hash = kNoParent;  // the hash of block registered - 1
  std::size_t length() const { return tokens.size(); }
};

// Blocks `text` needs to hold `more` more positions; the caller allocates them.
std::size_t blocks_needed(const PagedText& text, std::size_t more, std::size_t block_size);

// Registers every block of `text` that is now full (block_pool.hpp).
void register_full_blocks(PagedText& text, BlockPool& pool);

// Gives every block of `text` back to the pool and empties it.
void release_all(PagedText& text, BlockPool& pool);

// tokens (B, T): T new characters for each of B texts, text b at positions
// texts[b]->length() onwards, its table already long enough. Returns the
// logits as lesson 06's does: (B*T, V), or with kLastPosition (1, V) for one
// text, (B, V) for B texts of one character each.
template <class Matrices>
View<2> forward_with_cache(const GPT& model, const Matrices& m, std::span<const TokenId> tokens,
                           std::span<PagedText* const> texts, BlockPool& pool,  // NEW
                           Activations& a, LogitsFor which) {
  const GPTConfig& cfg = model.config();
  const GPTWeights& w = model.weights();
  const std::size_t B = texts.size(), N = tokens.size(), C = cfg.n_embd, V = cfg.vocab_size,
                    NH = cfg.n_head;
  const std::size_t T = B == 0 ? 0 : N / B;  // new characters per text
  if (T == 0 || N != B * T) throw std::invalid_argument("forward_with_cache: no tokens");
  if (N > a.encoded.shape(0))
    throw std::invalid_argument("forward_with_cache: more rows than the activations hold");
  for (const PagedText* text : texts) {  // NEW
    if (text->length() + T > cfg.block_size)
      throw std::invalid_argument("forward_with_cache: text longer than the context");
    if (blocks_needed(*text, T, pool.block_size()) > 0)                              // NEW
      throw std::invalid_argument("forward_with_cache: allocate its blocks first");  // NEW
  }
  for (TokenId id : tokens) {
    if (id < 0 || static_cast<std::size_t>(id) >= V)
      throw std::invalid_argument("forward_with_cache: token id out of range");
  }
  if (which == LogitsFor::kLastPosition && B > 1 && T > 1)
    throw std::invalid_argument("forward_with_cache: last logits of B texts: one character each");
  const std::size_t first = which == LogitsFor::kLastPosition && B == 1 ? T - 1 : 0;
  const std::size_t rows = N - first;  // the logits returned
  if (rows > a.logits.shape(0))
    throw std::invalid_argument(
        "forward_with_cache: no room for these logits (Keep::kEverything or step_activations)");

  // text b's new characters sit at positions start .. start+T-1, not 0 .. T-1,
  // where start = texts[b]->length(), what its blocks hold (it grows only at the end)
  for (std::size_t b = 0; b < B; ++b) {
    embed_with_offset(a.encoded.data() + b * T * C, tokens.data() + b * T, T, texts[b]->length(),
                      w.wte, w.wpe, C);  // NEW: texts[b]->length()
  }
  const float* x = a.encoded.data();  // (N, C) the residual stream entering each block
  for (std::size_t l = 0; l < cfg.n_layer; ++l) {
    const LayerWeights& lw = w.layers[l];
    const auto& lm = m.layer(l);  // this layer's matrices, in the caller's format
    Activations::Layer& L = a.layers[l];
    // attention half: residual2 = x + proj(attention(ln_1(x)))
    ops::layernorm_forward(L.ln1.data(), L.ln1_mean.data(), L.ln1_rstd.data(), x, lw.ln1_w,
                           lw.ln1_b, N, C);
    lm.qkv.matmul(L.qkv.data(), L.ln1.data(), lw.qkv_b, N);
    // NEW: each text writes this layer's new keys and values into its blocks,
    // then each of its new queries attends over its positions so far (exercise 11a)
    for (std::size_t b = 0; b < B; ++b) {
      paged_attention_with_cache(L.atty.data() + b * T * C, L.qkv.data() + b * T * 3 * C,
                                 pool.keys(l), pool.values(l), texts[b]->table,     // NEW
                                 pool.block_size(), texts[b]->length(), T, C, NH);  // NEW
    }
    lm.attn_proj.matmul(L.residual2.data(), L.atty.data(), lw.attn_proj_b, N);
    ops::residual_forward(L.residual2.data(), x, L.residual2.data(), N * C);
    // MLP half: residual3 = residual2 + proj(gelu(fc(ln_2(residual2))))
    ops::layernorm_forward(L.ln2.data(), L.ln2_mean.data(), L.ln2_rstd.data(), L.residual2.data(),
                           lw.ln2_w, lw.ln2_b, N, C);
    lm.fc.matmul(L.fch.data(), L.ln2.data(), lw.fc_b, N);
    ops::gelu_forward(L.fch_gelu.data(), L.fch.data(), N * 4 * C);
    lm.fc_proj.matmul(L.residual3.data(), L.fch_gelu.data(), lw.fc_proj_b, N);
    ops::residual_forward(L.residual3.data(), L.residual2.data(), L.residual3.data(), N * C);
    x = L.residual3.data();
  }
  for (std::size_t b = 0; b < B; ++b) {  // NEW: each text holds its T new characters
    texts[b]->tokens.insert(texts[b]->tokens.end(), tokens.begin() + static_cast<long>(b * T),
                            tokens.begin() + static_cast<long>((b + 1) * T));
  }

  // final LayerNorm, then the tied output layer: logits = ln_f(x) @ wte^T
  ops::layernorm_forward(a.lnf.data(), a.lnf_mean.data(), a.lnf_rstd.data(), x, w.lnf_w, w.lnf_b, N,
                         C);
  m.output.matmul(a.logits.data(), a.lnf.data() + first * C, nullptr, rows);
  return view_of<2>(a.logits.data(), {rows, V});
}

}  // namespace tang
