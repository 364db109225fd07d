// paged_engine.hpp: continuous batching over the paged cache.
//
// Every request is written by the lessons' own writing code (write_poem,
// write_acrostic, ...) on its own thread, through a Predictor whose
// next_logits() hands its text to the engine and waits. The engine runs one
// thread of steps; each step
//
//   1. takes the texts whose calls are in (waiting at most kGatherWait,
//      0.2 ms, for the ones still choosing their character: long enough to
//      keep the batch whole, short enough that one slow writer holds no one up),
//   2. runs one batched step for every text that needs one new position
//      (lesson 08's batched step, over the paged cache),
//   3. runs pieces of the texts that need more (new requests' openings), the
//      oldest first, prefill_chunk positions in all at most: a long opening
//      takes several steps, and the running texts wait for one piece of it,
//   4. answers the calls.
// A request that arrives joins at the next step (while fewer than max_batch
// texts are being written; otherwise it waits for one to end); one that ends
// leaves, and its blocks go back to the pool at the next step. A new text
// first takes the cached blocks of its opening (block_pool.hpp, exercise 11b)
// and computes only the rest. When the pool has no block left, the newest text
// holding blocks, newer than the one that needs room, gives all its blocks back
// (preemption) and computes them again when its turn comes, from the cached
// blocks where they are still there: a request once accepted is never failed
// for want of memory.
//
// A text's logits are the ones lesson 06's cache gives, bit for bit, whatever
// else is in the batch: every row of a step is computed on its own.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <thread>
#include <vector>

#include "06_kvcache/step_cost.hpp"  // StepWork
#include "11_server/block_pool.hpp"
#include "11_server/paged_forward.hpp"
#include "generate.hpp"
#include "gpt.hpp"

namespace tang {

struct EngineOptions {
  std::size_t blocks = 512;        // the pool, in blocks
  std::size_t block_size = 16;     // positions a block holds
  std::size_t max_batch = 64;      // texts written at once, the rest wait (1: one at a time)
  std::size_t prefill_chunk = 64;  // positions of an opening computed per step
  std::size_t max_texts = 256;     // texts open at once; open() refuses more
  bool reuse_prefixes = true;      // take cached blocks of a matching opening
  bool record_work = false;        // keep every forward pass's StepWork (work())
  // The cost model (06_kvcache/step_cost.hpp): the time a forward pass of this
  // work should take. Given, every text's times are predicted too (predicted()).
  std::function<double(const StepWork&)> predict_ms;
  // And what a step answering this many texts costs besides its forward passes
  // (the writers' draws, the hand-offs: step_overhead.hpp), added to each step.
  std::function<double(std::size_t texts)> step_overhead_ms;
};

// What the cost model says a text's times should have been: the predicted time
// of the steps from its first call to its first answer, and to its last.
struct PredictedTimes {
  double first_seconds = 0, seconds = 0;
};

// What the engine has done since it started.
struct EngineCounters {
  std::size_t steps = 0;          // loops that computed something
  std::size_t batched_steps = 0;  // of them, with a batched step
  std::size_t batched_rows = 0;   // texts in those batched steps, all together
  std::size_t largest_batch = 0;
  std::size_t most_texts_written = 0;  // texts started and not ended, at the most (<= max_batch)
  std::size_t answers = 0;             // calls answered, all steps together
  std::size_t prefills = 0;            // openings computed (a preempted text counts again)
  std::size_t prefill_positions = 0;   // positions the openings asked for
  std::size_t reused_positions = 0;    // of them, taken from the pool instead of computed
  std::size_t prefix_hits = 0;         // openings that took at least one position
  std::size_t reused_blocks = 0;       // full blocks found by their hash
  std::size_t copied_blocks = 0;       // part-filled blocks copied from a running text
  std::size_t preemptions = 0;
  std::size_t most_blocks_in_use = 0;
  std::size_t texts_opened = 0, texts_refused = 0, texts_cancelled = 0;
  double compute_seconds = 0;  // in forward passes
};

struct EngineStats {
  EngineCounters counters;
  PoolCounts pool;
  std::size_t open_texts = 0;
};

// Thrown by next_logits when the text was cancelled or the engine stopped.
struct Cancelled : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class PagedEngine {
 public:
  using TextId = std::uint64_t;
  static constexpr std::chrono::microseconds kGatherWait{200};

  PagedEngine(const GPT& model, const EngineOptions& options);
  ~PagedEngine();  // cancels what is left, stops the step thread
  PagedEngine(const PagedEngine&) = delete;
  PagedEngine& operator=(const PagedEngine&) = delete;

  // A new text, or nothing when max_texts are open or the engine stopped taking texts.
  std::optional<TextId> open();
  // The logits (V) of the character after `context` (cropped to the model's
  // context, as lesson 06's predictor does); waits for the step that computes
  // them. Valid until this text's next call. Throws Cancelled, or what the
  // step that was to compute them threw.
  std::span<const float> next_logits(TextId text, std::span<const TokenId> context);
  // The text is done: its blocks go back to the pool at the next step.
  void close(TextId text);
  // Its waiting call, or its next one, throws Cancelled.
  void cancel(TextId text);
  // No new texts from now on (open() gives nothing); running ones go on.
  void stop_taking();
  // Every open text is cancelled.
  void cancel_all();
  EngineStats stats() const;
  // What each forward pass pushed through the model, in order (record_work),
  // for the cost model (06_kvcache/step_cost.hpp); and the time they took.
  std::vector<StepWork> work() const;
  // The predicted times of an open text (nothing without predict_ms).
  std::optional<PredictedTimes> predicted(TextId text) const;
  // The predicted time of every step so far (nothing without predict_ms), and
  // of it the overhead's part (step_overhead_ms).
  double predicted_seconds() const;
  double predicted_overhead_seconds() const;
  const EngineOptions& options() const { return options_; }
  const GPT& model() const { return model_; }

 private:
  struct Text;
  struct Plan;
  void run();
  Plan plan_step();  // under the lock
  void fail_waiting(std::unique_lock<std::mutex>& lock, std::exception_ptr failure);
  void fail(Text& text, std::exception_ptr failure);  // under the lock
  void compute(Plan& plan);                           // without it
  std::vector<Text*> finish_step(Plan& plan);         // under the lock; the texts it answered
  std::vector<StepWork> step_work(const Plan& plan) const;
  bool make_room(Text& text, std::size_t positions);
  void take_cached_opening(Text& text);
  void copy_part_filled_block(Text& text);
  void count_start(Text& text);
  void preempt(Text& victim);

  const GPT& model_;
  EngineOptions options_;
  BlockPool pool_;  // touched by the step thread only
  Activations acts_;
  mutable std::mutex mutex_;
  std::condition_variable work_;  // the step thread waits here for calls
  std::map<TextId, std::unique_ptr<Text>> texts_;
  TextId next_id_ = 1;
  std::size_t choosing_ = 0;  // texts whose last call was answered and that have not called again
  bool taking_ = true, quitting_ = false;
  EngineCounters counters_;
  PoolCounts pool_counts_;
  std::vector<StepWork> work_log_;
  std::vector<double> predicted_after_ = {0};  // (steps + 1) the predicted seconds of steps 1 .. i
  double predicted_overhead_ = 0;              // the overhead's part of predicted_after_.back()
  std::thread thread_;                         // last: starts when everything above is ready
};

// A Predictor over one engine text: what a writer thread hands to the
// lessons' writing code.
class EnginePredictor : public Predictor {
 public:
  EnginePredictor(PagedEngine& engine, PagedEngine::TextId text) : engine_(engine), text_(text) {}
  std::span<const float> next_logits(std::span<const TokenId> context) override {
    return engine_.next_logits(text_, context);
  }

 private:
  PagedEngine& engine_;
  PagedEngine::TextId text_;
};

}  // namespace tang
