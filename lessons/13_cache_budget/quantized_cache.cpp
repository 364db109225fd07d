#include "13_cache_budget/quantized_cache.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <random>

#include "06_kvcache/exercise/attention_with_cache.hpp"  // exercise 06a
#include "08_many_poems/exercise/bf16_row.hpp"           // exercise 08b: round_to_bf16
#include "errors.hpp"
#include "quantize_run.hpp"
#include "spread.hpp"

namespace tang {

namespace {

// Channels sharing one scale in a row: the whole row per token, 32 per group.
std::size_t row_group(const NumberFormat& f, std::size_t C) {
  return f.along == NumberFormat::kGroup ? kScaleGroup : C;
}

double bytes_per_number(const NumberFormat& f, std::size_t C) {
  if (!f.is_integer()) return static_cast<double>(f.bits) / 8.0;
  const double scale_bytes = f.along == NumberFormat::kChannel
                                 ? 4.0 / kChannelBlock                          // per 32 positions
                                 : 4.0 / static_cast<double>(row_group(f, C));  // per run of a row
  return static_cast<double>(f.bits) / 8.0 + scale_bytes;
}

}  // namespace

std::string NumberFormat::name() const {
  if (bits == kFloat32) return "fp32";
  if (bits == kBf16) return "bf16";
  const char* along_name = along == kToken ? "token" : along == kGroup ? "group" : "channel";
  return std::string(bits == kInt8 ? "int8/" : "int4/") + along_name;
}

double CacheFormat::bytes_per_position(const GPTConfig& config) const {
  const std::size_t C = config.n_embd;
  return static_cast<double>(config.n_layer * C) *
         (bytes_per_number(keys, C) + bytes_per_number(values, C));
}

double CacheFormat::bytes_held(std::size_t positions, const GPTConfig& config) const {
  const std::size_t C = config.n_embd;
  double bytes = 0.0;
  for (const NumberFormat& f : {keys, values}) {
    std::size_t stored =
        f.bits == NumberFormat::kFloat32 ? 0 : positions - std::min(positions, recent);
    if (f.is_integer() && f.along == NumberFormat::kChannel)
      stored = stored / kChannelBlock * kChannelBlock;
    bytes += static_cast<double>(stored * C) * bytes_per_number(f, C) +
             static_cast<double>((positions - stored) * C) * 4.0;
  }
  return bytes * static_cast<double>(config.n_layer);
}

CacheFormat parse_cache_format(const std::string& text) {
  const std::string choices =
      "fp32, bf16, int8-token, int8-group, int8-channel, int4-token, int4-group, int4-channel, "
      "kivi8 or kivi4, each optionally ending in -recentN (N from 1 to 127)";
  std::string base = text;
  std::size_t recent = 0;
  if (const std::size_t at = text.find("-recent"); at != std::string::npos) {
    base = text.substr(0, at);
    const std::string digits = text.substr(at + 7);
    const bool number =
        !digits.empty() && digits.size() <= 3 &&
        std::all_of(digits.begin(), digits.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    recent = number ? std::stoul(digits) : 0;
    if (recent == 0 || recent > 127)
      throw UserError("cache format '" + text + "': the recent window must be 1 to 127 positions");
  }
  using F = NumberFormat;
  const std::pair<const char*, std::pair<F, F>> known[] = {
      {"fp32", {{F::kFloat32}, {F::kFloat32}}},
      {"bf16", {{F::kBf16}, {F::kBf16}}},
      {"int8-token", {{F::kInt8, F::kToken}, {F::kInt8, F::kToken}}},
      {"int8-group", {{F::kInt8, F::kGroup}, {F::kInt8, F::kGroup}}},
      {"int8-channel", {{F::kInt8, F::kChannel}, {F::kInt8, F::kChannel}}},
      {"int4-token", {{F::kInt4, F::kToken}, {F::kInt4, F::kToken}}},
      {"int4-group", {{F::kInt4, F::kGroup}, {F::kInt4, F::kGroup}}},
      {"int4-channel", {{F::kInt4, F::kChannel}, {F::kInt4, F::kChannel}}},
      {"kivi8", {{F::kInt8, F::kChannel}, {F::kInt8, F::kToken}}},
      {"kivi4", {{F::kInt4, F::kChannel}, {F::kInt4, F::kToken}}},
  };
  for (const auto& [name, formats] : known) {
    if (base != name) continue;
    if (recent > 0 && base == std::string("fp32"))
      throw UserError("cache format '" + text + "': fp32 has nothing to keep in full precision");
    return {text, formats.first, formats.second, recent};
  }
  throw UserError("unknown cache format '" + text + "': use " + choices);
}

std::vector<std::string> default_cache_formats() {
  return {"fp32",         "bf16",       "int8-token",          "int8-group",
          "int8-channel", "int4-token", "int4-group",          "int4-channel",
          "kivi8",        "kivi4",      "int4-token-recent32", "kivi4-recent32"};
}

QuantizedCache::QuantizedCache(const GPTConfig& config, CacheFormat format)
    : format_(std::move(format)), L_(config.n_layer), T_max_(config.block_size), C_(config.n_embd) {
  require_multi_head(config, "lesson 13's quantized cache");
  for (Store* s : {&keys_, &values_}) {
    s->format = s == &keys_ ? format_.keys : format_.values;
    s->exact.assign(L_ * T_max_ * C_, 0.0f);
    if (s->format.is_integer()) s->codes.assign(L_ * T_max_ * C_, 0);
    if (s->format.bits == NumberFormat::kBf16) s->bf16.assign(L_ * T_max_ * C_, 0);
    s->scales.assign(L_ * scales_per_layer(s->format), 0.0f);
    s->stored.assign(L_, 0);
  }
  k_read_.assign(T_max_ * C_, 0.0f);
  v_read_.assign(T_max_ * C_, 0.0f);
}

std::size_t QuantizedCache::scales_per_layer(const NumberFormat& f) const {
  if (!f.is_integer()) return 0;
  if (f.along == NumberFormat::kChannel) return (T_max_ + kChannelBlock - 1) / kChannelBlock * C_;
  return T_max_ * (C_ / row_group(f, C_));
}

std::size_t QuantizedCache::ready_positions(const Store& s, std::size_t held) const {
  if (s.format.bits == NumberFormat::kFloat32) return 0;  // read as computed
  const std::size_t old = held > format_.recent ? held - format_.recent : 0;
  if (s.format.along == NumberFormat::kChannel && s.format.is_integer())
    return old / kChannelBlock * kChannelBlock;  // whole blocks only
  return old;
}

std::size_t QuantizedCache::dequantized_numbers(std::size_t held) const {
  return (ready_positions(keys_, held) + ready_positions(values_, held)) * L_ * C_;
}

void QuantizedCache::store_up_to(Store& s, std::size_t l, std::size_t ready) {
  const float* exact = s.exact.data() + l * T_max_ * C_;  // (T_max, C)
  float* scales = s.scales.data() + l * scales_per_layer(s.format);
  for (std::size_t p = s.stored[l]; p < ready; ++p) {
    if (s.format.bits == NumberFormat::kBf16) {
      round_to_bf16(exact + p * C_, C_, &s.bf16[(l * T_max_ + p) * C_]);  // exercise 08b
    } else if (s.format.along != NumberFormat::kChannel) {                // runs along the row
      const std::size_t G = row_group(s.format, C_);
      for (std::size_t g = 0; g < C_ / G; ++g) {
        scales[p * (C_ / G) + g] = quantize_run(exact + p * C_ + g * G, G, 1, s.format.qmax(),
                                                &s.codes[(l * T_max_ + p) * C_ + g * G]);
      }
    } else if (p % kChannelBlock == 0) {  // a whole block of positions, channel by channel
      for (std::size_t c = 0; c < C_; ++c) {
        scales[p / kChannelBlock * C_ + c] =
            quantize_run(exact + p * C_ + c, kChannelBlock, C_, s.format.qmax(),
                         &s.codes[(l * T_max_ + p) * C_ + c]);
      }
    }
  }
  s.stored[l] = std::max(s.stored[l], ready);
}

void QuantizedCache::rebuild(const Store& s, std::size_t l, float* out) const {
  const std::size_t stored = s.stored[l];
  const float* scales = s.scales.data() + l * scales_per_layer(s.format);
  const std::int8_t* codes = s.codes.empty() ? nullptr : s.codes.data() + l * T_max_ * C_;
  for (std::size_t p = 0; p < stored; ++p) {
    if (s.format.bits == NumberFormat::kBf16) {
      for (std::size_t c = 0; c < C_; ++c)
        out[p * C_ + c] = float_from_bf16(s.bf16[(l * T_max_ + p) * C_ + c]);
    } else if (s.format.along != NumberFormat::kChannel) {
      const std::size_t G = row_group(s.format, C_);
      for (std::size_t g = 0; g < C_ / G; ++g)
        dequantize_run(codes + p * C_ + g * G, scales[p * (C_ / G) + g], G, 1,
                       out + p * C_ + g * G);
    } else if (p % kChannelBlock == 0) {
      for (std::size_t c = 0; c < C_; ++c) {
        dequantize_run(codes + p * C_ + c, scales[p / kChannelBlock * C_ + c], kChannelBlock, C_,
                       out + p * C_ + c);
      }
    }
  }
  // the positions not yet stored in the format: as computed
  std::memcpy(out + stored * C_, s.exact.data() + (l * T_max_ + stored) * C_,
              (length - stored) * C_ * sizeof(float));
}

void QuantizedCache::attend(std::size_t l, float* out, const float* rows, std::size_t T,
                            const GPT& model) {
  const std::size_t NH = model.config().n_head, C = C_;
  if (format_.is_float32()) {  // lesson 06's KVCache::attend, on the same floats
    attention_with_cache(out, rows, &keys_.exact[l * T_max_ * C], &values_.exact[l * T_max_ * C],
                         length, T, C, NH);
    return;
  }
  for (Store* s : {&keys_, &values_}) {
    // taken back (a predictor starting again: to 0): what is now recent, or in a block
    // not yet full, is read as computed again
    s->stored[l] = std::min(s->stored[l], ready_positions(*s, length));
    for (std::size_t t = 0; t < T; ++t) {  // the new positions, as computed
      const float* from = rows + t * 3 * C + (s == &keys_ ? C : 2 * C);
      std::copy(from, from + C, &s->exact[(l * T_max_ + length + t) * C]);
    }
  }
  rebuild(keys_, l, k_read_.data());  // (length, C)
  rebuild(values_, l, v_read_.data());
  attention_with_cache(out, rows, k_read_.data(), v_read_.data(), length, T, C, NH);
  for (Store* s : {&keys_, &values_}) store_up_to(*s, l, ready_positions(*s, length + T));
}

double QuantizedCache::measure_rebuild_ns(std::size_t repeats) {
  const std::size_t saved = length;
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (Store* s : {&keys_, &values_}) {
    for (float& x : s->exact) x = normal(rng);
    for (std::size_t l = 0; l < L_; ++l)
      s->stored[l] = 0, store_up_to(*s, l, ready_positions(*s, T_max_));
  }
  length = T_max_;
  std::vector<double> ns;
  for (std::size_t r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t l = 0; l < L_; ++l) {
      rebuild(keys_, l, k_read_.data());
      rebuild(values_, l, v_read_.data());
    }
    ns.push_back(
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count());
  }
  length = saved;
  for (Store* s : {&keys_, &values_}) std::fill(s->stored.begin(), s->stored.end(), 0);
  const std::size_t numbers = dequantized_numbers(T_max_);
  return numbers == 0 ? 0.0 : median(ns) / static_cast<double>(numbers);
}

}  // namespace tang
