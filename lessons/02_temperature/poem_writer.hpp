// poem_writer.hpp: the generation loop.
//
// Writing is one step repeated: ask for the next-character logits, pick a
// character, append it, ask again. How we pick decides what gets written;
// lessons 02, 03 and 05 each plug in a different picker.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "decoder.hpp"
#include "rng.hpp"

namespace tang {

// Chooses the next character from the logits (which it may overwrite).
// `written` is how many characters this call of write() has produced so far.
using Picker = std::function<TokenId(std::span<float> logits, std::size_t written, Rng& rng)>;

// Appends up to max_new characters to `context`; stops after a newline when
// stop_at_newline. Returns the characters written.
std::vector<TokenId> write(Decoder& decoder, std::vector<TokenId>& context, const Picker& pick,
                           Rng& rng, std::size_t max_new, bool stop_at_newline);

// A poem from scratch (after a newline) or after `opening`: the opening plus
// what the model writes, up to its newline or `max_chars` new characters.
std::string write_poem(Decoder& decoder, const Tokenizer& tokenizer, const std::string& opening,
                       const Picker& pick, Rng& rng, std::size_t max_chars);

// A picker for plain temperature sampling.
Picker temperature_picker(float temperature);

}  // namespace tang
