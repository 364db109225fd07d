// heldout_loss.hpp: how well a model predicts text it never trained on.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "gpt.hpp"

namespace tang {

// The mean cross-entropy of a batch: inputs, targets (B, T) -> nats per target.
using BatchLoss =
    std::function<float(std::span<const TokenId> inputs, std::span<const TokenId> targets,
                        std::size_t B, std::size_t T)>;

// Mean cross-entropy in nats per character over every position of `stream`:
// the stream is cut into consecutive windows of block_size targets (each
// window reads only its own characters), evaluated batch_size windows at a
// time with `loss`; the last, shorter window counts too. Returns nothing when
// `stop` (asked before each batch, when given) says to stop: a signal.
std::optional<double> heldout_loss(const BatchLoss& loss, std::size_t block_size,
                                   const std::vector<TokenId>& stream, std::size_t batch_size,
                                   const std::function<bool()>& stop = {});

// The same for a model as it is: forward (common/gpt.hpp) with the tuned
// kernels, then the loss. Allocates activations for batch_size windows.
double heldout_loss(const GPT& model, const std::vector<TokenId>& stream, std::size_t batch_size);

}  // namespace tang
