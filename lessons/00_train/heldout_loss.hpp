// heldout_loss.hpp: how well a model predicts text it never trained on.
#pragma once

#include <vector>

#include "trainable_gpt.hpp"

namespace tang {

// Mean cross-entropy in nats per character over every position of `stream`:
// the stream is cut into consecutive windows of block_size targets (each
// window reads only its own characters), evaluated batch_size windows at a
// time; the last, shorter window counts too.
double heldout_loss(TrainableGPT& model, const std::vector<TokenId>& stream,
                    std::size_t batch_size);

}  // namespace tang
