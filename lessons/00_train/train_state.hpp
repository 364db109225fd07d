// train_state.hpp: everything needed to continue training exactly where it stopped.
//
// One safetensors file with three flat tensors of the parameter layout:
// "params", "adam.m", "adam.v"; and in __metadata__ the model description (as
// in a model checkpoint) plus "step", "rng_state", "elapsed_seconds", the
// run's outputs and the training settings, so a resumed run can refuse a
// different configuration.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "00_train/adamw.hpp"
#include "00_train/trainable_gpt.hpp"

namespace tang {

struct TrainProgress {
  long step = 0;                 // optimizer steps done
  std::uint64_t rng_state = 0;   // of the batch sampler
  double elapsed_seconds = 0.0;  // training time over all runs so far
  // The log row of a step whose held-out evaluation a signal cut short (its
  // held-out field empty): the resumed run evaluates it first. Empty if none.
  std::string pending_row;
  // The --out and --log the run wrote (canonical paths): a resumed run may
  // replace them, and only them.
  std::vector<std::string> outputs;
};

void save_train_state(const std::string& path, const TrainableGPT& model, const AdamW& optimizer,
                      const Tokenizer& tokenizer, const TrainProgress& progress,
                      const std::map<std::string, std::string>& settings);

// Fills model and optimizer; throws UserError when the file is not a training
// state of this very model config and vocabulary, or settings disagree.
// The outputs a state records (none for a state older than that record).
std::vector<std::string> outputs_recorded_in(const std::string& path);

TrainProgress load_train_state(const std::string& path, TrainableGPT& model, AdamW& optimizer,
                               const Tokenizer& tokenizer,
                               const std::map<std::string, std::string>& settings);

}  // namespace tang
