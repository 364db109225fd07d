// generate.hpp: the generation loop every writing lesson shares.
//
// Writing is one step repeated: ask for the next-character logits, pick a
// character, append it, ask again. The text being written is a Writer, state
// that takes one row of logits a step; the loop is whoever feeds it. How we pick decides what gets
// written (lessons 02, 03 and 05 each plug in a different Picker); how the logits are computed is
// the Predictor's business: here, the whole text through the model again at every step; lesson 06
// adds one that remembers (the KV cache).
#pragma once

#include <concepts>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpt.hpp"
#include "rng.hpp"
#include "trace.hpp"

namespace tang {

// Gives the logits of the character that follows a text.
class Predictor {
 public:
  virtual ~Predictor() = default;
  // Logits (V) for the character after `context` (not empty). A context longer
  // than the model's block_size is cropped to its last block_size characters,
  // as nanoGPT does. The span stays valid until the next call.
  virtual std::span<const float> next_logits(std::span<const TokenId> context) = 0;
};

// Without a cache: every call runs the whole (cropped) context through forward().
class Recompute : public Predictor {
 public:
  explicit Recompute(const GPT& model) : model_(model), acts_(model.config()) {}
  std::span<const float> next_logits(std::span<const TokenId> context) override;

 private:
  const GPT& model_;
  Activations acts_;
};

// `logits` itself; throws UserError when one of them is inf or NaN (huge
// weights overflow), instead of letting NaN probabilities write garbage.
std::span<const float> require_finite(std::span<const float> logits);

// The last block_size characters of `context` (all of it when it fits).
std::span<const TokenId> crop_to_context(std::span<const TokenId> context, std::size_t block_size);

// Chooses the next character from the logits (which it may overwrite).
// `written` is how many characters this call of write() has produced so far.
// Given a record (--trace), the picker also fills in what its step did (trace.hpp).
using Picker = std::function<TokenId(std::span<float> logits, std::size_t written, Rng& rng,
                                     StepRecord* record)>;

// With --trace: what each step did, handed over by the writing loop after the
// step (`step` counts from 1), e.g. to print it as a line.
using StepReport = std::function<void(std::size_t step, const StepRecord& record)>;

// A text being written, as state: it says what the next logits must follow,
// takes them and draws, and says when it is done. Whoever has the logits
// drives it, one step at a time:
//
//   while (!writer.done()) writer.take(predictor.next_logits(writer.context()));
//
// (write_with, below). Lesson 05's acrostic is a writer too.
class Writer {
 public:
  virtual ~Writer() = default;
  // The text so far (not empty): the next logits are those of the character after it.
  virtual std::span<const TokenId> context() const = 0;
  // Draws the next character from `logits` (V) and appends it.
  virtual void take(std::span<const float> logits) = 0;
  virtual bool done() const = 0;
};

// Drives `writer` with `predictor`'s logits until it is done.
void write_with(Writer& writer, Predictor& predictor);

// The writing loop's own writer: appends to `context` up to max_new characters
// drawn by `pick`, and stops after writing `stop_after` when given (a poem's
// newline). With `report`, every step is recorded and reported. `context` and
// `rng` must outlive it (it keeps its own copies of `pick` and `report`).
class SampledWriter : public Writer {
 public:
  SampledWriter(std::vector<TokenId>& context, const Picker& pick, Rng& rng, std::size_t max_new,
                std::optional<TokenId> stop_after, const StepReport& report = {});
  std::span<const TokenId> context() const override { return context_; }
  void take(std::span<const float> logits) override;
  bool done() const override;
  const std::vector<TokenId>& written() const { return written_; }

 private:
  std::vector<TokenId>& context_;
  Picker pick_;
  Rng& rng_;
  std::size_t max_new_;
  std::optional<TokenId> stop_after_;
  StepReport report_;
  std::vector<TokenId> written_;
  std::vector<float> logits_;  // the picker's copy: it may overwrite it
};

// Appends up to max_new characters to `context`; stops after writing `stop_after`
// when given (a poem's newline: tokenizer.newline()). Returns the characters
// written. With `report`, every step is recorded and reported. A SampledWriter
// driven by `predictor`.
std::vector<TokenId> write(Predictor& predictor, std::vector<TokenId>& context, const Picker& pick,
                           Rng& rng, std::size_t max_new, std::optional<TokenId> stop_after,
                           const StepReport& report = {});
// (true or false would pass as an id: say which id, or std::nullopt)
template <class Bool>
requires std::same_as<Bool, bool> std::vector<TokenId> write(Predictor&, std::vector<TokenId>&,
                                                             const Picker&, Rng&, std::size_t, Bool)
= delete;

// The poem as text: `opening` and the characters `written` after it, without
// the poem's closing newline.
std::string poem_text(const Tokenizer& tokenizer, const std::string& opening,
                      std::vector<TokenId> written);

// A poem from scratch (after a newline) or after `opening`: the opening plus
// what the model writes, up to its newline or `max_chars` new characters.
std::string write_poem(Predictor& predictor, const Tokenizer& tokenizer, const std::string& opening,
                       const Picker& pick, Rng& rng, std::size_t max_chars,
                       const StepReport& report = {});

}  // namespace tang
