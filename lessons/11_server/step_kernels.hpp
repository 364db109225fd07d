// step_kernels.hpp: the engine's weight matrices, multiplied by a product of
// the caller's choice.
//
// Lesson 06's cached forward takes its matrices as a parameter (ModelMatrices).
// The engine runs it over the model's own floats with one product for every
// matrix: the lesson's loop (ops::matmul_forward, the default: served poems are
// lesson 06's, bit for bit) or another of the caller's; or, on the tuned path
// (poem_server --tuned), fast::panel_matmul over a copy of the weights made once
// in panels of output channels (PanelWeights): every output summed in the same
// order whatever else is in the batch, so served poems are the tuned
// single-text writer's, bit for bit. With it, the tuned GELU (fast::vector_gelu:
// erf 8 or 16 at a time).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "06_kvcache/kv_cache.hpp"         // ModelMatrices, Fp32Matrix
#include "06_kvcache/machine_profile.hpp"  // Fp32Product
#include "fast/fast.hpp"                   // PanelMatrix, panel_matmul

namespace tang {

// out (N, OC) = inp (N, IC) @ weight^T + bias, as ops::matmul_forward.
using MatmulKernel = Fp32Product;
// out (n) = GELU(inp), as ops::gelu_forward.
using GeluKernel = void (*)(float* out, const float* inp, std::size_t n);

struct KernelMatrix {
  Fp32Matrix matrix;
  MatmulKernel kernel;
  const fast::PanelMatrix* panels = nullptr;  // given: its panel copy, multiplied by panel_matmul
  void matmul(float* out, const float* inp, const float* bias, std::size_t N) const {
    if (panels) return fast::panel_matmul(out, inp, *panels, bias, N);
    kernel(out, inp, matrix.weight, bias, N, matrix.cols, matrix.rows);
  }
};

// Every matrix of `model` copied once into panels (fast::PanelMatrix): 6.8 MB
// more for our model, made when an engine on the tuned path starts.
struct PanelWeights {
  explicit PanelWeights(const GPT& model);
  struct Layer {
    fast::PanelMatrix qkv, attn_proj, fc, fc_proj;
  };
  std::vector<Layer> layers;
  fast::PanelMatrix output;
};

// panel_matmul as a loop for the machine profile (lesson 06's cost model): its
// rate on a panel copy of a matrix of the profile's, named `name`.
LoopToMeasure panel_product_loop(const std::string& name);

// ModelMatrices' shape (layer(l).qkv ..., output), every product `kernel`, and
// the GELU the cached forward runs (step_gelu): `gelu`.
class KernelMatrices {
 public:
  KernelMatrices(const GPT& model, MatmulKernel kernel, GeluKernel gelu = ops::gelu_forward)
      : output{ModelMatrices<>(model).output, kernel},
        plain_(model),
        kernel_(kernel),
        gelu_(gelu) {}
  // Every product panel_matmul over `panels` (made from `model`, outliving this).
  KernelMatrices(const GPT& model, const PanelWeights& panels, GeluKernel gelu)
      : output{ModelMatrices<>(model).output, nullptr, &panels.output},
        plain_(model),
        kernel_(nullptr),
        gelu_(gelu),
        panels_(&panels) {}
  struct Layer {
    KernelMatrix qkv, attn_proj, fc, fc_proj;
  };
  Layer layer(std::size_t l) const {
    const ModelMatrices<>::Layer m = plain_.layer(l);
    if (panels_) {
      const PanelWeights::Layer& p = panels_->layers[l];
      return {{m.qkv, nullptr, &p.qkv},
              {m.attn_proj, nullptr, &p.attn_proj},
              {m.fc, nullptr, &p.fc},
              {m.fc_proj, nullptr, &p.fc_proj}};
    }
    return {{m.qkv, kernel_}, {m.attn_proj, kernel_}, {m.fc, kernel_}, {m.fc_proj, kernel_}};
  }
  KernelMatrix output;  // the tied output layer
  void gelu(float* out, const float* inp, std::size_t n) const { gelu_(out, inp, n); }

 private:
  ModelMatrices<> plain_;  // the model's own floats
  MatmulKernel kernel_;
  GeluKernel gelu_;
  const PanelWeights* panels_ = nullptr;
};

}  // namespace tang
