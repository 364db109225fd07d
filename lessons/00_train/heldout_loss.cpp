#include "00_train/heldout_loss.hpp"

#include <algorithm>

#include "fast/fast.hpp"

namespace tang {

std::optional<double> heldout_loss(const BatchLoss& loss, std::size_t T,
                                   const std::vector<TokenId>& stream, std::size_t batch_size,
                                   const std::function<bool()>& stop) {
  if (stream.size() < 2) return 0.0;
  const std::size_t targets = stream.size() - 1;
  double total = 0.0;
  std::vector<TokenId> inputs, outputs;
  auto run = [&](std::size_t first_window, std::size_t windows, std::size_t length) {
    inputs.clear();
    outputs.clear();
    for (std::size_t w = first_window; w < first_window + windows; ++w) {
      const auto begin = stream.begin() + static_cast<std::ptrdiff_t>(w * T);
      inputs.insert(inputs.end(), begin, begin + static_cast<std::ptrdiff_t>(length));
      outputs.insert(outputs.end(), begin + 1, begin + 1 + static_cast<std::ptrdiff_t>(length));
    }
    const float mean = loss(inputs, outputs, windows, length);
    total += static_cast<double>(mean) * static_cast<double>(windows * length);
  };
  const std::size_t full_windows = targets / T;
  for (std::size_t w = 0; w < full_windows; w += batch_size) {
    if (stop && stop()) return std::nullopt;
    run(w, std::min(batch_size, full_windows - w), T);
  }
  if (const std::size_t rest = targets % T; rest > 0) run(full_windows, 1, rest);
  return total / static_cast<double>(targets);
}

double heldout_loss(const GPT& model, const std::vector<TokenId>& stream, std::size_t batch_size) {
  const GPTConfig& config = model.config();
  Activations acts(config, batch_size, Keep::kEverything);
  std::vector<float> losses(batch_size * config.block_size);
  const BatchLoss loss = [&](std::span<const TokenId> inputs, std::span<const TokenId> targets,
                             std::size_t B, std::size_t T) {
    auto logits = forward(config, model.weights(), inputs, B, T, acts, fast::kernels(),
                          LogitsFor::kAllPositions);
    return fast::crossentropy_forward(losses.data(), logits.data(), logits.data(), targets.data(),
                                      B * T, config.vocab_size);
  };
  return *heldout_loss(loss, config.block_size, stream, batch_size);
}

}  // namespace tang
