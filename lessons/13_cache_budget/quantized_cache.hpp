// quantized_cache.hpp: lesson 06's cache in fewer bits.
//
// Lesson 06's KVCache keeps every key and value as a float32: 4 layers x 2 x
// 128 x 4 bytes = 4 KB a position. Engines keep them in fewer bits, without
// retraining: bf16 (the float's top 16 bits, rounded by exercise 08b's
// round_to_bf16), or small integers with a scale
// shared by a run of numbers, x ~ scale x q, scale = max |x| / qmax over the run:
//
//   int8   q in [-127, 127]        int4   q in [-7, 7] (two to a byte)
//
// Which numbers share a scale decides what is lost, since a run's largest
// number sets the step for all of them:
//
//   per token    one scale for a position's whole row (128 channels)
//   per group    one scale per 32 channels of a row (here: one per head)
//   per channel  one scale per channel over a block of 32 positions; the
//                positions of a block not yet full stay float32 until it is
//
// A few channels of the keys carry large values at every position; per token,
// they set the step of the whole row; per channel, each keeps its own. KIVI
// (Liu et al., 2024) therefore quantizes keys per channel and values per token.
// Optionally the last `recent` positions stay float32 (what the newest query
// attends to most). Scales are kept as floats (4 bytes).
//
// QuantizedCache answers lesson 06's four cache members, so lesson 06's
// forward_with_cache runs with it unchanged. In each layer it rebuilds the
// float32 keys and values of every held position (dequantizes them) and runs
// lesson 06's attention (exercise 06a) on them; a fused kernel would read the
// codes inside attention's loop instead. With float32 keys and values it is
// lesson 06's cache, bit for bit. It keeps every float32 key and value as well
// (a cache that saves memory keeps only those not yet stored in the format):
// attention reads a stored position only from its codes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "06_kvcache/kv_cache.hpp"
#include "gpt.hpp"
#include "quantize_run.hpp"  // quantize_run, dequantize_run

namespace tang {

// What one kind of number (keys or values) is stored in.
struct NumberFormat {
  enum Bits { kFloat32 = 32, kBf16 = 16, kInt8 = 8, kInt4 = 4 } bits = kFloat32;
  enum Along { kToken, kGroup, kChannel } along = kToken;  // the integers' scales
  bool operator==(const NumberFormat&) const = default;
  std::string name() const;  // "fp32", "bf16", "int8/token", "int4/channel", ...
  bool is_integer() const { return bits == kInt8 || bits == kInt4; }
  int qmax() const { return bits == kInt8 ? kInt8Largest : kInt4Largest; }
};

inline constexpr std::size_t kScaleGroup = 32;    // channels sharing a scale, per group
inline constexpr std::size_t kChannelBlock = 32;  // positions sharing a scale, per channel

struct CacheFormat {
  std::string name;  // as the flag spells it: "int8-token", "kivi4", "kivi4-recent32"
  NumberFormat keys, values;
  std::size_t recent = 0;  // the last `recent` positions kept in float32

  // Bytes one position costs in all layers, once quantized (int4 packed two
  // to a byte, the scales shared out over their numbers).
  double bytes_per_position(const GPTConfig& config) const;
  // Bytes a text of `positions` positions holds in all layers: those still in
  // float32 (the recent window; per channel, the block not yet full) at 4 a number.
  double bytes_held(std::size_t positions, const GPTConfig& config) const;
  bool is_float32() const {
    return keys.bits == NumberFormat::kFloat32 && values.bits == NumberFormat::kFloat32;
  }
};

// "fp32", "bf16", "int8-token", "int8-group", "int8-channel", the same for int4,
// "kivi8" and "kivi4" (keys per channel, values per token), each optionally with
// "-recentN" (N in [1, 127]). Throws UserError naming the text and the choices.
CacheFormat parse_cache_format(const std::string& text);
// The formats the lesson's table compares, fp32 first.
std::vector<std::string> default_cache_formats();

// Lesson 06's cache, its keys and values stored in `format`.
class QuantizedCache {
 public:
  QuantizedCache(const GPTConfig& config, CacheFormat format);
  std::size_t length = 0;  // positions held

  // What lesson 06's forward_with_cache asks of a cache (kv_cache.hpp).
  std::size_t positions() const { return length; }
  void check_room(std::size_t T, const GPTConfig& config) const {
    check_context(length, T, config);
  }
  // Layer l: rebuild the held keys and values in float32, attend as lesson 06
  // does (appending the new ones), then store the new ones in the format.
  void attend(std::size_t l, float* out, const float* rows, std::size_t T, const GPT& model);
  void hold(std::span<const TokenId> tokens) { length += tokens.size(); }

  const CacheFormat& format() const { return format_; }
  // Numbers rebuilt from the format per step at `held` positions (the timing's model).
  std::size_t dequantized_numbers(std::size_t held) const;
  // The time to rebuild one number, in ns: the median of `repeats` rebuilds of
  // every layer's keys and values at a full context of random numbers (this
  // format's loop, measured as the machine profile measures the others). It
  // overwrites what the cache holds: call it on a new cache.
  double measure_rebuild_ns(std::size_t repeats);

 private:
  // One kind of number (keys or values) of every layer.
  struct Store {
    NumberFormat format;
    std::vector<float> exact;         // (L, T_max, C) every position as computed (see below)
    std::vector<std::int8_t> codes;   // (L, T_max, C) int8 and int4 codes, one a byte here
    std::vector<std::uint16_t> bf16;  // (L, T_max, C)
    std::vector<float> scales;        // (L, scales_per_layer)
    std::vector<std::size_t> stored;  // (L) positions 0 .. stored-1 are read from the format
  };
  void rebuild(const Store& s, std::size_t l, float* out) const;  // (length, C) float32
  void store_up_to(Store& s, std::size_t l, std::size_t ready);   // positions < ready
  std::size_t ready_positions(const Store& s, std::size_t held) const;
  std::size_t scales_per_layer(const NumberFormat& f) const;

  CacheFormat format_;
  std::size_t L_, T_max_, C_;
  Store keys_, values_;
  std::vector<float> k_read_, v_read_;  // (T_max, C) scratch: what attention reads
};

// A Predictor over a quantized cache: lesson 06's CachedPredictor, made with
// QuantizedPredictor(model, ModelMatrices<>(model), QuantizedCache(config, format)).
using QuantizedPredictor = CachedPredictor<ModelMatrices<>, QuantizedCache>;

}  // namespace tang
