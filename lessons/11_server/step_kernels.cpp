#include "11_server/step_kernels.hpp"

#include <memory>
#include <vector>

namespace tang {

namespace {

fast::PanelMatrix panels_of(const Fp32Matrix& m) {
  return fast::PanelMatrix(m.weight, m.rows, m.cols);
}

}  // namespace

LoopToMeasure panel_product_loop(const std::string& name) {
  return {name, [](std::size_t rows, std::size_t cols) -> MatmulLoop {
            std::vector<float> w(rows * cols);  // any numbers: the rate does not depend on them
            for (std::size_t i = 0; i < w.size(); ++i) w[i] = 0.001f * float(i % 977) - 0.4f;
            auto panels = std::make_shared<const fast::PanelMatrix>(w.data(), rows, cols);
            return [panels](float* out, const float* in, std::size_t B) {
              fast::panel_matmul(out, in, *panels, nullptr, B);
            };
          }};
}

PanelWeights::PanelWeights(const GPT& model) : output(panels_of(ModelMatrices<>(model).output)) {
  const ModelMatrices<> plain(model);
  for (std::size_t l = 0; l < model.config().n_layer; ++l) {
    const ModelMatrices<>::Layer m = plain.layer(l);
    layers.push_back(
        {panels_of(m.qkv), panels_of(m.attn_proj), panels_of(m.fc), panels_of(m.fc_proj)});
  }
}

}  // namespace tang
