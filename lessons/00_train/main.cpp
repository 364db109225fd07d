// lesson_00_train: train the course's GPT on the Tang poems, in C++.
//
//   lesson_00_train                 train into runs/train/ (or continue with --resume)
//   lesson_00_train --eval [PATH]   print the held-out loss of a checkpoint (default:
//                                   the shipped model)
//
// Every optimizer step: sample a batch, forward, backward, clip the gradient,
// AdamW with a cosine learning rate. Progress goes to the terminal and a CSV
// log; the full training state (weights + AdamW moments + sampler state) is
// saved regularly and when a signal ends the run (Ctrl-C, SIGTERM, SIGHUP, a
// closed terminal or pipe), so training can stop and resume any number of
// times and still end with the same weights as one uninterrupted run.
#include <cblas.h>
#include <omp.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include "00_train/adamw.hpp"
#include "00_train/heldout_loss.hpp"
#include "00_train/poem_dataset.hpp"
#include "00_train/run_files.hpp"
#include "00_train/train_state.hpp"
#include "00_train/trainable_gpt.hpp"
#include "checkpoint.hpp"
#include "errors.hpp"
#include "fast/blas_cores.hpp"
#include "options.hpp"
#include "program.hpp"

namespace {

// The signal that asked the run to stop (0: none). The loop checks it after
// every step and between the batches of a held-out evaluation, saves and
// exits. A second signal stops at once, keeping the state saved last, unless
// a save is under way (then it stops right after that save).
volatile std::sig_atomic_t g_stop_signal = 0;
volatile std::sig_atomic_t g_saving = 0, g_second_signal = 0;
void say(const char* text, std::size_t length) {  // write(2): safe in a signal handler
  [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, text, length);
}
[[noreturn]] void stop_at_once(int signal) {  // safe in a signal handler too
  constexpr char kStoppedAtOnce[] =
      "second signal: stopped at once; the state saved last is kept\n";
  say(kStoppedAtOnce, sizeof kStoppedAtOnce - 1);
  tang::RunOutputs::remove_lock_files_now();
  ::_exit(128 + signal);
}
void on_stop_signal(int signal) {
  if (g_stop_signal != 0) {  // the second one
    g_second_signal = 1;
    if (g_saving == 0) stop_at_once(signal);
    return;  // the save ends first, then we stop
  }
  constexpr char kSoon[] =
      "\nstopping: finishing this step, then saving the training state (a second signal "
      "stops at once, keeping the state saved last)\n";
  say(kSoon, sizeof kSoon - 1);
  g_stop_signal = signal;
}

struct Options {
  std::string data = std::string(TANG_DATA_DIR) + "/tang_poems.txt";
  std::string out = std::string(TANG_RUNS_DIR) + "/train/tang_gpt.safetensors";
  std::string state = std::string(TANG_RUNS_DIR) + "/train/train_state.safetensors";
  std::string log = std::string(TANG_RUNS_DIR) + "/train/training.csv";
  std::string eval_path;
  std::string seed_text = "1337";
  // Empty: the batches (and dropout masks) continue the initialisation's
  // generator, as the shipped model was trained; a number: their own generator.
  std::string data_seed_text;
  bool eval = false, resume = false, overwrite_shipped = false, overwrite = false;
  long steps = 14000, warmup = 100, eval_every = 500, save_every = 100, print_every = 10;
  long stop_at = -1;
  std::size_t batch = 32, block = 128, layers = 4, heads = 4, dims = 128;
  std::size_t kv_heads = 0, kv_latent = 0;  // lesson 10's variants; 0: multi-head
  float lr = 3e-3f, min_lr = 3e-4f, weight_decay = 0.1f, clip = 1.0f, dropout = 0.1f;
  std::uint64_t seed = 1337;
  std::optional<std::uint64_t> data_seed;
  int threads = 0;
};

std::string format_duration(double seconds) {
  const long s = static_cast<long>(seconds);
  char text[32];
  std::snprintf(text, sizeof text, "%ldh%02ldm%02lds", s / 3600, s / 60 % 60, s % 60);
  return text;
}

// How the batch order is drawn, as the trainer prints it and the model's metadata records it.
std::string data_seed_of(const Options& o) {
  return o.data_seed ? std::to_string(*o.data_seed) : "init";
}

// The settings a resumed run must share with the run that saved the state.
std::map<std::string, std::string> settings_of(const Options& o) {
  return {{"steps", std::to_string(o.steps)},     {"warmup", std::to_string(o.warmup)},
          {"batch", std::to_string(o.batch)},     {"lr", std::to_string(o.lr)},
          {"min_lr", std::to_string(o.min_lr)},   {"weight_decay", std::to_string(o.weight_decay)},
          {"clip", std::to_string(o.clip)},       {"seed", std::to_string(o.seed)},
          {"dropout", std::to_string(o.dropout)}, {"data_seed", data_seed_of(o)}};
}

int evaluate_checkpoint(const Options& o) {
  const std::string path = o.eval_path.empty() ? tang::shipped_model_path() : o.eval_path;
  const tang::GPT model = tang::load_checkpoint(path, "--eval");
  const tang::PoemDataset data = tang::load_poem_dataset(o.data);
  // Encode the held-out poems with the checkpoint's own vocabulary.
  const std::string heldout_text = data.tokenizer.decode(data.heldout);
  for (const std::string& c : data.tokenizer.characters()) {
    if (!model.tokenizer().find(c)) {
      throw tang::UserError("the held-out poems of " + o.data + " contain '" + c +
                            "', which the vocabulary of " + path +
                            " lacks: evaluate it on the corpus it was trained on (--data)");
    }
  }
  const std::vector<tang::TokenId> stream = model.tokenizer().encode(heldout_text);
  const double loss = tang::heldout_loss(model, stream, o.batch);
  std::printf("checkpoint   %s\nmodel        %s\nheld-out     %zu poems, %zu characters\n",
              path.c_str(), model.config().describe().c_str(), data.heldout_poems, stream.size());
  std::printf("held-out loss %.4f nats/char (perplexity %.1f)\n", loss, std::exp(loss));
  return 0;
}

int train(const Options& o) {
  if (o.steps <= o.warmup) throw tang::BadOption("--steps must be larger than --warmup");
  // Everything checked before the disk changes: the corpus and the model it
  // gives, where each output goes and that it may go there.
  const tang::PoemDataset data = tang::load_poem_dataset(o.data);
  tang::GPTConfig config{
      data.tokenizer.size(), o.block, o.layers, o.heads, o.dims, o.kv_heads, o.kv_latent};
  config.validate();
  tang::require_one_window(data.train, o.block);
  const tang::RunPaths paths{o.out, o.state, o.log};
  // Locked from here on: no other trainer writes these files while we check them.
  const tang::RunOutputs outputs(paths, {o.data, o.overwrite_shipped, o.overwrite});
  const bool resuming = o.resume && std::filesystem::exists(o.state);
  if (!o.resume && std::filesystem::exists(o.state)) {
    throw tang::UserError("there is a training state at " + o.state +
                          ": continue it with --resume, or start afresh with another --state "
                          "(or remove that file)");
  }
  // The model and log this run writes (its state records them). Of the files
  // that exist, a resumed run may replace those its state records; a fresh one none.
  const std::vector<std::string> this_run = {tang::canonical_path(o.out),
                                             tang::canonical_path(o.log)};
  std::vector<std::string> ours;
  if (resuming) {
    ours = tang::outputs_recorded_in(o.state);
    if (ours.empty()) ours = this_run;  // a state from before outputs were recorded: its own
  }
  outputs.refuse_replacing(ours);

  tang::TrainableGPT model(config, o.batch, o.dropout);
  tang::AdamW optimizer(config, {0.9f, 0.95f, 1e-8f, o.weight_decay});
  tang::Rng rng(o.seed);
  tang::TrainProgress progress;
  const auto settings = settings_of(o);
  if (resuming) {
    progress = tang::load_train_state(o.state, model, optimizer, data.tokenizer, settings);
    rng.set_state(progress.rng_state);
  } else {
    model.init_random(rng);
    // With --data-seed the batch order no longer depends on how many numbers
    // the initialisation drew: models of different shapes see the same batches.
    if (o.data_seed) rng = tang::Rng(*o.data_seed);
  }
  progress.outputs = this_run;

  std::printf("writing      %s (model), %s (state), %s (log)\n", o.out.c_str(), o.state.c_str(),
              o.log.c_str());
  if (resuming) {
    std::printf("resumed from %s at step %ld\n", o.state.c_str(), progress.step);
  } else if (o.resume) {
    std::printf("no training state at %s yet: starting afresh\n", o.state.c_str());
  }
  std::printf("model        %s, %zu parameters\n", config.describe().c_str(), model.params.size());
  std::printf("corpus       %zu training poems (%zu characters), %zu held out (%zu)\n",
              data.train_poems, data.train.size(), data.heldout_poems, data.heldout.size());
  std::printf(
      "training     %ld steps of %zu x %zu tokens, lr %.1e -> %.1e, dropout %.2f, %d threads, "
      "BLAS %s\n",
      o.steps, o.batch, o.block, o.lr, o.min_lr, o.dropout, omp_get_max_threads(),
      tang::blas_core_name());
  std::printf("seeds        %llu (initialisation), %s (batches%s)\n",
              static_cast<unsigned long long>(o.seed), data_seed_of(o).c_str(),
              o.data_seed ? "" : ": the initialisation's generator continued");

  tang::TrainingLog log(o.log, progress.step);  // cut back to the saved step at its first row

  auto save = [&](bool export_model, double heldout) {
    g_saving = 1;
    progress.rng_state = rng.state();
    tang::save_train_state(o.state, model, optimizer, data.tokenizer, progress, settings);
    if (export_model) {
      tang::GPT exported(config, data.tokenizer, model.params);
      char note[128];
      std::snprintf(note, sizeof note, "%ld steps of %zu x %zu tokens; held-out loss %.4f",
                    progress.step, o.batch, o.block, heldout);
      tang::save_checkpoint(
          o.out, exported,
          {{"training", note}, {"seed", std::to_string(o.seed)}, {"data_seed", data_seed_of(o)}});
    }
    g_saving = 0;
    if (g_second_signal != 0) stop_at_once(g_stop_signal);
  };
  // The held-out loss of the weights as they are now; nothing when a signal
  // arrives meanwhile (the step's row then waits in the state, see below).
  auto evaluate = [&]() -> std::optional<double> {
    const tang::BatchLoss loss = [&](auto inputs, auto targets, std::size_t B, std::size_t T) {
      return model.forward(inputs, targets, B, T);
    };
    return tang::heldout_loss(loss, config.block_size, data.heldout, o.batch,
                              [] { return g_stop_signal != 0; });
  };
  // A row is "step,lr,train_loss,heldout_loss,grad_norm,tokens_per_s,elapsed_s".
  auto with_heldout = [](const std::string& row, double heldout) {
    std::size_t at = 0;
    for (int comma = 0; comma < 3; ++comma) at = row.find(',', at) + 1;
    std::ostringstream field;
    field << heldout;
    return row.substr(0, at) + field.str() + row.substr(at);
  };

  for (int signal : {SIGINT, SIGTERM, SIGHUP}) std::signal(signal, on_stop_signal);
  // A closed pipe (`| tee log` after Ctrl-C) must not kill us mid-step: writes
  // to stdout then fail instead, and the loop stops and saves.
  std::signal(SIGPIPE, SIG_IGN);
  bool stdout_lost = false;

  // A fresh run saves its state at step 0 before its first log row: whatever
  // ends it from now on (even kill -9), --resume continues it.
  if (!resuming) save(false, -1.0);
  if (!progress.pending_row.empty()) {  // the last run stopped while evaluating this step
    if (const std::optional<double> heldout = evaluate()) {
      std::printf("step %5ld/%ld  held-out %.4f  (the evaluation the last run was stopped in)\n",
                  progress.step, o.steps, *heldout);
      stdout_lost = std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
      log.append(with_heldout(progress.pending_row, *heldout));
      progress.pending_row.clear();
      save(true, *heldout);
    }
  }

  std::vector<tang::TokenId> inputs, targets;
  const long last = o.stop_at > 0 ? std::min(o.stop_at, o.steps) : o.steps;
  using clock = std::chrono::steady_clock;
  auto window_start = clock::now();
  long window_steps = 0;
  double tokens_per_s = 0.0;
  while (progress.step < last && g_stop_signal == 0 && !stdout_lost) {
    const auto step_start = clock::now();
    tang::sample_batch(data.train, o.batch, o.block, rng, inputs, targets);
    model.zero_grad();
    // the masks of this step's dropout come from the batch sampler's stream, so
    // a resumed run draws the same ones
    const std::uint64_t dropout_seed = o.dropout > 0.0f ? rng.next_u64() : 0;
    const float loss = model.training_forward(inputs, targets, o.batch, o.block, dropout_seed);
    model.backward();
    const float norm = tang::clip_grad_norm(model.grads, o.clip);
    tang::require_finite_step(loss, norm, progress.step + 1);
    const float lr = tang::cosine_lr(progress.step, o.warmup, o.steps, o.lr, o.min_lr);
    optimizer.update(model.params, model.grads, lr, progress.step + 1);
    progress.step += 1;
    progress.elapsed_seconds += std::chrono::duration<double>(clock::now() - step_start).count();
    window_steps += 1;

    const bool print = progress.step % o.print_every == 0;
    const bool evaluate_now = progress.step % o.eval_every == 0 || progress.step == o.steps;
    if (print || evaluate_now) {
      const double seconds = std::chrono::duration<double>(clock::now() - window_start).count();
      tokens_per_s = static_cast<double>(window_steps * o.batch * o.block) / seconds;
      window_start = clock::now();
      window_steps = 0;
    }
    std::ostringstream row;  // its held-out field empty
    row << progress.step << ',' << lr << ',' << loss << ",," << norm << ',' << tokens_per_s << ','
        << progress.elapsed_seconds;
    std::optional<double> heldout;
    if (evaluate_now) {
      heldout = evaluate();
      if (!heldout) {  // a signal: the resumed run evaluates this step first
        progress.pending_row = row.str();
        break;
      }
    }
    if (print || heldout) {
      const double eta =
          static_cast<double>((o.steps - progress.step) * o.batch * o.block) / tokens_per_s;
      std::printf("step %5ld/%ld  loss %.4f  lr %.2e  %6.0f tok/s  elapsed %s  ETA %s",
                  progress.step, o.steps, loss, lr, tokens_per_s,
                  format_duration(progress.elapsed_seconds).c_str(), format_duration(eta).c_str());
      if (heldout) std::printf("  held-out %.4f", *heldout);
      std::printf("\n");
      stdout_lost = std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
    }
    // a failed write stops here, before the state moves past the log
    log.append(heldout ? with_heldout(row.str(), *heldout) : row.str());
    if (progress.step % o.save_every == 0 || heldout)
      save(heldout.has_value(), heldout.value_or(0));
  }
  save(false, -1.0);
  if (g_stop_signal != 0 || stdout_lost) {
    const std::string why = stdout_lost ? "the output went away: closed terminal or pipe"
                                        : std::string("signal: ") + strsignal(g_stop_signal);
    // a cut evaluation is said, so that the resumed run's first line is expected
    const std::string cut = progress.pending_row.empty() ? std::string()
                                                         : " in the held-out evaluation of step " +
                                                               std::to_string(progress.step) +
                                                               " (--resume evaluates it first)";
    std::fprintf(stderr, "stopped (%s)%s; state saved to %s at step %ld; continue with --resume\n",
                 why.c_str(), cut.c_str(), o.state.c_str(), progress.step);
    return 128 + (g_stop_signal != 0 ? static_cast<int>(g_stop_signal) : SIGPIPE);
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
                              "print the held-out loss of a checkpoint (default: the shipped "
                              "model) and exit")
                   ->expected(0, 1);
  app.add_option("--data", o.data, "corpus, one poem per line")->capture_default_str();
  app.add_option("--out", o.out, "model checkpoint to write")->capture_default_str();
  app.add_option("--state", o.state, "training state (weights + optimizer)")->capture_default_str();
  app.add_option("--log", o.log, "CSV log")->capture_default_str();
  app.add_flag("--overwrite-shipped", o.overwrite_shipped,
               "allow --out/--log to replace the shipped data/tang_gpt.safetensors or its log");
  app.add_flag("--resume", o.resume, "continue from --state if it exists");
  app.add_flag("--overwrite", o.overwrite,
               "replace an existing --out and --log that this run did not write");
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
  app.add_option("--kv-heads", o.kv_heads,
                 "key/value heads, shared by the query heads (lesson 10); 0: one per head")
      ->capture_default_str()
      ->check(CLI::Range(0, 64));
  app.add_option("--kv-latent", o.kv_latent,
                 "cache one latent of this width per position instead (lesson 10); 0: none")
      ->capture_default_str()
      ->check(CLI::Range(0, 4096));
  app.add_option("--lr", o.lr, "peak learning rate")
      ->capture_default_str()
      ->check(CLI::Range(0.0f, 1.0f));
  app.add_option("--min-lr", o.min_lr, "final learning rate")
      ->capture_default_str()
      ->check(CLI::Range(0.0f, 1.0f));
  app.add_option("--weight-decay", o.weight_decay, "AdamW weight decay (matrices only)")
      ->capture_default_str()
      ->check(CLI::Range(0.0f, 1.0f));
  app.add_option("--dropout", o.dropout,
                 "share of the residual stream's inputs dropped in training")
      ->capture_default_str()
      ->check(CLI::Range(0.0f, 0.9f));
  app.add_option("--clip", o.clip, "gradient clipping norm")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--seed", o.seed_text,
                 "random seed of the initialisation (and of the batches without --data-seed), "
                 "in [0, 2^64-1]")
      ->capture_default_str();
  app.add_option("--data-seed", o.data_seed_text,
                 "random seed of the batch order and dropout masks, in [0, 2^64-1] (default: "
                 "the initialisation's generator continues); runs of different shapes with one "
                 "data seed see the same batches");
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
    o.seed = tang::parse_seed("--seed", o.seed_text);
    if (!o.data_seed_text.empty()) o.data_seed = tang::parse_seed("--data-seed", o.data_seed_text);
    return o.eval ? evaluate_checkpoint(o) : train(o);
  });
}
