// acrostic.hpp: 藏头诗, a poem whose lines start with given characters.
//
// For each head character: we put it in the context ourselves, let the model
// write the rest of the line with punctuation and newline banned, then add
// "，" (odd lines) or "。" (even lines) ourselves, so the form is guaranteed.
#pragma once

#include <string>

#include "generate.hpp"
#include "sampling.hpp"

namespace tang {

// heads: UTF-8 text, one character per line (e.g. "春眠不觉"); chars_per_line
// counts the head. Throws UserError for a head the model does not know.
std::string write_acrostic(Predictor& predictor, const Tokenizer& tokenizer,
                           const std::string& heads, std::size_t chars_per_line,
                           const SamplingSettings& settings, Rng& rng,
                           const StepReport& report = {});

}  // namespace tang
