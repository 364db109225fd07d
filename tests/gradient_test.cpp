// gradient_test: every backward pass against finite differences.
//
// For an operation y = f(x) we pick a random "upstream gradient" R and the
// scalar L = sum(y * R). The backward pass, fed dout = R, must give dL/dx; the
// numeric check nudges each input by +-eps and measures
// (L(x + eps) - L(x - eps)) / (2 eps), with L summed in double precision.
//
// The matrix product and the attention have their backward pass only under the
// hood (common/fast/): those pairs are checked as fast::; LayerNorm, GELU, the
// residual, the embedding and the loss as ops::, whose backward halves the
// trainer uses (GELU's tuned pair too). fast_test.cpp checks that each fast::
// forward agrees with its plain ops:: counterpart.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "00_train/trainable_gpt.hpp"
#include "fast/fast.hpp"
#include "ops.hpp"
#include "rng.hpp"

namespace {

using Floats = std::vector<float>;

Floats random_floats(std::size_t n, tang::Rng& rng, float scale = 1.0f) {
  Floats v(n);
  for (float& x : v) x = scale * rng.normal();
  return v;
}

double weighted_sum(const Floats& y, const Floats& r) {
  double s = 0.0;
  for (std::size_t i = 0; i < y.size(); ++i) s += static_cast<double>(y[i]) * r[i];
  return s;
}

// Compares `analytic` with central differences of `loss` over every entry of `x`.
void expect_matches_finite_differences(const char* what, Floats& x, const Floats& analytic,
                                       const std::function<double()>& loss, float eps = 1e-2f,
                                       double tolerance = 1e-2) {
  ASSERT_EQ(x.size(), analytic.size());
  Floats numeric(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float saved = x[i];
    x[i] = saved + eps;
    const double up = loss();
    x[i] = saved - eps;
    const double down = loss();
    x[i] = saved;
    numeric[i] = static_cast<float>((up - down) / (2.0 * eps));
  }
  // Errors are measured against the largest gradient, so that entries near
  // zero (where float rounding dominates) do not decide the verdict.
  double scale = 1e-6, worst = 0.0;
  std::size_t worst_index = 0;
  for (float g : numeric) scale = std::max(scale, static_cast<double>(std::abs(g)));
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double error = std::abs(static_cast<double>(numeric[i]) - analytic[i]) / scale;
    if (error > worst) worst = error, worst_index = i;
  }
  EXPECT_LE(worst, tolerance) << what << ": backward disagrees with finite differences at entry "
                              << worst_index << " (analytic " << analytic[worst_index]
                              << ", numeric " << numeric[worst_index] << ", error " << worst
                              << " of the largest gradient " << scale << ")";
}

TEST(OpGradients, LayerNorm) {
  tang::Rng rng(1);
  const std::size_t N = 3, C = 8;
  Floats x = random_floats(N * C, rng), w = random_floats(C, rng), b = random_floats(C, rng);
  const Floats r = random_floats(N * C, rng);
  Floats y(N * C), mean(N), rstd(N);
  auto loss = [&] {
    tang::ops::layernorm_forward(y.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(),
                                 N, C);
    return weighted_sum(y, r);
  };
  loss();
  Floats dx(N * C), dw(C), db(C);
  tang::ops::layernorm_backward(dx.data(), dw.data(), db.data(), r.data(), x.data(), w.data(),
                                mean.data(), rstd.data(), N, C);
  expect_matches_finite_differences("layernorm dx", x, dx, loss);
  expect_matches_finite_differences("layernorm dweight", w, dw, loss);
  expect_matches_finite_differences("layernorm dbias", b, db, loss);
}

TEST(OpGradients, Matmul) {
  tang::Rng rng(2);
  const std::size_t N = 4, IC = 5, OC = 3;
  Floats x = random_floats(N * IC, rng), w = random_floats(OC * IC, rng),
         b = random_floats(OC, rng);
  const Floats r = random_floats(N * OC, rng);
  Floats y(N * OC);
  auto loss = [&] {
    tang::fast::matmul_forward(y.data(), x.data(), w.data(), b.data(), N, IC, OC);
    return weighted_sum(y, r);
  };
  Floats dx(N * IC), dw(OC * IC), db(OC);
  tang::fast::matmul_backward(dx.data(), dw.data(), db.data(), r.data(), x.data(), w.data(), N, IC,
                              OC);
  expect_matches_finite_differences("matmul dinp", x, dx, loss);
  expect_matches_finite_differences("matmul dweight", w, dw, loss);
  expect_matches_finite_differences("matmul dbias", b, db, loss);
}

// One row (generation's gemv) and many rows (sgemm), plain and tuned, with and
// without a bias: all the same product. IC = 37 leaves a ragged end after the
// 8 lanes of ops::dot.
TEST(OpGradients, MatmulSingleRowUsesTheSameMaths) {
  tang::Rng rng(3);
  const std::size_t IC = 37, OC = 4;
  for (const std::size_t N : {1u, 3u}) {
    const Floats x = random_floats(N * IC, rng), w = random_floats(OC * IC, rng),
                 b = random_floats(OC, rng);
    for (const bool with_bias : {true, false}) {
      Floats plain(N * OC), tuned(N * OC), reference(N * OC);
      const float* bias = with_bias ? b.data() : nullptr;
      tang::ops::matmul_forward(plain.data(), x.data(), w.data(), bias, N, IC, OC);
      tang::fast::matmul_forward(tuned.data(), x.data(), w.data(), bias, N, IC, OC);
      for (std::size_t n = 0; n < N; ++n) {
        for (std::size_t o = 0; o < OC; ++o) {
          double s = with_bias ? b[o] : 0.0;
          for (std::size_t i = 0; i < IC; ++i)
            s += static_cast<double>(w[o * IC + i]) * x[n * IC + i];
          reference[n * OC + o] = static_cast<float>(s);
        }
      }
      for (std::size_t i = 0; i < N * OC; ++i) {
        EXPECT_NEAR(plain[i], reference[i], 1e-5) << "ops, N " << N << ", bias " << with_bias;
        EXPECT_NEAR(tuned[i], reference[i], 1e-5) << "fast, N " << N << ", bias " << with_bias;
      }
    }
  }
}

// Training splits each matrix product's rows over the OpenMP threads (each
// thread its own single-threaded sgemm): with uneven shares the result must
// still be the plain product, in both directions.
TEST(OpGradients, MatmulSplitOverThreadsIsThePlainProduct) {
  tang::Rng rng(5);
  const std::size_t N = 131, IC = 24, OC = 37;  // N >= 64: split; 131 rows share unevenly
  const Floats x = random_floats(N * IC, rng), w = random_floats(OC * IC, rng),
               b = random_floats(OC, rng), dout = random_floats(N * OC, rng);
  Floats y(N * OC), dx(N * IC, 0.5f), dw(OC * IC, 0.25f), db(OC, 0.0f);
  const int threads_before = omp_get_max_threads();
  omp_set_num_threads(3);
  tang::fast::matmul_forward(y.data(), x.data(), w.data(), b.data(), N, IC, OC);
  tang::fast::matmul_backward(dx.data(), dw.data(), db.data(), dout.data(), x.data(), w.data(), N,
                              IC, OC);
  omp_set_num_threads(threads_before);
  for (std::size_t n = 0; n < N; ++n) {
    for (std::size_t o = 0; o < OC; ++o) {
      double s = b[o];
      for (std::size_t i = 0; i < IC; ++i) s += static_cast<double>(x[n * IC + i]) * w[o * IC + i];
      ASSERT_NEAR(y[n * OC + o], s, 1e-4) << "out row " << n << " col " << o;
    }
    for (std::size_t i = 0; i < IC; ++i) {  // dx accumulates onto its 0.5
      double s = 0.5;
      for (std::size_t o = 0; o < OC; ++o)
        s += static_cast<double>(dout[n * OC + o]) * w[o * IC + i];
      ASSERT_NEAR(dx[n * IC + i], s, 1e-4) << "dinp row " << n << " col " << i;
    }
  }
  for (std::size_t o = 0; o < OC; ++o) {
    for (std::size_t i = 0; i < IC; ++i) {  // dw accumulates onto its 0.25
      double s = 0.25;
      for (std::size_t n = 0; n < N; ++n)
        s += static_cast<double>(dout[n * OC + o]) * x[n * IC + i];
      ASSERT_NEAR(dw[o * IC + i], s, 1e-3) << "dweight row " << o << " col " << i;
    }
  }
}

// The tuned GELU runs in vector lanes and, for big tensors, in chunks over the
// threads: every element must get what it gets alone (the one-element call is scalar).
TEST(OpGradients, GeluInChunksMatchesOneAtATime) {
  tang::Rng rng(6);
  const std::size_t n = 3 * 4096 + 5;  // more than one chunk, and a ragged end
  const Floats x = random_floats(n, rng, 3.0f), dout = random_floats(n, rng);
  Floats y(n), dx(n, 0.0f);
  tang::fast::gelu_forward(y.data(), x.data(), n);
  tang::fast::gelu_backward(dx.data(), x.data(), dout.data(), n);
  for (std::size_t i = 0; i < n; ++i) {
    float one = 0.0f, done = 0.0f;
    tang::fast::gelu_forward(&one, &x[i], 1);
    tang::fast::gelu_backward(&done, &x[i], &dout[i], 1);
    ASSERT_NEAR(y[i], one, 1e-6f * (1.0f + std::abs(one))) << "gelu at " << i << " x " << x[i];
    ASSERT_NEAR(dx[i], done, 1e-6f * (1.0f + std::abs(done))) << "gelu' at " << i;
  }
}

TEST(OpGradients, Gelu) {
  tang::Rng rng(4);
  const std::size_t n = 40;
  Floats x = random_floats(n, rng, 2.0f);
  const Floats r = random_floats(n, rng);
  Floats y(n);
  auto loss = [&] {
    tang::ops::gelu_forward(y.data(), x.data(), n);
    return weighted_sum(y, r);
  };
  Floats dx(n);
  tang::ops::gelu_backward(dx.data(), x.data(), r.data(), n);
  expect_matches_finite_differences("gelu", x, dx, loss, 1e-3f);

  auto fast_loss = [&] {
    tang::fast::gelu_forward(y.data(), x.data(), n);
    return weighted_sum(y, r);
  };
  Floats fast_dx(n);
  tang::fast::gelu_backward(fast_dx.data(), x.data(), r.data(), n);
  expect_matches_finite_differences("fast gelu", x, fast_dx, fast_loss, 1e-3f);
}

TEST(OpGradients, Residual) {
  tang::Rng rng(5);
  const std::size_t n = 10;
  Floats a = random_floats(n, rng), b = random_floats(n, rng);
  const Floats r = random_floats(n, rng);
  Floats y(n);
  auto loss = [&] {
    tang::ops::residual_forward(y.data(), a.data(), b.data(), n);
    return weighted_sum(y, r);
  };
  Floats da(n), db(n);
  tang::ops::residual_backward(da.data(), db.data(), r.data(), n);
  expect_matches_finite_differences("residual da", a, da, loss);
  expect_matches_finite_differences("residual db", b, db, loss);
}

TEST(OpGradients, Encoder) {
  tang::Rng rng(6);
  const std::size_t B = 2, T = 3, C = 4, V = 5;
  const std::vector<tang::TokenId> tokens{1, 4, 1, 0, 2, 2};
  Floats wte = random_floats(V * C, rng), wpe = random_floats(T * C, rng);
  const Floats r = random_floats(B * T * C, rng);
  Floats y(B * T * C);
  auto loss = [&] {
    tang::ops::encoder_forward(y.data(), tokens.data(), wte.data(), wpe.data(), B, T, C);
    return weighted_sum(y, r);
  };
  Floats dwte(V * C), dwpe(T * C);
  tang::ops::encoder_backward(dwte.data(), dwpe.data(), r.data(), tokens.data(), B, T, C);
  expect_matches_finite_differences("encoder dwte", wte, dwte, loss);
  expect_matches_finite_differences("encoder dwpe", wpe, dwpe, loss);
}

TEST(OpGradients, CausalAttention) {
  tang::Rng rng(7);
  const std::size_t B = 2, T = 5, C = 8, NH = 2;
  Floats qkv = random_floats(B * T * 3 * C, rng);
  const Floats r = random_floats(B * T * C, rng);
  Floats y(B * T * C), att(B * NH * T * T);
  auto loss = [&] {
    tang::fast::attention_forward(y.data(), att.data(), qkv.data(), B, T, C, NH);
    return weighted_sum(y, r);
  };
  loss();
  Floats dqkv(B * T * 3 * C);
  tang::fast::attention_backward(dqkv.data(), r.data(), qkv.data(), att.data(), B, T, C, NH);
  expect_matches_finite_differences("attention dqkv", qkv, dqkv, loss);
}

TEST(OpGradients, CrossEntropy) {
  tang::Rng rng(8);
  const std::size_t N = 3, V = 6;
  Floats logits = random_floats(N * V, rng);
  const std::vector<tang::TokenId> targets{2, 0, 5};
  Floats probs(N * V), losses(N);
  auto loss = [&] {
    return static_cast<double>(tang::ops::crossentropy_forward(
        losses.data(), probs.data(), logits.data(), targets.data(), N, V));
  };
  loss();
  Floats dlogits(N * V);
  tang::ops::crossentropy_backward(dlogits.data(), probs.data(), targets.data(), N, V);
  expect_matches_finite_differences("cross-entropy dlogits", logits, dlogits, loss);

  auto fast_loss = [&] {
    return static_cast<double>(tang::fast::crossentropy_forward(
        losses.data(), probs.data(), logits.data(), targets.data(), N, V));
  };
  fast_loss();
  Floats fast_dlogits(N * V);
  tang::fast::crossentropy_backward(fast_dlogits.data(), probs.data(), targets.data(), N, V);
  expect_matches_finite_differences("fast cross-entropy dlogits", logits, fast_dlogits, fast_loss);
}

// Every parameter of a tiny GPT of `config` (two sequences of 6) against finite
// differences; with `each_attention_tensor`, each attention tensor also on its own
// scale, where a small wrong gradient would hide under the largest one of the model.
void expect_whole_model_gradient(const tang::GPTConfig& config, const std::string& name,
                                 bool each_attention_tensor) {
  tang::TrainableGPT model(config, 2);
  tang::Rng rng(9);
  for (float& p : model.params) p = 0.3f * rng.normal();
  const std::vector<tang::TokenId> inputs{1, 2, 3, 4, 5, 6, 0, 6, 5, 4, 3, 2};
  const std::vector<tang::TokenId> targets{2, 3, 4, 5, 6, 0, 6, 5, 4, 3, 2, 1};
  model.zero_grad();
  model.forward(inputs, targets, 2, 6);
  model.backward();
  Floats analytic(model.grads.begin(), model.grads.end());
  Floats params(model.params.begin(), model.params.end());
  auto loss = [&] {
    std::copy(params.begin(), params.end(), model.params.begin());
    return static_cast<double>(model.forward(inputs, targets, 2, 6));
  };
  expect_matches_finite_differences(name.c_str(), params, analytic, loss);
  if (!each_attention_tensor) return;
  for (const tang::ParameterSpec& spec : tang::parameter_layout(config)) {
    if (spec.name.find(".attn.") == std::string::npos) continue;
    const auto first = static_cast<std::ptrdiff_t>(spec.offset);
    const auto last = first + static_cast<std::ptrdiff_t>(spec.size);
    Floats part(params.begin() + first, params.begin() + last);
    const Floats part_analytic(analytic.begin() + first, analytic.begin() + last);
    auto part_loss = [&] {
      std::copy(part.begin(), part.end(), params.begin() + first);
      return loss();
    };
    expect_matches_finite_differences((name + " " + spec.name).c_str(), part, part_analytic,
                                      part_loss);
    std::copy(part.begin(), part.end(), params.begin() + first);
  }
}

// The whole model: every parameter of a tiny GPT.
TEST(ModelGradient, WholeTinyModelMatchesFiniteDifferences) {
  expect_whole_model_gradient({7, 6, 2, 2, 8}, "whole model", false);
}

// The same with dropout: its masks are fixed by the seed, so the loss is again
// a smooth function of the parameters, and backward must go through the masks.
TEST(ModelGradient, WithDropoutMatchesFiniteDifferences) {
  const tang::GPTConfig config{7, 6, 2, 2, 8};
  tang::TrainableGPT model(config, 2, 0.25f);
  tang::Rng rng(9);
  for (float& p : model.params) p = 0.3f * rng.normal();
  const std::vector<tang::TokenId> inputs{1, 2, 3, 4, 5, 6, 0, 6, 5, 4, 3, 2};
  const std::vector<tang::TokenId> targets{2, 3, 4, 5, 6, 0, 6, 5, 4, 3, 2, 1};
  const std::uint64_t masks = 42;
  model.zero_grad();
  const float dropped = model.training_forward(inputs, targets, 2, 6, masks);
  model.backward();
  ASSERT_NE(dropped, model.forward(inputs, targets, 2, 6)) << "dropout changed nothing";
  Floats analytic(model.grads.begin(), model.grads.end());
  Floats params(model.params.begin(), model.params.end());
  auto loss = [&] {
    std::copy(params.begin(), params.end(), model.params.begin());
    return static_cast<double>(model.training_forward(inputs, targets, 2, 6, masks));
  };
  expect_matches_finite_differences("whole model with dropout", params, analytic, loss);
}

// Lesson 10's variants: their own steps (spreading key/value heads over query
// heads, rebuilding keys and values from a latent) and the backward of each.
struct Variant {
  const char* name;
  std::size_t kv_heads, kv_latent;
  std::size_t heads = 4;  // 8: groups of 4, so h / KVH and h / (NH / KVH) differ
};
void PrintTo(const Variant& v, std::ostream* os) {
  *os << v.name;
}
class VariantGradient : public ::testing::TestWithParam<Variant> {};

TEST_P(VariantGradient, WholeTinyModelMatchesFiniteDifferences) {
  const Variant v = GetParam();
  expect_whole_model_gradient({7, 6, 2, v.heads, 8, v.kv_heads, v.kv_latent}, v.name, true);
}

INSTANTIATE_TEST_SUITE_P(Attention, VariantGradient,
                         ::testing::Values(Variant{"grouped_query", 2, 0},
                                           Variant{"grouped_query_8_heads", 2, 0, 8},
                                           Variant{"multi_query", 1, 0}, Variant{"latent", 0, 3}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
