// paged_engine.hpp: continuous batching over the paged cache, as one loop
// (run(): schedule, run the forward passes, hand each writer its row). Every
// running request is a Writer (common/generate.hpp: lesson 04's poem, 05's
// acrostic, 07's verse at width 1). Every row is computed on its own, so a
// text's logits are lesson 06's, bit for bit, whatever else is in the batch.
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "11_server/block_pool.hpp"
#include "11_server/engine_options.hpp"
#include "11_server/paged_forward.hpp"
#include "11_server/step_clock.hpp"
#include "11_server/step_kernels.hpp"  // PanelWeights
#include "generate.hpp"
#include "gpt.hpp"

namespace tang {

class PagedEngine {
 public:
  using OnEnd = std::function<void(const TextEnd&)>;

  PagedEngine(const GPT& model, const EngineOptions& options);
  ~PagedEngine();  // ends every running text as cancelled, stops the loop

  // Starts every writer (a request's n choices join the same step), or none
  // (false) when more than max_texts would run or the engine stopped taking
  // texts. Each is written until done, cancelled or failed; then its on_end is
  // called once, without the engine's lock. A writer must live until then.
  // `hand_off`, when given, is called on the engine's thread after each forward
  // pass in which the writer drew: the moment to pass what it wrote on.
  struct Start {
    Writer* writer;
    OnEnd on_end;
    std::function<void()> hand_off = {};
  };
  bool start(std::vector<Start> starts);
  void cancel(const Writer* writer);  // its text ends at the next step, its blocks back to the pool
  void stop_taking();                 // start() refuses from now on; running texts go on
  void cancel_all();
  EngineStats stats() const;
  const GPT& model() const { return model_; }
  const EngineOptions& options() const { return options_; }

 private:
  using TextId = std::size_t;  // in order of start
  struct Text;
  struct Pass;
  struct Plan;
  using Ending = std::pair<OnEnd, TextEnd>;
  void run();
  Plan schedule();                      // under the lock
  void step(Plan& plan);                // without it
  void count(const Plan& plan);         // under it
  std::vector<Ending> collect_ended();  // under it
  bool make_room(Text& text, std::size_t positions);

  const GPT& model_;
  EngineOptions options_;
  BlockPool pool_;                              // the loop's alone
  std::unique_ptr<const PanelWeights> panels_;  // the tuned path's (options.panel_product)
  Activations acts_;
  mutable std::mutex mutex_;
  std::condition_variable work_;                   // the loop waits here for texts to write
  std::map<TextId, std::unique_ptr<Text>> texts_;  // by id: the oldest first
  TextId next_id_ = 1;
  bool taking_ = true, quitting_ = false;
  EngineCounters counters_;
  PoolCounts pool_counts_;
  StepClock clock_;
  std::thread thread_;                             // last: starts when everything above is ready
  std::thread::native_handle_type loop_handle_{};  // thread_'s, for its CPU clock
};

}  // namespace tang
