// fixed_form.hpp: a poem written under a mask that changes with the position.
//
// The acrostic (acrostic.hpp) puts the punctuation in itself. Here the model
// writes every character, newline included, and a mask chosen for each
// position decides what it may write there: with the masks of exercise 05 the
// only poems it can produce are 七言绝句, whatever the sampling settings.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "05_acrostic/logit_mask.hpp"
#include "generate.hpp"
#include "sampling.hpp"

namespace tang {

// The mask for the character at `position` (1-based, inside the poem).
using MaskForPosition = std::function<LogitMask(std::size_t position)>;

// Writes one poem after a newline. Before drawing character number `position`
// it applies mask_for(position), then samples with `settings` (mask first, as
// logit_mask.hpp explains). Stops after the model writes a newline or after
// max_chars characters. Returns what was written, the newline included.
std::vector<TokenId> write_under_masks(Predictor& predictor, const Tokenizer& tokenizer,
                                       const MaskForPosition& mask_for,
                                       const SamplingSettings& settings, Rng& rng,
                                       std::size_t max_chars, const StepReport& report = {});

// "" when `written` is a 七言绝句 (7 characters, "，", 7, "。", 7, "，", 7, "。",
// then "\n", with no "，" "。" or newline anywhere else); otherwise what is
// wrong, in words, e.g. "character 8 is '花', expected '，'".
std::string qiyan_jueju_problem(const Tokenizer& tokenizer, const std::vector<TokenId>& written);

}  // namespace tang
