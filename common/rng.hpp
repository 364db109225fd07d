// rng.hpp: a tiny random number generator that gives the same numbers everywhere.
//
// C++ <random> distributions are implementation-defined, so the same seed can
// write a different poem with another standard library. xorshift64* is a few
// lines, fast, and fully specified here, so our lessons print the same text on
// every machine.
#pragma once

#include <cmath>
#include <cstdint>

namespace tang {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed ^ 0x9E3779B97F4A7C15ull) {
    if (state_ == 0) state_ = 0x2545F4914F6CDD1Dull;  // xorshift must not start at zero
  }

  std::uint64_t next_u64() {
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return state_ * 0x2545F4914F6CDD1Dull;
  }

  // Uniform in [0, 1), from the top 24 bits: every float value is exact.
  float uniform() { return static_cast<float>(next_u64() >> 40) / 16777216.0f; }

  // Uniform integer in [0, n).
  std::uint64_t below(std::uint64_t n) { return next_u64() % n; }

  // Standard normal (Box-Muller), for weight initialisation.
  float normal() {
    double u1 = (static_cast<double>(next_u64() >> 11) + 1.0) / 9007199254740993.0;  // (0, 1]
    double u2 = static_cast<double>(next_u64() >> 11) / 9007199254740992.0;          // [0, 1)
    return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
  }

  std::uint64_t state() const { return state_; }
  void set_state(std::uint64_t s) { state_ = s; }

 private:
  std::uint64_t state_;
};

}  // namespace tang
