#include "11_server/paged_engine.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

#include "06_kvcache/kv_cache.hpp"  // step_activations, ModelMatrices
#include "11_server/prefix_reuse.hpp"

namespace tang {

struct PagedEngine::Text {
  TextId id = 0;
  Writer* writer = nullptr;  // from start() to its end
  OnEnd on_end;
  PagedText paged;                  // the loop's alone
  std::span<const TokenId> window;  // this step's: the writer's context, cropped to the model's
  bool started = false;  // its cache holds part of its window: it counts against max_batch
  bool cancelled = false, closed = false;
  std::exception_ptr failure;                                  // what a step of it threw
  std::size_t arrival = 0, first_answer = 0, last_answer = 0;  // steps done by then
  double first_in_step_ms = 0;  // predicted: from its first answer's step's start to its draw
  bool answered = false;
  bool waiting() const { return writer != nullptr && !cancelled && !failure && !writer->done(); }
};

struct PagedEngine::Plan {
  struct Piece {
    Text* text;
    std::size_t positions;
    double drawn_at_ms = 0;  // predicted, from the step's start (if it ends the opening)
  };
  std::vector<Text*> batch;     // one new position each
  std::vector<Piece> pieces;    // of openings, prefill_chunk positions in all at most
  std::vector<Text*> drawing;   // the texts whose writers take a row: the batch, whole openings
  std::vector<StepWork> works;  // what each forward pass pushes through the model
  double predicted_ms = 0, overhead_ms = 0, compute_seconds = 0;
  bool empty() const { return batch.empty() && pieces.empty(); }
  // When the cost model says `t` draws in this step: its piece's end (the pieces
  // run first), or the whole step for a text of the batch.
  double drawn_at_ms(const Text* t) const {
    for (const Piece& p : pieces)
      if (p.text == t) return p.drawn_at_ms;
    return predicted_ms + overhead_ms;
  }
  void fail(std::exception_ptr failure) {
    for (Text* t : batch) t->failure = failure;
    for (const Piece& p : pieces) p.text->failure = failure;
  }
};

PagedEngine::PagedEngine(const GPT& model, const EngineOptions& options)
    : model_(model),
      options_(options),
      pool_(model.config(), options.blocks, options.block_size),
      acts_(step_activations(model.config(), std::max(options.max_batch, options.prefill_chunk))) {
  const std::size_t one_text =
      (model.config().block_size + options.block_size - 1) / options.block_size;
  if (options.blocks < one_text) {
    throw std::invalid_argument("PagedEngine: the pool must hold one whole context (" +
                                std::to_string(one_text) + " blocks)");
  }
  if (options.max_batch == 0 || options.prefill_chunk == 0 || options.max_texts == 0)
    throw std::invalid_argument("PagedEngine: max_batch, prefill_chunk and max_texts must be > 0");
  acts_.logits.fill(0.0f);  // its pages mapped now, as the pool's (block_pool.cpp)
  pool_counts_ = pool_.counts();
  thread_ = std::thread([this] { run(); });
}

PagedEngine::~PagedEngine() {
  {
    std::lock_guard lock(mutex_);
    quitting_ = true;
  }
  work_.notify_all();
  thread_.join();
}

std::optional<PagedEngine::TextId> PagedEngine::open() {
  std::lock_guard lock(mutex_);
  std::size_t open = 0;
  for (const auto& [id, t] : texts_) open += !t->closed;
  if (!taking_ || quitting_ || open >= options_.max_texts) {
    ++counters_.texts_refused;
    return std::nullopt;
  }
  auto text = std::make_unique<Text>();
  text->id = next_id_++;
  const TextId id = text->id;
  texts_.emplace(id, std::move(text));
  ++counters_.texts_opened;
  return id;
}

void PagedEngine::start(TextId id, Writer& writer, OnEnd on_end) {
  std::vector<Start> one;
  one.push_back({id, &writer, std::move(on_end)});
  start(std::move(one));
}

void PagedEngine::start(std::vector<Start> starts) {
  {
    std::lock_guard lock(mutex_);
    for (const Start& s : starts) {  // every one checked before any starts
      const auto found = texts_.find(s.text);
      if (found == texts_.end() || found->second->closed || found->second->writer != nullptr ||
          s.writer == nullptr || std::count_if(starts.begin(), starts.end(), [&](const Start& o) {
                                   return o.text == s.text;
                                 }) > 1)
        throw std::invalid_argument("PagedEngine::start: no such open text, or it was started");
    }
    if (!quitting_) {
      for (Start& s : starts) {
        Text& t = *texts_.at(s.text);
        t.writer = s.writer;
        t.on_end = std::move(s.on_end);
        t.arrival = counters_.steps;
      }
      work_.notify_one();
      return;
    }
  }
  for (const Start& s : starts) s.on_end(TextEnd{true, nullptr, {}});  // the engine is stopping
}

void PagedEngine::cancel(TextId id) {
  std::lock_guard lock(mutex_);
  const auto found = texts_.find(id);
  if (found == texts_.end() || found->second->writer == nullptr || found->second->cancelled) return;
  found->second->cancelled = true;
  ++counters_.texts_cancelled;
  work_.notify_one();
}

void PagedEngine::close(TextId id) {
  std::lock_guard lock(mutex_);
  const auto found = texts_.find(id);
  if (found == texts_.end()) return;
  Text& t = *found->second;
  t.closed = true;
  if (t.writer == nullptr) {
    texts_.erase(found);  // only running texts are in a step
  } else if (!t.cancelled) {
    t.cancelled = true, ++counters_.texts_cancelled;
    work_.notify_one();
  }
}

void PagedEngine::stop_taking() {
  std::lock_guard lock(mutex_);
  taking_ = false;
}

void PagedEngine::cancel_all() {
  std::lock_guard lock(mutex_);
  for (auto& [id, t] : texts_) {
    if (t->writer != nullptr && !t->cancelled) t->cancelled = true, ++counters_.texts_cancelled;
  }
  work_.notify_one();
}

double PagedEngine::predicted_seconds() const {
  std::lock_guard lock(mutex_);
  return predicted_after_.back();
}

double PagedEngine::predicted_overhead_seconds() const {
  std::lock_guard lock(mutex_);
  return predicted_overhead_;
}

std::vector<StepWork> PagedEngine::work() const {
  std::lock_guard lock(mutex_);
  return work_log_;
}

EngineStats PagedEngine::stats() const {
  std::lock_guard lock(mutex_);
  EngineStats s{counters_, pool_counts_, 0};
  for (const auto& [id, t] : texts_) s.open_texts += !t->closed;
  return s;
}

// The loop: schedule, step (the forward passes and the draws, without the
// lock), count, end the texts that are done, cancelled or failed.
void PagedEngine::run() {
  std::unique_lock lock(mutex_);
  const auto writing = [&] {  // a text was started and has not ended (it may wait for room)
    return std::any_of(texts_.begin(), texts_.end(),
                       [](const auto& t) { return t.second->writer; });
  };
  while (true) {
    work_.wait(lock, [&] { return quitting_ || writing(); });
    if (quitting_) break;
    Plan plan = schedule();
    if (!plan.empty()) {
      lock.unlock();
      step(plan);
      lock.lock();
      finish_step(plan);
    }
    const std::vector<Ending> ended = collect_ended();
    if (plan.empty() && ended.empty())  // a safety net: every waiting text waits for room
      work_.wait_for(lock, std::chrono::milliseconds(1));
    tell(lock, ended);
  }
  for (auto& [id, t] : texts_) t->cancelled = true;  // the engine stops: every text ends
  tell(lock, collect_ended());
}

// Calls the ended texts' on_end, without the lock (they may call the engine).
void PagedEngine::tell(std::unique_lock<std::mutex>& lock, const std::vector<Ending>& ended) {
  if (ended.empty()) return;
  lock.unlock();
  for (const auto& [on_end, how] : ended) on_end(how);
  lock.lock();
}

// Which texts this step serves, and what it will cost. Under the lock; the
// pool is the loop's.
PagedEngine::Plan PagedEngine::schedule() {
  std::vector<Text*> batch, openings;  // one more position each; more than one
  for (auto& [id, t] : texts_) {       // in order of id: the oldest first
    if (!t->waiting()) continue;
    t->window = crop_to_context(t->writer->context(), model_.config().block_size);
    const std::vector<TokenId>& have = t->paged.tokens;
    const bool extends =
        have.size() < t->window.size() && std::equal(have.begin(), have.end(), t->window.begin());
    if (!extends) {  // the window slid (or a new text): start over
      release_all(t->paged, pool_);
      t->started = false;
    }
    const bool one_more = t->started && t->window.size() == t->paged.length() + 1;
    (one_more ? batch : openings).push_back(t.get());
  }
  // an opening first takes what the pool has of it; with one position left it
  // joins the batch, else it computes a piece: the oldest first, prefill_chunk
  // positions in all at most. One whose first block another piece of this step
  // computes waits a step, and then takes that block from the pool.
  Plan plan;
  std::size_t budget = options_.prefill_chunk;
  const std::size_t size = options_.block_size;
  const auto same_first_block = [&](const Text* t) {
    return std::any_of(plan.pieces.begin(), plan.pieces.end(), [&](const Plan::Piece& p) {
      const std::span<const TokenId> a = t->window, b = p.text->window;
      return a.size() > size && b.size() > size &&
             std::equal(a.begin(), a.begin() + long(size), b.begin());
    });
  };
  std::size_t running = static_cast<std::size_t>(
      std::count_if(texts_.begin(), texts_.end(), [](const auto& t) { return t.second->started; }));
  for (Text* t : openings) {
    if (!t->started && running >= options_.max_batch) continue;  // it waits for one to end
    if (!t->started && t->paged.length() == 0 && options_.reuse_prefixes) {
      try {
        take_opening(*t);
      } catch (...) {  // e.g. exercise 11b not written yet: this text gets it, and ends
        t->failure = std::current_exception();
        continue;
      }
    }
    const std::size_t left = t->window.size() - t->paged.length();
    if (options_.reuse_prefixes && t->paged.length() == 0 && same_first_block(t)) continue;
    if (left > 1 && budget == 0) continue;
    if (!t->started) {  // it starts computing: what the pool gave it counts as reused
      t->started = true;
      ++running;
      ++counters_.prefills;
      counters_.prefill_positions += t->window.size();
      counters_.reused_positions += t->paged.length();
      counters_.reused_blocks += t->paged.registered;
      counters_.prefix_hits += t->paged.length() > 0;
    }
    if (left == 1) {
      batch.push_back(t);
    } else {
      plan.pieces.push_back({t, std::min(budget, left)});
      budget -= plan.pieces.back().positions;
    }
  }
  counters_.most_texts_written = std::max(counters_.most_texts_written, running);
  std::sort(batch.begin(), batch.end(), [](const Text* a, const Text* b) { return a->id < b->id; });
  // each text needs room for its positions, the oldest first; a text preempted
  // by an older one's room leaves the step
  for (Text* t : batch)
    if (t->started && make_room(*t, 1)) plan.batch.push_back(t);
  std::vector<Plan::Piece> pieces = std::move(plan.pieces);
  plan.pieces.clear();
  for (const Plan::Piece& p : pieces)
    if (p.text->started && make_room(*p.text, p.positions)) plan.pieces.push_back(p);
  std::erase_if(plan.batch, [](const Text* t) { return !t->started; });
  std::erase_if(plan.pieces, [](const Plan::Piece& p) { return !p.text->started; });
  plan.drawing = plan.batch;
  for (const Plan::Piece& p : plan.pieces)
    if (p.text->paged.length() + p.positions == p.text->window.size())
      plan.drawing.push_back(p.text);
  plan.works = step_work(plan);
  return plan;
}

// A new text takes the cached blocks of its opening, then copies what it can
// of the part-filled block after them (prefix_reuse.hpp).
void PagedEngine::take_opening(Text& t) {
  take_cached_opening(t.paged, t.window, pool_);
  std::vector<const PagedText*> others;
  for (const auto& [id, other] : texts_) others.push_back(&other->paged);
  counters_.copied_blocks += copy_part_filled_block(t.paged, t.window, others, pool_);
}

// Room in `text`'s table for `positions` more: free or cached blocks first,
// then the blocks of texts newer than it, newest first.
bool PagedEngine::make_room(Text& text, std::size_t positions) {
  std::size_t need = blocks_needed(text.paged, positions, pool_.block_size());
  while (need > 0) {
    if (const std::optional<BlockId> block = pool_.allocate()) {
      text.paged.table.push_back(*block);
      --need;
      continue;
    }
    Text* victim = nullptr;
    for (auto it = texts_.rbegin(); it != texts_.rend() && it->first > text.id; ++it) {
      if (!it->second->paged.table.empty()) {
        victim = it->second.get();
        break;
      }
    }
    if (victim == nullptr) return false;  // it waits for older texts to finish
    preempt(*victim);
  }
  return true;
}

void PagedEngine::preempt(Text& victim) {
  release_all(victim.paged, pool_);  // its full blocks stay cached: its recompute may find them
  counters_.preemptions +=
      victim.started;  // (one that only took cached blocks had computed nothing)
  victim.started = false;
}

// What the step will push through the model, as lesson 08 counts it
// (06_kvcache/step_cost.hpp), in the order it runs: each piece, then the
// batched step's B rows.
std::vector<StepWork> PagedEngine::step_work(const Plan& plan) const {
  std::vector<StepWork> works;
  for (const Plan::Piece& piece : plan.pieces) {
    const Text& t = *piece.text;
    const bool last = t.paged.length() + piece.positions == t.window.size();  // a draw
    works.push_back(extend_step(piece.positions, t.paged.length(), 1, last ? 1 : 0));
  }
  if (!plan.batch.empty()) {
    StepWork w{plan.batch.size(), plan.batch.size(), 0, plan.batch.size()};
    for (const Text* t : plan.batch) w.keys += t->paged.length() + 1;  // its cache and new position
    works.push_back(w);
  }
  return works;
}

// The step: its prediction, the forward passes, and each writer's draw from its
// row as soon as the row is there. Without the lock: only the loop touches the
// pool, the texts' caches and their writers.
void PagedEngine::step(Plan& plan) {
  try {
    if (options_.predict_ms) {
      if (options_.step_overhead_ms)
        plan.overhead_ms = options_.step_overhead_ms(plan.drawing.size());
      // the pieces' works come first (step_work); a piece that ends its opening
      // draws after them and its share of the overhead, before the batch runs
      std::size_t drawn = 0;
      for (std::size_t i = 0; i < plan.works.size(); ++i) {
        plan.predicted_ms += options_.predict_ms(plan.works[i]);
        if (i < plan.pieces.size() && plan.works[i].draws > 0)
          plan.pieces[i].drawn_at_ms =
              plan.predicted_ms + plan.overhead_ms * double(++drawn) / double(plan.drawing.size());
      }
    }
  } catch (...) {  // e.g. the cost model's function threw: before anything is computed
    plan.fail(std::current_exception());
    return;
  }
  const ModelMatrices<> m(model_);  // a view of the model's own floats
  const std::size_t V = model_.config().vocab_size;
  const auto forward = [&](std::span<const TokenId> tokens, std::span<PagedText* const> texts) {
    const auto t0 = std::chrono::steady_clock::now();
    const View<2> logits =
        forward_with_cache(model_, m, tokens, texts, pool_, acts_, LogitsFor::kLastPosition);
    plan.compute_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return logits;
  };
  const auto take = [&](Text& t, const float* row) {  // the writer draws its character
    try {
      t.writer->take(require_finite({row, V}));
    } catch (...) {
      t.failure = std::current_exception();
    }
  };
  // The openings' pieces first, each on its own (B texts share one T): a new
  // request's first character then goes out without waiting for the batch.
  for (const Plan::Piece& p : plan.pieces) {
    Text& t = *p.text;
    PagedText* const texts[] = {&t.paged};
    try {
      const View<2> logits = forward(t.window.subspan(t.paged.length(), p.positions), texts);
      register_full_blocks(t.paged, pool_);
      if (t.paged.length() == t.window.size()) take(t, logits.data());
    } catch (...) {
      t.failure = std::current_exception();
    }
  }
  if (!plan.batch.empty()) {
    std::vector<TokenId> tokens;    // (B) each text's new character
    std::vector<PagedText*> texts;  // (B)
    for (Text* t : plan.batch) tokens.push_back(t->window.back()), texts.push_back(&t->paged);
    try {
      const View<2> logits = forward(tokens, texts);  // (B, V)
      for (std::size_t b = 0; b < plan.batch.size(); ++b) {
        register_full_blocks(plan.batch[b]->paged, pool_);
        take(*plan.batch[b], logits.data() + b * V);
      }
    } catch (...) {  // the texts of this forward pass get the error; the engine goes on
      for (Text* t : plan.batch)
        if (!t->failure) t->failure = std::current_exception();
    }
  }
}

// The step's counts and prediction. Under the lock.
void PagedEngine::finish_step(Plan& plan) {
  ++counters_.steps;
  counters_.most_blocks_in_use = std::max(counters_.most_blocks_in_use, pool_.counts().in_use);
  counters_.compute_seconds += plan.compute_seconds;
  if (options_.record_work) work_log_.insert(work_log_.end(), plan.works.begin(), plan.works.end());
  if (!plan.batch.empty()) {
    ++counters_.batched_steps;
    counters_.batched_rows += plan.batch.size();
    counters_.largest_batch = std::max(counters_.largest_batch, plan.batch.size());
  }
  predicted_after_.push_back(predicted_after_.back() +
                             (plan.predicted_ms + plan.overhead_ms) / 1000);
  predicted_overhead_ += plan.overhead_ms / 1000;
  for (Text* t : plan.drawing) {
    if (t->failure) continue;
    ++counters_.answers;
    if (!t->answered) {
      t->first_answer = counters_.steps, t->answered = true;
      t->first_in_step_ms = plan.drawn_at_ms(t);
    }
    t->last_answer = counters_.steps;
  }
}

// The texts that are done, cancelled or failed give their blocks back and
// leave; their on_end calls, for after the lock. Closed texts go.
std::vector<PagedEngine::Ending> PagedEngine::collect_ended() {
  std::vector<Ending> endings;
  for (auto it = texts_.begin(); it != texts_.end();) {
    Text& t = *it->second;
    if (t.writer != nullptr && !t.waiting()) {
      TextEnd how{t.cancelled && !t.failure && !t.writer->done(), t.failure, {}};
      if (options_.predict_ms && t.answered) {
        const std::vector<double>& after = predicted_after_;
        how.predicted = {after[t.first_answer - 1] - after[t.arrival] + t.first_in_step_ms / 1000,
                         after[t.last_answer] - after[t.arrival]};
      }
      release_all(t.paged, pool_);
      t.started = false;
      t.writer = nullptr;
      endings.emplace_back(std::move(t.on_end), how);
    }
    it = t.closed && t.writer == nullptr ? texts_.erase(it) : std::next(it);
  }
  pool_counts_ = pool_.counts();
  return endings;
}

}  // namespace tang
