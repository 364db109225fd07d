// poem_service.hpp: requests written through the engine, each to its caller.
//
// A request is written by the lessons' own code: its RequestWriter
// (request_writer.hpp: lesson 04's poem after an opening, lesson 05's acrostic
// for heads, lesson 07's verse for a form), with lesson 03's sampler and
// Rng(seed), stepped by the engine on its thread. So a served poem is the poem
// lesson 06 writes with the same seed and settings, character for character,
// whatever else is in the batch (tested). Each character goes to the request's
// queue as it is written; the caller's thread takes it from there and hands it
// to `on_character`, with the five most likely candidates it was drawn from
// when the request asks for them (PoemRequest::probabilities; the forced
// characters of an acrostic have none). Returning false stops the
// poem (the client went away) and its blocks go back to the pool.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "01_probabilities/next_char.hpp"  // Candidate
#include "11_server/paged_engine.hpp"
#include "11_server/poem_request.hpp"
#include "11_server/step_kernels.hpp"
#include "sampling.hpp"

namespace tang {

struct WrittenCharacter {
  std::string character;
  double probability = -1;     // its own, as `top` measures it; -1 for a forced character
                               // or a request that did not ask (PoemRequest::probabilities)
  std::vector<Candidate> top;  // the five most likely (lesson 01's most_likely), at the
                               // request's temperature before top-k and top-p; empty
                               // where `probability` is -1
};

struct ServedPoem {
  std::string poem;            // the opening (or heads) and what was written
  std::size_t characters = 0;  // streamed to on_character
  double first_seconds = 0;    // from the call to the first character
  double seconds = 0;          // from the call to the end
  bool stopped = false;        // on_character said stop, the engine was cancelled, or it failed
  bool ended = false;  // it ended (its newline, the acrostic's last line), not cut at max_chars
  PredictedTimes predicted;    // by the cost model, when the engine has one
  std::exception_ptr failure;  // what the engine threw writing it (serve_poem rethrows it)
};

// Thrown when the engine takes no more texts: the server answers 503.
struct EngineBusy : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Writes `request` through `engine`, its characters handed to `on_character`
// on this thread. Throws EngineBusy, UserError for a request with a problem,
// or what the engine threw writing it.
ServedPoem serve_poem(PagedEngine& engine, const PoemRequest& request,
                      const std::function<bool(const WrittenCharacter&)>& on_character);

// Writes every request through `engine` at once (their texts start together
// or not at all: EngineBusy), each character handed to on_character(i, c) on
// this thread; false stops that poem only. `on_started` is called once the
// engine took them, before any character. A poem the engine failed on carries
// its failure. The requests passed request_problem.
std::vector<ServedPoem> serve_poems(
    PagedEngine& engine, std::span<const PoemRequest> requests,
    const std::function<bool(std::size_t, const WrittenCharacter&)>& on_character,
    const std::function<void()>& on_started = {});

// Drawn characters whose probability and five most likely were worked out so
// far in this process (each a softmax over the vocabulary and a top five).
std::size_t probabilities_worked_out();
// The CPU time they took, in seconds, on whichever thread.
double probabilities_cpu_seconds();

// Times the engine's thread has woken a request's thread so far in this
// process (each with everything its choices wrote since the last time).
std::size_t request_wake_ups();
// Times a request's thread took what was waiting for it (one or more hand-offs'
// characters at once, when it fell behind): each is one answer's worth of HTTP.
std::size_t request_wakes_taken();

// The same poem without the engine: lesson 06's cached predictor, alone, with
// the products, GELU and draw of `path` (the lesson's, by default; or the tuned
// path's, with_tuned_path).
std::string write_alone(const GPT& model, const PoemRequest& request,
                        const EngineOptions& path = {});

}  // namespace tang
