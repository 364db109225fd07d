// tiny_golden.hpp: what model_test, kv_cache_test and sampling_test share.
//
// tests/golden/ holds a tiny random model (vocabulary 11: "\n" 春 风 花 月 夜 山 水 人 ， 。;
// context 16, 2 layers, 2 heads, 8 dims) and the logits a float64 NumPy implementation
// written from the model's description computes for 12 tokens
// (tests/reference/gpt_reference.py regenerates both).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "checkpoint.hpp"
#include "gpt.hpp"
#include "rng.hpp"
#include "safetensors.hpp"
#include "tensor.hpp"
#include "utf8.hpp"

namespace tang::testing {

inline const std::string kGoldenDir = std::string(TANG_TESTS_DIR) + "/golden";
inline const std::string kTinyModel = kGoldenDir + "/tiny_model.safetensors";

// Relative error, everywhere: max_i |a_i - b_i| / max_i |b_i|, with b the reference.
// float32 against float64 on the tiny model lands near 1e-7; we allow 1e-5.
constexpr double kTolerance = 1e-5;

inline double relative_error(std::span<const float> a, std::span<const float> b) {
  EXPECT_EQ(a.size(), b.size());
  double diff = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    diff = std::max(diff, std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
    scale = std::max(scale, std::abs(static_cast<double>(b[i])));
  }
  return scale > 0.0 ? diff / scale : diff;
}

inline std::vector<float> copy_of(const View<2>& logits) {
  return std::vector<float>(logits.data(), logits.data() + logits.size());
}

inline std::vector<float> copy_of(std::span<const float> values) {
  return std::vector<float>(values.begin(), values.end());
}

// "" when a and b hold the same bits; otherwise the first index that differs
// and both values (printed with 9 significant digits, enough to tell floats apart).
inline std::string bit_difference(std::span<const float> a, std::span<const float> b) {
  if (a.size() != b.size()) {
    return "sizes differ: " + std::to_string(a.size()) + " and " + std::to_string(b.size());
  }
  if (std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0) return "";
  std::size_t i = 0;
  while (std::memcmp(&a[i], &b[i], sizeof(float)) == 0) ++i;
  std::ostringstream out;
  out.precision(9);
  out << "first difference at index " << i << ": " << a[i] << " and " << b[i];
  return out.str();
}

inline const NamedTensor& tensor_named(const SafetensorsFile& file, const std::string& name) {
  for (const auto& t : file.tensors) {
    if (t.name == name) return t;
  }
  throw std::runtime_error("golden file has no tensor " + name);
}

struct Golden {
  std::vector<TokenId> tokens;  // (T)
  std::vector<float> logits;    // (T, V)
  std::vector<float> residual;  // (T, C) after the last block, before ln_f
  std::vector<float> losses;    // (T-1)
  double loss = 0.0;            // mean next-token cross-entropy (float64 reference)
  std::size_t V = 0;

  std::span<const float> row(std::size_t t) const {
    return std::span<const float>(logits).subspan(t * V, V);
  }
};

inline Golden load_golden() {
  const auto file = read_safetensors(kGoldenDir + "/tiny_golden.safetensors");
  Golden g;
  const auto& tokens = tensor_named(file, "tokens");
  EXPECT_EQ(tokens.dtype, "I32");
  g.tokens.resize(tokens.element_count());
  std::memcpy(g.tokens.data(), tokens.bytes.data(), tokens.bytes.size());
  g.logits = tensor_named(file, "logits").to_floats();
  g.residual = tensor_named(file, "residual").to_floats();
  g.losses = tensor_named(file, "losses").to_floats();
  g.loss = std::stod(file.metadata.at("loss"));
  g.V = g.tokens.empty() ? 0 : g.logits.size() / g.tokens.size();
  return g;
}

// The tiny model, loaded once per test program.
inline const GPT& tiny_model() {
  static const GPT model = load_checkpoint(kTinyModel);
  return model;
}

// A model of the course's shape with random weights N(0, scale^2) and a
// vocabulary of "\n" then CJK characters: 4 layers, 4 heads, 32 dims, context 64.
inline GPT random_model(std::uint64_t seed, std::size_t vocab_size = 50,
                        std::size_t block_size = 64, float scale = 0.2f) {
  GPTConfig config;
  config.vocab_size = vocab_size;
  config.block_size = block_size;
  config.n_layer = 4;
  config.n_head = 4;
  config.n_embd = 32;
  std::vector<std::string> characters{"\n"};
  for (char32_t c = U'一'; characters.size() < config.vocab_size; ++c) {
    characters.push_back(utf8_encode(c));
  }
  Rng rng(seed);
  Tensor<1> parameters = Tensor<1>::from_shape({parameter_count(config)});
  for (float& p : parameters) p = scale * rng.normal();
  return GPT(config, Tokenizer(characters), std::move(parameters));
}

}  // namespace tang::testing
