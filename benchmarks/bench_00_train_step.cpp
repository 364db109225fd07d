// bench_00_train_step: what lesson 00 adds, one optimizer step of training.
//
//   lesson00/train_step/32     sample a batch of 32 x 128 tokens, forward, backward,
//                              clip the gradient, AdamW: tokens/s
//   lesson00/forward_loss/tuned/32   the forward pass and loss alone, for the split: what
//                              TrainableGPT::forward runs (fast::kernels(), fast loss)
//   lesson00/forward_loss/plain/32   the same batch through the lessons' plain kernels
//                              (kPlainKernels, ops::crossentropy_forward): why the trainer
//                              runs the tuned ones
//   lesson00/gelu/plain|tuned  GELU over one batch's MLP activations (32 x 128 x 512):
//                              ops::gelu_forward against fast::gelu_forward
//
// Two threads by default (the trainer's setting on these machines); the floor
// still runs on one. Training does not read the weights once per token, so its
// rows show no x_floor: compare them with PyTorch instead (docs/benchmarks.md).
#include <vector>

#include "00_train/adamw.hpp"
#include "00_train/poem_dataset.hpp"
#include "00_train/trainable_gpt.hpp"
#include "bench_common.hpp"
#include "ops.hpp"

namespace {

using namespace tang;

// The course model's weights in a trainable model, and a stream of random ids
// to cut batches from (the cost of a step does not depend on which ids).
struct TrainingSetup {
  explicit TrainingSetup(std::size_t batch)
      : config(bench::course_model().config()), model(config, batch), optimizer(config, {}) {
    const Tensor<1>& weights = bench::course_model().parameters();
    std::copy(weights.begin(), weights.end(), model.params.begin());
    Rng ids(3);
    stream.resize(1 << 20);
    for (TokenId& id : stream) id = static_cast<TokenId>(ids.below(config.vocab_size));
  }
  GPTConfig config;
  TrainableGPT model;
  AdamW optimizer;
  std::vector<TokenId> stream, inputs, targets;
  Rng rng{1337};
};

void BM_train_step(benchmark::State& state) {
  const auto B = static_cast<std::size_t>(state.range(0));
  TrainingSetup s(B);
  const std::size_t T = s.config.block_size;
  long step = 0;
  bench::StepClock clock(state);
  for (auto _ : state) {
    sample_batch(s.stream, B, T, s.rng, s.inputs, s.targets);
    s.model.zero_grad();
    const float loss = s.model.forward(s.inputs, s.targets, B, T);
    s.model.backward();
    clip_grad_norm(s.model.grads, 1.0f);
    s.optimizer.update(s.model.params, s.model.grads, 3e-4f, ++step);
    benchmark::DoNotOptimize(loss);
  }
  clock.finish(state, static_cast<double>(B * T), "tokens_per_s", /*compare_with_floor=*/false);
}

void BM_forward_loss(benchmark::State& state, bench::Path path) {
  const auto B = static_cast<std::size_t>(state.range(0));
  TrainingSetup s(B);
  const std::size_t T = s.config.block_size, V = s.config.vocab_size;
  sample_batch(s.stream, B, T, s.rng, s.inputs, s.targets);
  // the plain path: the common forward with the lessons' kernels, then the plain loss
  Activations acts(s.config, B, Keep::kEverything);
  Tensor<1> losses = Tensor<1>::from_shape({B * T});
  const GPTWeights weights = bind_weights(s.config, s.model.params.data());
  bench::StepClock clock(state);
  for (auto _ : state) {
    float loss;
    if (path == bench::Path::kTuned) {
      loss = s.model.forward(s.inputs, s.targets, B, T);
    } else {
      auto logits =
          forward(s.config, weights, s.inputs, B, T, acts, kPlainKernels, LogitsFor::kAllPositions);
      loss = ops::crossentropy_forward(losses.data(), logits.data(), logits.data(),
                                       s.targets.data(), B * T, V);
    }
    benchmark::DoNotOptimize(loss);
  }
  clock.finish(state, static_cast<double>(B * T), "tokens_per_s", /*compare_with_floor=*/false);
}

// GELU over the MLP activations of one batch (B x T x 4C floats).
void BM_gelu(benchmark::State& state, bench::Path path) {
  const GPTConfig& config = bench::course_model().config();
  const std::size_t n = 32 * config.block_size * 4 * config.n_embd;
  std::vector<float> in(n), out(n);
  Rng rng(5);
  for (float& x : in) x = rng.normal();
  const auto gelu = path == bench::Path::kPlain ? ops::gelu_forward : fast::gelu_forward;
  bench::StepClock clock(state);
  for (auto _ : state) {
    gelu(out.data(), in.data(), n);
    benchmark::DoNotOptimize(out.data());
  }
  clock.finish(state, 1, "calls_per_s", /*compare_with_floor=*/false);
}

void register_lesson() {
  const auto ms = benchmark::kMillisecond;
  benchmark::RegisterBenchmark("lesson00/train_step", BM_train_step)
      ->Arg(32)
      ->UseRealTime()
      ->Unit(ms);
  for (bench::Path path : bench::kBothPaths) {
    bench::register_row(bench::row_name("lesson00/forward_loss", path), BM_forward_loss, path)
        ->Arg(32)
        ->UseRealTime()
        ->Unit(ms);
  }
  for (bench::Path path : bench::kBothPaths) {
    bench::register_row(bench::row_name("lesson00/gelu", path), BM_gelu, path)
        ->UseRealTime()
        ->Unit(ms);
  }
}

}  // namespace

int main(int argc, char** argv) {
  return tang::bench::bench_main(argc, argv, 2, register_lesson);
}
