// lesson_00_train: train the course's GPT on the Tang poems, in C++.
//
//   lesson_00_train                 train (or continue with --resume)
//   lesson_00_train --eval [PATH]   print the held-out loss of a checkpoint
//
// Every optimizer step: sample a batch, forward, backward, clip the gradient,
// AdamW with a cosine learning rate. Progress goes to the terminal and a CSV
// log; the full training state (weights + AdamW moments + sampler state) is
// saved regularly and on Ctrl-C, so training can stop and resume any number
// of times and still end with the same weights as one uninterrupted run.
#include <cblas.h>
#include <omp.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "adamw.hpp"
#include "checkpoint.hpp"
#include "errors.hpp"
#include "fast/blas_cores.hpp"
#include "heldout_loss.hpp"
#include "poem_dataset.hpp"
#include "program.hpp"
#include "train_state.hpp"
#include "trainable_gpt.hpp"

namespace {

volatile std::sig_atomic_t g_interrupted = 0;
void on_interrupt(int) {
  g_interrupted = 1;
}

struct Options {
  std::string data = std::string(TANG_DATA_DIR) + "/tang_poems.txt";
  std::string out = std::string(TANG_DATA_DIR) + "/tang_gpt.safetensors";
  std::string state = std::string(TANG_DATA_DIR) + "/checkpoints/train_state.safetensors";
  std::string log = std::string(TANG_DATA_DIR) + "/tang_gpt_training.csv";
  std::string eval_path;
  bool eval = false, resume = false;
  long steps = 5900, warmup = 100, eval_every = 500, save_every = 100, print_every = 10;
  long stop_at = -1;
  std::size_t batch = 32, block = 128, layers = 4, heads = 4, dims = 128;
  float lr = 3e-3f, min_lr = 3e-4f, weight_decay = 0.1f, clip = 1.0f;
  std::uint64_t seed = 1337;
  int threads = 0;
};

std::string format_duration(double seconds) {
  const long s = static_cast<long>(seconds);
  char text[32];
  std::snprintf(text, sizeof text, "%ldh%02ldm%02lds", s / 3600, s / 60 % 60, s % 60);
  return text;
}

// The settings a resumed run must share with the run that saved the state.
std::map<std::string, std::string> settings_of(const Options& o) {
  return {{"steps", std::to_string(o.steps)},   {"warmup", std::to_string(o.warmup)},
          {"batch", std::to_string(o.batch)},   {"lr", std::to_string(o.lr)},
          {"min_lr", std::to_string(o.min_lr)}, {"weight_decay", std::to_string(o.weight_decay)},
          {"clip", std::to_string(o.clip)},     {"seed", std::to_string(o.seed)}};
}

int evaluate_checkpoint(const Options& o) {
  const std::string path = o.eval_path.empty() ? o.out : o.eval_path;
  const tang::GPT model = tang::load_checkpoint(path);
  const tang::PoemDataset data = tang::load_poem_dataset(o.data);
  // Encode the held-out poems with the checkpoint's own vocabulary.
  const std::string heldout_text = data.tokenizer.decode(data.heldout);
  const std::vector<tang::TokenId> stream = model.tokenizer().encode(heldout_text);
  const double loss = tang::heldout_loss(model, stream, o.batch);
  std::printf("checkpoint   %s\nmodel        %s\nheld-out     %zu poems, %zu characters\n",
              path.c_str(), model.config().describe().c_str(), data.heldout_poems, stream.size());
  std::printf("held-out loss %.4f nats/char (perplexity %.1f)\n", loss, std::exp(loss));
  return 0;
}

int train(const Options& o) {
  const tang::PoemDataset data = tang::load_poem_dataset(o.data);
  tang::GPTConfig config{data.tokenizer.size(), o.block, o.layers, o.heads, o.dims};
  config.validate();
  if (o.steps <= o.warmup) throw tang::UserError("--steps must be larger than --warmup");

  tang::TrainableGPT model(config, o.batch);
  tang::AdamW optimizer(config, {0.9f, 0.95f, 1e-8f, o.weight_decay});
  tang::Rng rng(o.seed);
  tang::TrainProgress progress;
  const auto settings = settings_of(o);
  if (o.resume && std::filesystem::exists(o.state)) {
    progress = tang::load_train_state(o.state, model, optimizer, data.tokenizer, settings);
    rng.set_state(progress.rng_state);
    std::printf("resumed from %s at step %ld\n", o.state.c_str(), progress.step);
  } else {
    if (o.resume) std::printf("no training state at %s yet: starting afresh\n", o.state.c_str());
    model.init_random(rng);
  }
  if (const auto folder = std::filesystem::path(o.state).parent_path(); !folder.empty()) {
    std::filesystem::create_directories(folder);
  }

  std::printf("model        %s, %zu parameters\n", config.describe().c_str(), model.params.size());
  std::printf("corpus       %zu training poems (%zu characters), %zu held out (%zu)\n",
              data.train_poems, data.train.size(), data.heldout_poems, data.heldout.size());
  std::printf("training     %ld steps of %zu x %zu tokens, lr %.1e -> %.1e, %d threads, BLAS %s\n",
              o.steps, o.batch, o.block, o.lr, o.min_lr, omp_get_max_threads(),
              tang::blas_core_name());

  const bool new_log = progress.step == 0 || !std::filesystem::exists(o.log);
  std::ofstream log(o.log, new_log ? std::ios::trunc : std::ios::app);
  if (!log) throw tang::UserError("cannot write the log " + o.log);
  if (new_log) log << "step,lr,train_loss,heldout_loss,grad_norm,tokens_per_s,elapsed_s\n";

  auto save = [&](bool export_model, double heldout) {
    progress.rng_state = rng.state();
    tang::save_train_state(o.state, model, optimizer, data.tokenizer, progress, settings);
    if (export_model) {
      tang::GPT exported(config, data.tokenizer, model.params);
      char note[128];
      std::snprintf(note, sizeof note, "%ld steps of %zu x %zu tokens; held-out loss %.4f",
                    progress.step, o.batch, o.block, heldout);
      tang::save_checkpoint(o.out, exported, {{"training", note}});
    }
  };

  std::signal(SIGINT, on_interrupt);
  std::vector<tang::TokenId> inputs, targets;
  const long last = o.stop_at > 0 ? std::min(o.stop_at, o.steps) : o.steps;
  using clock = std::chrono::steady_clock;
  auto window_start = clock::now();
  long window_steps = 0;
  double tokens_per_s = 0.0;
  while (progress.step < last && !g_interrupted) {
    const auto step_start = clock::now();
    tang::sample_batch(data.train, o.batch, o.block, rng, inputs, targets);
    model.zero_grad();
    const float loss = model.forward(inputs, targets, o.batch, o.block);
    model.backward();
    const float norm = tang::clip_grad_norm(model.grads, o.clip);
    tang::require_finite_step(loss, norm, progress.step + 1);
    const float lr = tang::cosine_lr(progress.step, o.warmup, o.steps, o.lr, o.min_lr);
    optimizer.update(model.params, model.grads, lr, progress.step + 1);
    progress.step += 1;
    progress.elapsed_seconds += std::chrono::duration<double>(clock::now() - step_start).count();
    window_steps += 1;

    double heldout = -1.0;
    if (progress.step % o.eval_every == 0 || progress.step == o.steps) {
      const tang::BatchLoss loss = [&](auto inputs, auto targets, std::size_t B, std::size_t T) {
        return model.forward(inputs, targets, B, T);
      };
      heldout = tang::heldout_loss(loss, config.block_size, data.heldout, o.batch);
    }
    if (progress.step % o.print_every == 0 || heldout >= 0.0) {
      const double seconds = std::chrono::duration<double>(clock::now() - window_start).count();
      tokens_per_s = static_cast<double>(window_steps * o.batch * o.block) / seconds;
      window_start = clock::now();
      window_steps = 0;
      const double eta =
          static_cast<double>((o.steps - progress.step) * o.batch * o.block) / tokens_per_s;
      std::printf("step %5ld/%ld  loss %.4f  lr %.2e  %6.0f tok/s  elapsed %s  ETA %s",
                  progress.step, o.steps, loss, lr, tokens_per_s,
                  format_duration(progress.elapsed_seconds).c_str(), format_duration(eta).c_str());
      if (heldout >= 0.0) std::printf("  held-out %.4f", heldout);
      std::printf("\n");
      std::fflush(stdout);
    }
    log << progress.step << ',' << lr << ',' << loss << ',';
    if (heldout >= 0.0) log << heldout;
    log << ',' << norm << ',' << tokens_per_s << ',' << progress.elapsed_seconds << '\n';
    if (heldout >= 0.0) log.flush();
    if (progress.step % o.save_every == 0 || heldout >= 0.0) save(heldout >= 0.0, heldout);
  }
  log.flush();
  save(false, -1.0);
  if (g_interrupted) {
    std::printf("interrupted: state saved to %s at step %ld; continue with --resume\n",
                o.state.c_str(), progress.step);
    return 130;
  }
  std::printf("saved training state at step %ld to %s\n", progress.step, o.state.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  tang::ensure_fast_blas(argv);
  Options o;
  CLI::App app{"Train the Tang-poem GPT (lesson 00)", "lesson_00_train"};
  auto* eval = app.add_option("--eval", o.eval_path,
                              "print the held-out loss of a checkpoint (default: --out) and exit")
                   ->expected(0, 1);
  app.add_option("--data", o.data, "corpus, one poem per line")->capture_default_str();
  app.add_option("--out", o.out, "model checkpoint to write")->capture_default_str();
  app.add_option("--state", o.state, "training state (weights + optimizer)")->capture_default_str();
  app.add_option("--log", o.log, "CSV log")->capture_default_str();
  app.add_flag("--resume", o.resume, "continue from --state if it exists");
  app.add_option("--steps", o.steps, "total optimizer steps")
      ->capture_default_str()
      ->check(CLI::Range(1L, 10000000L));
  app.add_option("--stop-at", o.stop_at, "stop (and save) after this step, to resume later")
      ->check(CLI::Range(1L, 10000000L));
  app.add_option("--warmup", o.warmup, "warm-up steps")
      ->capture_default_str()
      ->check(CLI::Range(0L, 1000000L));
  app.add_option("--batch", o.batch, "sequences per step")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  app.add_option("--block-size", o.block, "context length")
      ->capture_default_str()
      ->check(CLI::Range(2, 4096));
  app.add_option("--layers", o.layers, "transformer blocks")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  app.add_option("--heads", o.heads, "attention heads")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  app.add_option("--dims", o.dims, "embedding width")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  app.add_option("--lr", o.lr, "peak learning rate")
      ->capture_default_str()
      ->check(CLI::Range(0.0f, 1.0f));
  app.add_option("--min-lr", o.min_lr, "final learning rate")
      ->capture_default_str()
      ->check(CLI::Range(0.0f, 1.0f));
  app.add_option("--weight-decay", o.weight_decay, "AdamW weight decay (matrices only)")
      ->capture_default_str()
      ->check(CLI::Range(0.0f, 1.0f));
  app.add_option("--clip", o.clip, "gradient clipping norm")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--seed", o.seed, "random seed (initialisation and batches)")
      ->capture_default_str();
  app.add_option("--eval-every", o.eval_every, "steps between held-out evaluations")
      ->capture_default_str()
      ->check(CLI::Range(1L, 10000000L));
  app.add_option("--save-every", o.save_every, "steps between state saves")
      ->capture_default_str()
      ->check(CLI::Range(1L, 10000000L));
  app.add_option("--print-every", o.print_every, "steps between progress lines")
      ->capture_default_str()
      ->check(CLI::Range(1L, 10000000L));
  app.add_option("--threads", o.threads, "threads (default: all cores)")
      ->check(CLI::Range(1, 1024));
  return tang::run_program(argc, argv, app, [&] {
    if (o.threads > 0) {
      omp_set_num_threads(o.threads);
      openblas_set_num_threads(o.threads);
    }
    o.eval = eval->count() > 0;
    return o.eval ? evaluate_checkpoint(o) : train(o);
  });
}
