// poem_service.hpp: one request, written through the engine.
//
// A request is written by the lessons' own code on the caller's thread:
// lesson 04's write_poem after an opening, or lesson 05's write_acrostic for
// heads, with lesson 03's sampler and Rng(seed), through an EnginePredictor.
// So a served poem is the poem lesson 06 writes with the same seed and
// settings, character for character, whatever else is in the batch (tested).
// Each character is handed to `on_character` as it is written, with the five
// most likely candidates it was drawn from (the forced characters of an
// acrostic have none); returning false stops the poem (the client went away)
// and its blocks go back to the pool.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "01_probabilities/next_char.hpp"  // Candidate
#include "11_server/paged_engine.hpp"
#include "11_server/poem_request.hpp"
#include "sampling.hpp"

namespace tang {

struct WrittenCharacter {
  std::string character;
  double probability = -1;     // its own, as `top` measures it; -1 for a forced character
  std::vector<Candidate> top;  // the five most likely (lesson 01's most_likely), at the
                               // request's temperature before top-k and top-p; empty for a
                               // forced character
};

struct ServedPoem {
  std::string poem;            // the opening (or heads) and what was written
  std::size_t characters = 0;  // streamed to on_character
  double first_seconds = 0;    // from the call to the first character
  double seconds = 0;          // from the call to the end
  bool stopped = false;        // on_character said stop, or the engine was cancelled
  bool ended = false;  // it ended (its newline, the acrostic's last line), not cut at max_chars
  PredictedTimes predicted;  // by the cost model, when the engine has one
};

// Thrown when the engine takes no more texts: the server answers 503.
struct EngineBusy : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Writes `request` through `engine` on this thread. Throws EngineBusy, or
// UserError for a request with a problem.
ServedPoem serve_poem(PagedEngine& engine, const PoemRequest& request,
                      const std::function<bool(const WrittenCharacter&)>& on_character);

// The same for a text the caller opened (engine.open()) and closes.
ServedPoem serve_poem(PagedEngine& engine, PagedEngine::TextId text, const PoemRequest& request,
                      const std::function<bool(const WrittenCharacter&)>& on_character);

// The same poem without the engine: lesson 06's cached predictor, alone.
std::string write_alone(const GPT& model, const PoemRequest& request);

}  // namespace tang
