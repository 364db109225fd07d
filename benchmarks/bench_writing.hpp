// bench_writing.hpp: the timed generation loop that lessons 02 and 03 share.
//
// time_writing(state, pick, n) writes n characters after a newline with the KV
// cache and lesson 02's write(), choosing each with `pick` (temperature only,
// top-k, top-p ...), the same seed every iteration, and reports characters/s.
#pragma once

#include <vector>

#include "bench_common.hpp"
#include "decoder.hpp"
#include "poem_writer.hpp"

namespace tang::bench {

inline void time_writing(benchmark::State& state, const Picker& pick, std::size_t n) {
  const GPT& model = course_model();
  Decoder decoder(model, /*use_cache=*/true);
  std::vector<TokenId> context;
  StepClock clock(state);
  for (auto _ : state) {
    decoder.reset();
    context = ids(model, "\n");
    Rng rng(42);
    benchmark::DoNotOptimize(
        write(decoder, context, pick, rng, n, /*stop_at_newline=*/false).data());
  }
  clock.finish(state, static_cast<double>(n), "chars_per_s");
}

}  // namespace tang::bench
