// paged_engine.hpp: continuous batching over the paged cache, as one loop.
//
// A request is a Writer (common/generate.hpp): the state of the lessons' own
// writing (lesson 04's poem after an opening, lesson 05's acrostic, lesson
// 07's regular verse at width 1), which says what context it needs, takes one
// row of logits and draws its character, and says when it is done. The engine
// holds the writers of every open request and runs one loop on its own thread:
//
//   1. schedule: which texts step (those one position from their next draw),
//      which openings compute a piece (prefill_chunk positions in all at most,
//      the oldest first), and who gives its blocks back when the pool is full;
//   2. each opening's piece on its own (so that a new request's first
//      character never waits for the batch), then one forward pass over the
//      paged cache for the texts that step (lesson 08's batched step);
//   3. each text's writer takes its row at once; a writer that is done ends.
//
// No thread waits inside a step: the writers draw on the engine's thread, and
// what they write goes to their owner through the writer itself (a request's
// queue: poem_service.cpp). A request that arrives joins at the next step
// (while fewer than max_batch texts are being written; otherwise it waits for
// one to end). A new text first takes the cached blocks of its opening
// (prefix_reuse.hpp, exercise 11b) and computes only the rest. When the pool
// has no block left, the newest text holding blocks, newer than the one that
// needs room, gives all of them back (preemption) and computes them again when
// its turn comes: a request once accepted is never failed for want of memory.
//
// A text's logits are the ones lesson 06's cache gives, bit for bit, whatever
// else is in the batch: every row of a step is computed on its own.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
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
  std::size_t prefill_chunk = 64;  // positions of openings computed per step
  std::size_t max_texts = 256;     // texts open at once; open() refuses more
  bool reuse_prefixes = true;      // take cached blocks of a matching opening
  bool record_work = false;        // keep every forward pass's StepWork (work())
  // The cost model (06_kvcache/step_cost.hpp): the time a forward pass of this
  // work should take. Given, every text's times are predicted too (TextEnd).
  std::function<double(const StepWork&)> predict_ms;
  // And what a step in which this many writers draw costs besides its forward
  // passes (the draws, the hand-offs: step_overhead.hpp), added to each step.
  std::function<double(std::size_t texts)> step_overhead_ms;
};

// What the cost model says a text's times should have been: the predicted time
// of the steps from its start to its first draw, and to its last.
struct PredictedTimes {
  double first_seconds = 0, seconds = 0;
};

// How a text ended: done (neither below), cancelled, or failed.
struct TextEnd {
  bool cancelled = false;      // cancel(), cancel_all(), close() or the engine's end
  std::exception_ptr failure;  // what a step of it threw (its blocks are back)
  PredictedTimes predicted;    // with predict_ms
};

// What the engine has done since it started.
struct EngineCounters {
  std::size_t steps = 0;          // loops that computed something
  std::size_t batched_steps = 0;  // of them, with a batched step
  std::size_t batched_rows = 0;   // texts in those batched steps, all together
  std::size_t largest_batch = 0;
  std::size_t most_texts_written = 0;  // texts started and not ended, at the most (<= max_batch)
  std::size_t answers = 0;             // rows of logits a writer took, all steps together
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

class PagedEngine {
 public:
  using TextId = std::uint64_t;
  using OnEnd = std::function<void(const TextEnd&)>;

  PagedEngine(const GPT& model, const EngineOptions& options);
  ~PagedEngine();  // ends every running text as cancelled, stops the loop
  PagedEngine(const PagedEngine&) = delete;
  PagedEngine& operator=(const PagedEngine&) = delete;

  // A place for a new text, or nothing when max_texts are open or the engine
  // stopped taking texts.
  std::optional<TextId> open();
  // The engine writes `text` with `writer`, stepping it on the engine's thread
  // until it is done, cancelled or failed; then `on_end`, once, on that thread
  // without the engine's lock (on the caller's, at once, when the engine is
  // stopping). `writer` must live until then: after on_end the engine does not
  // touch it.
  void start(TextId text, Writer& writer, OnEnd on_end);
  // Several texts that join the same step (a request's n choices): the later
  // ones then take the first's opening from the pool instead of computing it.
  struct Start {
    TextId text;
    Writer* writer;
    OnEnd on_end;
  };
  void start(std::vector<Start> starts);
  // Ends the text at the next step (cancelled), its blocks back to the pool.
  void cancel(TextId text);
  // The text's place is free again (a running text is cancelled first).
  void close(TextId text);
  // No new texts from now on (open() gives nothing); running ones go on.
  void stop_taking();
  // Every running text is cancelled.
  void cancel_all();
  EngineStats stats() const;
  // What each forward pass pushed through the model, in order (record_work),
  // for the cost model (06_kvcache/step_cost.hpp).
  std::vector<StepWork> work() const;
  // The predicted time of every step so far (nothing without predict_ms), and
  // of it the overhead's part (step_overhead_ms).
  double predicted_seconds() const;
  double predicted_overhead_seconds() const;
  const EngineOptions& options() const { return options_; }
  const GPT& model() const { return model_; }

 private:
  struct Text;
  struct Plan;
  using Ending = std::pair<OnEnd, TextEnd>;
  void run();
  Plan schedule();                      // under the lock
  void step(Plan& plan);                // without it
  void finish_step(Plan& plan);         // under it
  std::vector<Ending> collect_ended();  // under it; also counts the pool
  void tell(std::unique_lock<std::mutex>& lock, const std::vector<Ending>& ended);
  bool make_room(Text& text, std::size_t positions);
  void take_opening(Text& text);
  void preempt(Text& victim);
  std::vector<StepWork> step_work(const Plan& plan) const;

  const GPT& model_;
  EngineOptions options_;
  BlockPool pool_;  // the loop's alone
  Activations acts_;
  mutable std::mutex mutex_;
  std::condition_variable work_;                   // the loop waits here for texts to write
  std::map<TextId, std::unique_ptr<Text>> texts_;  // by id: the oldest first
  TextId next_id_ = 1;
  bool taking_ = true, quitting_ = false;
  EngineCounters counters_;
  PoolCounts pool_counts_;
  std::vector<StepWork> work_log_;
  std::vector<double> predicted_after_ = {0};  // (steps + 1) the predicted seconds of steps 1 .. i
  double predicted_overhead_ = 0;              // the overhead's part of predicted_after_.back()
  std::thread thread_;                         // last: starts when everything above is ready
};

}  // namespace tang
