// poem_request.hpp: what a client asks lesson 11's server for, and its checks.
#pragma once

#include <cstdint>
#include <string>

#include "sampling.hpp"
#include "tokenizer.hpp"

namespace tang {

struct PoemRequest {
  std::string opening;         // the poem starts with it ("" for none)
  std::string heads;           // or: an acrostic, one head character per line
  std::size_t line_chars = 7;  // the acrostic's characters a line, head included: 5 or 7
  std::string verse;  // or: lesson 07's regular verse of this form (五绝, 七绝, 五律,
                      // 七律), tones, rhyme and no repeats, written from its start
  SamplingSettings settings{0.8f, 20, 1.0f};  // lessons 04-06's: T 0.8, top-k 20, top-p off
  std::uint64_t seed = 42;
  std::size_t max_chars = 64;  // new characters at most (not for an acrostic)
  // Each drawn character's probability and the five most likely (logprobs):
  // a softmax over the vocabulary and a top five a character, so only when asked.
  bool probabilities = false;
};

// Why `request` cannot be written with `tokenizer`'s vocabulary ("" when it
// can), naming the field first ("prompt: ..."): a character the vocabulary
// lacks, a newline in the opening, heads of the wrong count or that cannot
// start a line, an opening and heads together, a verse form lesson 07 does
// not know or with an opening or heads.
std::string request_problem(const PoemRequest& request, const Tokenizer& tokenizer);

// "" when `form` names one of lesson 07's four forms, else the problem ("form: ...").
std::string form_problem(const std::string& form);

}  // namespace tang
