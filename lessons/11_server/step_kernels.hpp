// step_kernels.hpp: the engine's weight matrices, multiplied by a product of
// the caller's choice.
//
// Lesson 06's cached forward takes its matrices as a parameter (ModelMatrices).
// The engine runs it over the model's own floats with one product for every
// matrix: the lesson's loop (ops::matmul_forward, the default: served poems are
// lesson 06's, bit for bit) or a tuned one that poem_server --tuned passes
// (fast::few_rows_matmul: a row's sums in the same order whatever else is in
// the batch, so served poems are the tuned single-text writer's, bit for bit),
// with its GELU (fast::vector_gelu: erf 8 or 16 at a time).
#pragma once

#include <cstddef>

#include "06_kvcache/kv_cache.hpp"         // ModelMatrices, Fp32Matrix
#include "06_kvcache/machine_profile.hpp"  // Fp32Product

namespace tang {

// out (N, OC) = inp (N, IC) @ weight^T + bias, as ops::matmul_forward.
using MatmulKernel = Fp32Product;
// out (n) = GELU(inp), as ops::gelu_forward.
using GeluKernel = void (*)(float* out, const float* inp, std::size_t n);

struct KernelMatrix {
  Fp32Matrix matrix;
  MatmulKernel kernel;
  void matmul(float* out, const float* inp, const float* bias, std::size_t N) const {
    kernel(out, inp, matrix.weight, bias, N, matrix.cols, matrix.rows);
  }
};

// ModelMatrices' shape (layer(l).qkv ..., output), every product `kernel`, and
// the GELU the cached forward runs (step_gelu): `gelu`.
class KernelMatrices {
 public:
  KernelMatrices(const GPT& model, MatmulKernel kernel, GeluKernel gelu = ops::gelu_forward)
      : output{ModelMatrices<>(model).output, kernel},
        plain_(model),
        kernel_(kernel),
        gelu_(gelu) {}
  struct Layer {
    KernelMatrix qkv, attn_proj, fc, fc_proj;
  };
  Layer layer(std::size_t l) const {
    const ModelMatrices<>::Layer m = plain_.layer(l);
    return {{m.qkv, kernel_}, {m.attn_proj, kernel_}, {m.fc, kernel_}, {m.fc_proj, kernel_}};
  }
  KernelMatrix output;  // the tied output layer
  void gelu(float* out, const float* inp, std::size_t n) const { gelu_(out, inp, n); }

 private:
  ModelMatrices<> plain_;  // the model's own floats
  MatmulKernel kernel_;
  GeluKernel gelu_;
};

}  // namespace tang
