// reference_check.hpp: where your exercise code first writes other text than the
// reference solutions, and why (the `learner` preset).
//
// In the learner build the lessons write with your functions. When a poem then
// differs from the one on the lesson's page, two questions follow: at which
// character, and is your function wrong, or did it only round differently (a sum
// in another order moves a probability by 1e-8, and a coin that close to the
// border between two characters then falls on the other one)?
//
// checked_against_reference() answers both. At every step it runs a second picker,
// built from the reference solutions, on a copy of the same logits with a copy of
// the same random state. At the first step of a poem where the two choose
// differently it prints one note on stderr, for example
//
//   note: new character 13: yours 月, the reference solutions' 风 (exercise 02), on the
//   same logits; only rounding: the coin 0.412345 moved by 1.2e-07 makes theirs 月 too
//
// or, when no coin within 1e-4 makes the reference choose your character, that your
// code disagrees with the reference on those logits, and the tests to run.
#pragma once

#include <iostream>
#include <string>
#include <vector>

#include "generate.hpp"
#include "tokenizer.hpp"

namespace tang {

// Whether this build runs your exercise files (the learner preset).
bool runs_learner_code();

// `yours` itself, with the check above when `enabled` (by default: in the learner
// build). `exercises` are the exercises the two pickers differ in ({"02", "03"}).
// The reference picker must draw at most one coin a step and give the same answer
// when called again for the same step.
Picker checked_against_reference(Picker yours, Picker reference, const Tokenizer& tokenizer,
                                 std::vector<std::string> exercises,
                                 std::ostream& report = std::cerr,
                                 bool enabled = runs_learner_code());

// A random state whose next uniform() is `coin` (a multiple of 2^-24 in [0, 1)):
// xorshift64* run backwards. The check uses it to retry a step with a nudged coin.
Rng rng_whose_next_coin_is(float coin);

}  // namespace tang
