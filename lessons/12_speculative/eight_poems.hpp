// eight_poems.hpp: the writing section 12 and bench_12_speculative time.
//
// One poem after each of eight openings, written by lesson 06's cached writing
// or by write_speculative, with the work of every forward pass it ran, which
// lesson 06's cost model prices (step_cost.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "06_kvcache/machine_profile.hpp"
#include "12_speculative/drafter.hpp"
#include "12_speculative/speculative_writer.hpp"
#include "gpt.hpp"
#include "sampling.hpp"

namespace tang {

inline constexpr const char* kEightOpenings[] = {"",     "春风", "明月", "山", "白日依山尽，",
                                                 "江上", "秋",   "孤城"};

struct EightPoems {
  std::vector<std::vector<TokenId>> poems;  // (8) the characters written after each opening
  SpeculativeCounts counts;  // the rounds (speculative) and every forward pass's work
  std::size_t characters() const;
};

// Up to `length` characters after each opening, poem i with Rng(seed + i).
EightPoems write_eight_plain(const GPT& model, const SamplingSettings& settings, std::size_t length,
                             std::uint64_t seed);
EightPoems write_eight_speculative(const GPT& model, Drafter& drafter,
                                   const SamplingSettings& settings, std::size_t k,
                                   std::size_t length, std::uint64_t seed);

// The cost model's time for `work`, forward passes of a model of `config`.
double predicted_ms(const GPTConfig& config, const std::vector<StepWork>& work,
                    const MachineProfile& profile);

}  // namespace tang
