// load_run.hpp: many clients sending requests to the engine, in-process.
//
// `clients` threads each take the next request of the list as soon as their
// last one is done, until none is left: `clients` requests in flight, as a
// load generator keeps them. Lesson 11's section drives the engine so, and
// serve_bench does the same over HTTP.
#pragma once

#include <cstdint>
#include <vector>

#include "11_server/poem_service.hpp"

namespace tang {

struct LoadRun {
  std::vector<ServedPoem> served;  // in the order of the requests
  double seconds = 0;              // from the first request to the last answer
  std::size_t characters = 0;      // streamed, all requests
  double clients_cpu_seconds = 0;  // the clients' threads' CPU time (each a request's thread)
  double chars_per_second() const { return seconds > 0 ? double(characters) / seconds : 0; }
};

LoadRun run_clients(PagedEngine& engine, const std::vector<PoemRequest>& requests,
                    std::size_t clients);

// The opening section 11 and serve_bench share: 18 characters, 19 positions with its newline.
inline constexpr const char* kSharedOpening = "白日依山尽，黄河入海流。欲穷千里目，";

// Lesson 11's mix of n requests, request i with seed `seed` + i: three openings, then an
// acrostic, in turn; the other fields PoemRequest's defaults (lessons 04-06's settings).
std::vector<PoemRequest> mixed_requests(std::size_t n, std::uint64_t seed);

// n requests opening with kSharedOpening, request i with seed `seed` + i.
std::vector<PoemRequest> shared_opening_requests(std::size_t n, std::uint64_t seed);

// The p-th percentile (0-100) of `values`, by the nearest rank; 0 when empty.
double percentile(std::vector<double> values, double p);

// Seconds per character of each served poem after its first: (end - first) / (n - 1).
std::vector<double> seconds_per_character(const std::vector<ServedPoem>& served);

}  // namespace tang
