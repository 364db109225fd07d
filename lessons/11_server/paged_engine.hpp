// paged_engine.hpp: continuous batching over the paged cache, as one loop.
//
// Every open request is a Writer (common/generate.hpp: lesson 04's poem, 05's
// acrostic, 07's verse at width 1). The engine's thread loops:
//
//   1. schedule: the texts one position from their next draw form the batch;
//      openings compute pieces (prefill_chunk positions in all, the oldest
//      first) after taking what the pool holds of them (prefix_reuse.hpp);
//      when the pool is full, the newest text gives its blocks back;
//   2. run: each piece on its own, then one forward pass for the batch;
//   3. hand out: each writer takes its row and draws at once; a text that is
//      done ends, and its blocks go back to the pool.
//
// Every row is computed on its own, so a text's logits are lesson 06's, bit
// for bit, whatever else is in the batch.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "11_server/block_pool.hpp"
#include "11_server/engine_options.hpp"
#include "11_server/paged_forward.hpp"
#include "11_server/step_clock.hpp"
#include "generate.hpp"
#include "gpt.hpp"

namespace tang {

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
  // The engine writes `text` with `writer` on its thread until it is done,
  // cancelled or failed; then calls `on_end` once, without its lock (on the
  // caller's thread, at once, when the engine is stopping). `writer` must live
  // until then. Several texts started together (a request's n choices) join
  // the same step: the later ones take the first's opening from the pool.
  struct Start {
    TextId text;
    Writer* writer;
    OnEnd on_end;
  };
  void start(std::vector<Start> starts);
  void cancel(TextId text);  // it ends at the next step, its blocks back to the pool
  void close(TextId text);   // its place is free again (cancelled first if running)
  void stop_taking();        // open() gives nothing from now on; running texts go on
  void cancel_all();
  EngineStats stats() const;
  const EngineOptions& options() const { return options_; }
  const GPT& model() const { return model_; }

 private:
  struct Text;
  struct Plan;
  using Ending = std::pair<OnEnd, TextEnd>;
  void run();
  Plan schedule();                      // under the lock
  void step(Plan& plan);                // without it
  void count(const Plan& plan);         // under it
  std::vector<Ending> collect_ended();  // under it
  bool make_room(Text& text, std::size_t positions);
  void cancel(Text& text);

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
  StepClock clock_;
  std::thread thread_;  // last: starts when everything above is ready
};

}  // namespace tang
