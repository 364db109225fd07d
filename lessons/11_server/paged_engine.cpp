#include "11_server/paged_engine.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>

#include "11_server/cpu_clock.hpp"
#include "11_server/prefix_reuse.hpp"
#include "11_server/step_kernels.hpp"  // KernelMatrices, 06_kvcache/kv_cache.hpp

namespace tang {

struct PagedEngine::Text {
  TextId id = 0;
  Writer* writer = nullptr;
  OnEnd on_end;
  std::function<void()> hand_off;
  PagedText paged;                  // the loop's alone
  std::span<const TokenId> window;  // this step's: the writer's context, cropped to the model's
  bool started = false;  // its cache holds part of its window: it counts against max_batch
  bool cancelled = false;
  std::exception_ptr failure;  // what a step of it threw
  TextSteps steps;             // on the cost model's clock
  bool waiting() const { return !cancelled && !failure && !writer->done(); }
  void fail() { failure = failure ? failure : std::current_exception(); }
};

// One forward pass: a piece of one text's opening, or the batch.
struct PagedEngine::Pass {
  std::vector<Text*> texts;   // (B)
  std::size_t positions = 1;  // new positions a text
  bool draws = true;          // its writers take their rows (a piece that ends its opening)
  bool batch = false;         // the step's batch (the last pass), not a piece of an opening
};

struct PagedEngine::Plan {
  std::vector<Pass> passes;  // the openings' pieces, then the batch
  StepPrice price;
  double compute_seconds = 0;
  double forward_cpu_seconds = 0, draw_cpu_seconds = 0, hand_off_cpu_seconds = 0;
};

PagedEngine::PagedEngine(const GPT& model, const EngineOptions& options)
    : model_(model),
      options_(checked(options, model.config().block_size)),
      pool_(model.config(), options.blocks, options.block_size, options.pool_numbers),
      panels_(options.panel_product ? std::make_unique<const PanelWeights>(model) : nullptr),
      acts_(step_activations(model.config(), std::max(options.max_batch, options.prefill_chunk))),
      clock_(options) {
  acts_.logits.fill(0.0f);  // its pages mapped now, as the pool's (block_pool.cpp)
  pool_counts_ = pool_.counts();
  thread_ = std::thread([this] {
    name_this_thread("tang-engine");
    run();
  });
  loop_handle_ = thread_.native_handle();
}

PagedEngine::~PagedEngine() {
  std::unique_lock lock(mutex_);
  quitting_ = true;
  lock.unlock();
  work_.notify_all();
  thread_.join();
}

// --- the requests' side: texts start, may be cancelled, and end --------------

bool PagedEngine::start(std::vector<Start> starts) {
  if (std::any_of(starts.begin(), starts.end(), [](const Start& s) { return !s.writer; }))
    throw std::invalid_argument("PagedEngine::start: a text without its writer");
  const std::lock_guard lock(mutex_);
  if (!taking_ || quitting_ || texts_.size() + starts.size() > options_.max_texts) {
    counters_.texts_refused += starts.size();
    return false;
  }
  for (Start& s : starts) {
    auto t = std::make_unique<Text>();
    t->id = next_id_++;
    t->writer = s.writer;
    t->on_end = std::move(s.on_end);
    t->hand_off = std::move(s.hand_off);
    t->steps.arrival = clock_.steps();
    texts_.emplace(t->id, std::move(t));
  }
  counters_.texts_started += starts.size();
  work_.notify_one();
  return true;
}

void PagedEngine::cancel(const Writer* writer) {
  const std::lock_guard lock(mutex_);
  for (auto& [id, t] : texts_) t->cancelled = t->cancelled || t->writer == writer;
  work_.notify_one();
}

void PagedEngine::stop_taking() {
  const std::lock_guard lock(mutex_);
  taking_ = false;
}

void PagedEngine::cancel_all() {
  const std::lock_guard lock(mutex_);
  for (auto& [id, t] : texts_) t->cancelled = true;
  work_.notify_one();
}

EngineStats PagedEngine::stats() const {
  const std::lock_guard lock(mutex_);
  return {counters_,
          pool_counts_,
          texts_.size(),
          clock_.seconds(),
          clock_.overhead_seconds(),
          thread_cpu_seconds(loop_handle_)};
}

// --- the loop: schedule, run the step without the lock, count, end -----------

void PagedEngine::run() {
  std::unique_lock lock(mutex_);
  for (bool more = true; more;) {
    work_.wait(lock, [&] { return quitting_ || !texts_.empty(); });
    more = !quitting_;
    if (!more)
      for (auto& [id, t] : texts_) t->cancelled = true;  // the engine stops: every text ends
    Plan plan = more ? schedule() : Plan{};
    if (!plan.passes.empty()) {
      lock.unlock();
      step(plan);
      lock.lock();
      count(plan);
    }
    const std::vector<Ending> ended = collect_ended();
    if (more && plan.passes.empty() && ended.empty())  // a safety net: all wait for room
      work_.wait_for(lock, std::chrono::milliseconds(1));
    lock.unlock();  // on_end may call the engine
    for (const auto& [on_end, how] : ended) on_end(how);
    lock.lock();
  }
}

// Which texts this step serves, and how many positions of each, the oldest
// first. A text one position from its next draw joins the batch. An opening
// first takes what the pool holds of it (exercise 11b); with one position left
// it joins the batch, else it computes a piece (prefill_chunk positions in all
// at most). One whose first block a piece of this step computes waits a step,
// and then takes that block from the pool.
PagedEngine::Plan PagedEngine::schedule() {
  std::size_t running = 0, budget = options_.prefill_chunk;  // texts whose caches hold positions
  for (const auto& [id, t] : texts_) running += t->started;
  Plan plan;
  Pass batch{{}, 1, true, true};
  for (auto& entry : texts_) {  // in order of id: the oldest first
    Text* const t = entry.second.get();
    if (!t->waiting()) continue;
    t->window = crop_to_context(t->writer->context(), model_.config().block_size);
    const std::vector<TokenId>& have = t->paged.tokens;
    if (have.size() >= t->window.size() ||
        !std::equal(have.begin(), have.end(), t->window.begin())) {  // it slid
      release_all(t->paged, pool_);
      running -= t->started;
      t->started = false;
    }
    if (!t->started && running >= options_.max_batch) continue;  // it waits for one to end
    if (!t->started && t->paged.length() == 0 && options_.reuse_prefixes) {
      try {
        std::vector<const PagedText*> others;
        for (const auto& [id, other] : texts_) others.push_back(&other->paged);
        counters_.copied_blocks += reuse_opening(t->paged, t->window, others, pool_);
      } catch (...) {  // e.g. exercise 11b not written yet: this text gets it, and ends
        t->fail();
        continue;
      }
    }
    const std::size_t left = t->window.size() - t->paged.length();
    const auto computes_my_first_block = [&](const Pass& p) {
      return same_first_block(t->window, p.texts[0]->window, options_.block_size);
    };
    if (options_.reuse_prefixes && t->paged.length() == 0 &&
        std::any_of(plan.passes.begin(), plan.passes.end(), computes_my_first_block))
      continue;
    const std::size_t positions = left == 1 ? 1 : std::min(budget, left);
    if (positions == 0 || !make_room(*t, positions)) continue;  // no budget, or no room yet
    if (!t->started) {  // it starts computing: what the pool gave it counts as reused
      t->started = true;
      ++running;
      counters_.count_prefill(t->window.size(), t->paged.length(), t->paged.registered);
    }
    if (left == 1) {
      batch.texts.push_back(t);
    } else {
      plan.passes.push_back({{t}, positions, positions == left, false});
      budget -= positions;
    }
  }
  counters_.most_texts_written = std::max(counters_.most_texts_written, running);
  if (!batch.texts.empty()) {
    counters_.count_batch(batch.texts.size());
    plan.passes.push_back(batch);
  }
  for (const Pass& p : plan.passes) counters_.computed_positions += p.texts.size() * p.positions;
  return plan;
}

// Room in `text`'s table for `positions` more: free or cached blocks first,
// then the blocks of the newest text newer than it (not scheduled yet).
bool PagedEngine::make_room(Text& text, std::size_t positions) {
  for (std::size_t need = blocks_needed(text.paged, positions, pool_.block_size()); need > 0;) {
    if (const std::optional<BlockId> block = pool_.allocate()) {
      text.paged.table.push_back(*block);
      --need;
      continue;
    }
    const auto victim = std::find_if(texts_.rbegin(), texts_.rend(), [&](auto& t) {
      return t.first > text.id && !t.second->paged.table.empty();
    });
    if (victim == texts_.rend()) return false;  // it waits for older texts to end
    Text& v = *victim->second;
    release_all(v.paged, pool_);         // its full blocks stay cached: its recompute may find them
    counters_.preemptions += v.started;  // (one that only took cached blocks computed nothing)
    v.started = false;
  }
  return true;
}

// The step: its price, each forward pass, and each writer's draw from its row
// as soon as the row is there: the openings' pieces first, so a new request's
// first character goes out without waiting for the batch. Without the lock:
// only the loop touches the pool, the texts' caches and their writers.
void PagedEngine::step(Plan& plan) {
  std::vector<StepWork> works(plan.passes.size(), StepWork{0, 0, 0, 0});  // (06_kvcache/step_cost)
  for (std::size_t i = 0; i < works.size(); ++i)  // what each pass pushes through the model
    for (const Text* t : plan.passes[i].texts)
      works[i] += extend_step(plan.passes[i].positions, t->paged.length(), 1, plan.passes[i].draws);
  try {
    plan.price = clock_.price(works);
  } catch (...) {  // e.g. the cost model threw: before anything is computed
    for (const Pass& p : plan.passes)
      for (Text* t : p.texts) t->fail();
    return;
  }
  const KernelMatrices m = panels_ ? KernelMatrices(model_, *panels_, options_.gelu)
                                   : KernelMatrices(model_, options_.matmul, options_.gelu);
  const std::size_t V = model_.config().vocab_size;
  std::vector<Text*> drew;  // texts that drew since the last hand-off
  for (const Pass& p : plan.passes) {
    std::vector<TokenId> tokens;    // (B * positions) each text's new characters
    std::vector<PagedText*> texts;  // (B)
    for (Text* t : p.texts) {
      const std::span<const TokenId> more = t->window.subspan(t->paged.length(), p.positions);
      tokens.insert(tokens.end(), more.begin(), more.end());
      texts.push_back(&t->paged);
    }
    try {
      const auto t0 = std::chrono::steady_clock::now();
      const double cpu0 = thread_cpu_seconds();
      const View<2> logits =  // (B, V)
          forward_with_cache(model_, m, tokens, texts, pool_, acts_, LogitsFor::kLastPosition);
      plan.compute_seconds +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const double cpu1 = thread_cpu_seconds();
      for (std::size_t b = 0; b < p.texts.size(); ++b) {
        register_full_blocks(*texts[b], pool_);
        if (!p.draws) continue;
        try {  // the writer draws its character
          p.texts[b]->writer->take(require_finite({logits.data() + b * V, V}));
        } catch (...) {
          p.texts[b]->fail();
        }
      }
      plan.forward_cpu_seconds += cpu1 - cpu0;
      plan.draw_cpu_seconds += thread_cpu_seconds() - cpu1;
    } catch (...) {  // the texts of this pass get the error; the engine goes on
      for (Text* t : p.texts) t->fail();
    }
    // Then what they wrote goes on: after the openings' last piece (their first
    // characters need not wait for the batch) and after the batch. A request's
    // choices share one hand-off: after the first, the others find nothing to
    // pass on. So a request is woken once a step, twice when its choices are
    // split between the openings and the batch.
    if (p.draws) drew.insert(drew.end(), p.texts.begin(), p.texts.end());
    if (&p == &plan.passes.back() || (&p + 1)->batch) {
      const double cpu = thread_cpu_seconds();
      for (Text* t : drew)
        if (t->hand_off) t->hand_off();
      drew.clear();
      plan.hand_off_cpu_seconds += thread_cpu_seconds() - cpu;
    }
  }
}

// The step's counts and its place on the cost model's clock: a text draws
// when its pass is done (the batch's, at the step's end).
void PagedEngine::count(const Plan& plan) {
  EngineCounters& c = counters_;
  ++c.steps;
  c.compute_seconds += plan.compute_seconds;
  c.forward_cpu_seconds += plan.forward_cpu_seconds;
  c.draw_cpu_seconds += plan.draw_cpu_seconds;
  c.hand_off_cpu_seconds += plan.hand_off_cpu_seconds;
  c.most_blocks_in_use = std::max(c.most_blocks_in_use, pool_.counts().in_use);
  clock_.add(plan.price);
  for (std::size_t i = 0; i < plan.passes.size(); ++i)
    for (Text* t : plan.passes[i].texts)
      if (plan.passes[i].draws && !t->failure) {
        ++c.answers;
        clock_.drew(t->steps, plan.price.drawn_at_ms[i]);
      }
}

// The texts that are done, cancelled or failed give their blocks back and
// leave; their on_end calls, for after the lock.
std::vector<PagedEngine::Ending> PagedEngine::collect_ended() {
  std::vector<Ending> endings;
  std::erase_if(texts_, [&](auto& entry) {
    Text& t = *entry.second;
    if (t.waiting()) return false;
    const bool cut = t.cancelled && !t.failure && !t.writer->done();
    endings.emplace_back(std::move(t.on_end), TextEnd{cut, t.failure, clock_.times(t.steps)});
    release_all(t.paged, pool_);
    return true;
  });
  pool_counts_ = pool_.counts();
  return endings;
}

}  // namespace tang
