#include "11_server/paged_engine.hpp"

#include <algorithm>
#include <exception>

#include "06_kvcache/kv_cache.hpp"  // step_activations, ModelMatrices

namespace tang {

struct PagedEngine::Text {
  TextId id = 0;
  PagedText paged;              // the step thread's alone
  std::vector<TokenId> window;  // the waiting call's context, cropped to the model's
  bool pending = false;         // a call waits for its logits
  bool answered = false;        // ... and they are in `logits`
  bool choosing = false;        // answered; the writer has not called again
  bool cancelled = false, closed = false;
  bool started = false;  // computing: its cache holds part of its window
  std::size_t arrival = 0, first_answer = 0, last_answer = 0;  // steps done by then
  bool called = false, answered_once = false;
  std::exception_ptr failure;      // when a step failed on this text: its call rethrows it
  std::vector<float> logits;       // (V)
  std::condition_variable answer;  // its writer waits here for its logits
};

struct PagedEngine::Plan {
  struct Piece {
    Text* text;
    std::size_t positions;
  };
  std::vector<Text*> batch;   // one new position each
  std::vector<Piece> pieces;  // pieces of openings, prefill_chunk positions in all at most
  bool empty() const { return batch.empty() && pieces.empty(); }
  std::vector<Text*> texts() const {
    std::vector<Text*> all = batch;
    for (const Piece& p : pieces) all.push_back(p.text);
    return all;
  }
};

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

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
    for (auto& [id, t] : texts_) t->answer.notify_all();
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

std::span<const float> PagedEngine::next_logits(TextId id, std::span<const TokenId> context) {
  if (context.empty()) throw std::invalid_argument("next_logits: empty context");
  std::unique_lock lock(mutex_);
  const auto found = texts_.find(id);
  if (found == texts_.end() || found->second->closed)
    throw std::invalid_argument("next_logits: no such open text");
  Text& t = *found->second;
  const bool was_choosing = t.choosing;
  if (t.choosing) t.choosing = false, --choosing_;
  if (t.cancelled || quitting_) throw Cancelled("the text was cancelled");
  const std::span<const TokenId> window = crop_to_context(context, model_.config().block_size);
  t.window.assign(window.begin(), window.end());
  if (!t.called) t.called = true, t.arrival = counters_.steps;
  t.pending = true;
  t.answered = false;
  // the step thread waits for work, or for the last text still choosing: wake it then only
  const bool wake = !was_choosing || choosing_ == 0;
  lock.unlock();
  if (wake) work_.notify_one();
  lock.lock();
  t.answer.wait(lock, [&] { return t.answered || t.cancelled || quitting_ || t.failure; });
  t.pending = false;
  if (t.failure) std::rethrow_exception(t.failure);
  if (!t.answered) throw Cancelled("the text was cancelled");
  return require_finite(t.logits);
}

void PagedEngine::close(TextId id) {
  std::lock_guard lock(mutex_);
  const auto found = texts_.find(id);
  if (found == texts_.end()) return;
  Text& t = *found->second;
  if (t.choosing) t.choosing = false, --choosing_;
  t.closed = true;
  work_.notify_one();
}

void PagedEngine::cancel(TextId id) {
  std::lock_guard lock(mutex_);
  const auto found = texts_.find(id);
  if (found == texts_.end() || found->second->cancelled) return;
  found->second->cancelled = true;
  ++counters_.texts_cancelled;
  found->second->answer.notify_all();
  work_.notify_one();
}

void PagedEngine::stop_taking() {
  std::lock_guard lock(mutex_);
  taking_ = false;
}

void PagedEngine::cancel_all() {
  std::lock_guard lock(mutex_);
  for (auto& [id, t] : texts_) {
    if (!t->cancelled && !t->closed) t->cancelled = true, ++counters_.texts_cancelled;
    t->answer.notify_all();
  }
  work_.notify_one();
}

std::optional<PredictedTimes> PagedEngine::predicted(TextId id) const {
  std::lock_guard lock(mutex_);
  const auto found = texts_.find(id);
  if (!options_.predict_ms || found == texts_.end()) return {};
  const Text& t = *found->second;  // its steps are counted in counters_.steps: all predicted
  const std::vector<double>& after = predicted_after_;
  return PredictedTimes{after[t.first_answer] - after[t.arrival],
                        after[t.last_answer] - after[t.arrival]};
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

void PagedEngine::run() {
  std::unique_lock lock(mutex_);
  const auto has_work = [&] {
    if (quitting_) return true;
    for (const auto& [id, t] : texts_) {
      if (t->closed || (t->pending && !t->cancelled && !t->answered)) return true;
    }
    return false;
  };
  while (true) {
    work_.wait(lock, has_work);
    if (quitting_) break;
    // the texts still choosing their character join this step if they call soon
    work_.wait_for(lock, kGatherWait, [&] { return quitting_ || choosing_ == 0; });
    if (quitting_) break;
    Plan plan;
    try {
      plan = plan_step();
    } catch (...) {  // e.g. exercise 11b not written yet: the waiting texts get it, and go
      fail_waiting(lock, std::current_exception());
      continue;
    }
    if (plan.empty()) {  // only closed texts, or every waiting one waits for room
      pool_counts_ = pool_.counts();
      work_.wait_for(lock, std::chrono::milliseconds(1));
      continue;
    }
    lock.unlock();
    const auto t0 = std::chrono::steady_clock::now();
    std::exception_ptr failure;
    try {
      compute(plan);
    } catch (...) {
      failure = std::current_exception();
    }
    const double seconds = seconds_since(t0);
    lock.lock();
    counters_.compute_seconds += seconds;
    std::vector<Text*> answered;
    if (failure) {  // the texts of this step get the error; the engine goes on
      answered = plan.texts();
      for (Text* t : answered) fail(*t, failure);
    } else {
      try {
        answered = finish_step(plan);
      } catch (...) {  // e.g. the cost model's function threw: before any text is answered
        fail_waiting(lock, std::current_exception());
        continue;
      }
    }
    pool_counts_ = pool_.counts();
    counters_.most_blocks_in_use = std::max(counters_.most_blocks_in_use, pool_counts_.in_use);
    lock.unlock();  // each writer wakes to its own answer (only this thread erases texts)
    for (Text* t : answered) t->answer.notify_one();
    lock.lock();
  }
}

// Every text waiting for a step gets `failure` (its call rethrows it) and its
// blocks go back. Called with the lock held; returns with it held.
void PagedEngine::fail_waiting(std::unique_lock<std::mutex>& lock, std::exception_ptr failure) {
  std::vector<Text*> failed;
  for (auto& [id, t] : texts_) {
    if (!t->pending || t->answered || t->cancelled || t->closed || t->failure) continue;
    fail(*t, failure);
    failed.push_back(t.get());
  }
  pool_counts_ = pool_.counts();
  lock.unlock();
  for (Text* t : failed) t->answer.notify_one();
  lock.lock();
}

// A text a step failed on: its call rethrows `failure`, its blocks go back, and
// it no longer counts as written (it waits for nothing more).
void PagedEngine::fail(Text& t, std::exception_ptr failure) {
  t.failure = std::move(failure);
  release_all(t.paged, pool_);
  t.started = false;
}

// Which texts this step serves. Under the lock; the pool is the step thread's.
PagedEngine::Plan PagedEngine::plan_step() {
  for (auto it = texts_.begin(); it != texts_.end();) {  // closed texts give their blocks back
    if (it->second->closed) {
      release_all(it->second->paged, pool_);
      it = texts_.erase(it);
    } else {
      ++it;
    }
  }
  Plan plan;
  std::vector<Text*> batch, openings;  // one more position each; more than one
  for (auto& [id, t] : texts_) {       // in order of id: the oldest first
    if (!t->pending || t->answered || t->cancelled || t->failure) continue;
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
  std::size_t budget = options_.prefill_chunk;
  const std::size_t size = options_.block_size;
  const auto same_first_block = [&](const Text* t) {
    return std::any_of(plan.pieces.begin(), plan.pieces.end(), [&](const Plan::Piece& p) {
      const std::vector<TokenId>& a = t->window;
      const std::vector<TokenId>& b = p.text->window;
      return a.size() > size && b.size() > size &&
             std::equal(a.begin(), a.begin() + static_cast<long>(size), b.begin());
    });
  };
  // at most max_batch texts are being written: a text starts only while fewer have
  std::size_t running = static_cast<std::size_t>(
      std::count_if(texts_.begin(), texts_.end(), [](const auto& t) { return t.second->started; }));
  for (Text* t : openings) {
    if (!t->started && running >= options_.max_batch) continue;  // it waits for one to end
    if (!t->started && t->paged.length() == 0 && options_.reuse_prefixes) take_cached_opening(*t);
    const std::size_t left = t->window.size() - t->paged.length();
    if (options_.reuse_prefixes && t->paged.length() == 0 && same_first_block(t)) continue;
    if (left == 1 || budget > 0) {
      if (!t->started) {
        count_start(*t);
        ++running;
      }
      if (left == 1) {
        batch.push_back(t);
      } else {
        plan.pieces.push_back({t, std::min(budget, left)});
        budget -= plan.pieces.back().positions;
      }
    }
  }
  counters_.most_texts_written = std::max(counters_.most_texts_written, running);
  std::sort(batch.begin(), batch.end(), [](const Text* a, const Text* b) { return a->id < b->id; });
  // each text of the batch needs room for one position; the oldest are served first
  for (Text* t : batch) {
    if (!t->started) continue;  // preempted just now by an older text
    if (make_room(*t, 1)) plan.batch.push_back(t);
  }
  std::vector<Plan::Piece> pieces = std::move(plan.pieces);
  plan.pieces.clear();
  for (const Plan::Piece& p : pieces) {
    if (p.text->started && make_room(*p.text, p.positions)) plan.pieces.push_back(p);
  }
  // a text preempted by an older one's room leaves the step
  std::erase_if(plan.batch, [](const Text* t) { return !t->started; });
  std::erase_if(plan.pieces, [](const Plan::Piece& p) { return !p.text->started; });
  return plan;
}

// A new text takes the cached full blocks of its opening (exercise 11b), then
// copies what it can of the part-filled block after them.
void PagedEngine::take_cached_opening(Text& t) {
  const std::size_t size = options_.block_size;
  const std::vector<BlockId> reused = pool_.take_prefix(t.window, (t.window.size() - 1) / size);
  for (BlockId b : reused) {
    const std::span<const TokenId> held(t.window.data() + t.paged.table.size() * size, size);
    t.paged.last_hash = block_hash(t.paged.last_hash, held);
    t.paged.table.push_back(b);
    t.paged.tokens.insert(t.paged.tokens.end(), held.begin(), held.end());
  }
  t.paged.registered = reused.size();
  copy_part_filled_block(t);
}

// The block after a new text's full ones: the rows of it that a running text
// whose cache begins as this one's window does already holds are copied into a
// block of its own (copy on write), the longest such match. Never the window's
// last position: its logits are what the next character is drawn from.
void PagedEngine::copy_part_filled_block(Text& t) {
  const std::size_t size = options_.block_size;
  const std::size_t full = t.paged.table.size();
  const std::size_t from = full * size;  // the part-filled block starts here
  const std::size_t most = std::min(size - 1, t.window.size() - 1 - from);
  const Text* best = nullptr;
  std::size_t rows = 0;
  for (const auto& [id, other] : texts_) {
    const std::vector<TokenId>& theirs = other->paged.tokens;
    if (other.get() == &t || theirs.size() <= from ||
        !std::equal(t.window.begin(), t.window.begin() + static_cast<long>(from), theirs.begin()))
      continue;
    std::size_t same = 0;
    while (same < most && from + same < theirs.size() &&
           theirs[from + same] == t.window[from + same])
      ++same;
    if (same > rows) best = other.get(), rows = same;
  }
  if (best == nullptr) return;
  const std::optional<BlockId> block = pool_.allocate();
  if (!block) return;  // no room to copy into: computed instead
  pool_.copy_rows(best->paged.table[full], *block, rows);
  t.paged.table.push_back(*block);
  t.paged.tokens.insert(t.paged.tokens.end(), t.window.begin() + static_cast<long>(from),
                        t.window.begin() + static_cast<long>(from + rows));
  ++counters_.copied_blocks;
}

// A text starts computing its opening: what the pool gave it counts as reused.
void PagedEngine::count_start(Text& t) {
  t.started = true;
  ++counters_.prefills;
  counters_.prefill_positions += t.window.size();
  counters_.reused_positions += t.paged.length();
  counters_.reused_blocks += t.paged.registered;
  counters_.prefix_hits += t.paged.length() > 0;
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
  victim.started = false;
  ++counters_.preemptions;
}

void PagedEngine::compute(Plan& plan) {
  const ModelMatrices<> m(model_);  // a view of the model's own floats
  const std::size_t V = model_.config().vocab_size;
  if (!plan.batch.empty()) {
    std::vector<TokenId> tokens;    // (B) each text's new character
    std::vector<PagedText*> texts;  // (B)
    for (Text* t : plan.batch) {
      tokens.push_back(t->window.back());
      texts.push_back(&t->paged);
    }
    const View<2> logits =
        forward_with_cache(model_, m, tokens, texts, pool_, acts_, LogitsFor::kLastPosition);
    for (std::size_t b = 0; b < plan.batch.size(); ++b)
      plan.batch[b]->logits.assign(logits.data() + b * V, logits.data() + (b + 1) * V);
  }
  for (const Plan::Piece& p : plan.pieces) {  // each on its own: B texts share one T
    Text& t = *p.text;
    const std::span<const TokenId> piece =
        std::span<const TokenId>(t.window).subspan(t.paged.length(), p.positions);
    PagedText* const texts[] = {&t.paged};
    const View<2> logits =
        forward_with_cache(model_, m, piece, texts, pool_, acts_, LogitsFor::kLastPosition);
    if (t.paged.length() == t.window.size()) t.logits.assign(logits.data(), logits.data() + V);
  }
}

// What the step pushed through the model, as lesson 08 counts it (06_kvcache/step_cost.hpp):
// the batched step's B rows, then the opening's piece.
std::vector<StepWork> PagedEngine::step_work(const Plan& plan) const {
  std::vector<StepWork> works;
  if (!plan.batch.empty()) {
    StepWork w{plan.batch.size(), plan.batch.size(), 0, plan.batch.size()};
    for (const Text* t : plan.batch) w.keys += t->paged.length();  // its cache and new position
    works.push_back(w);
  }
  for (const Plan::Piece& piece : plan.pieces) {
    const Text& t = *piece.text;
    const std::size_t end = t.paged.length(), start = end - piece.positions;
    const bool last = end == t.window.size();  // its logits, and a draw
    StepWork w{piece.positions, 1, 0, last ? std::size_t{1} : 0};
    for (std::size_t p = start; p < end; ++p) w.keys += p + 1;
    works.push_back(w);
  }
  return works;
}

std::vector<PagedEngine::Text*> PagedEngine::finish_step(Plan& plan) {
  ++counters_.steps;
  const std::vector<StepWork> works = step_work(plan);
  if (options_.record_work) work_log_.insert(work_log_.end(), works.begin(), works.end());
  if (!plan.batch.empty()) {
    ++counters_.batched_steps;
    counters_.batched_rows += plan.batch.size();
    counters_.largest_batch = std::max(counters_.largest_batch, plan.batch.size());
  }
  std::vector<Text*> done = plan.batch;
  for (const Plan::Piece& p : plan.pieces) {
    if (p.text->paged.length() == p.text->window.size()) done.push_back(p.text);
  }
  for (Text* t : plan.texts()) register_full_blocks(t->paged, pool_);
  if (options_.predict_ms) {  // the predicted time of steps 1 .. counters_.steps
    double ms = 0;
    for (const StepWork& w : works) ms += options_.predict_ms(w);
    if (options_.step_overhead_ms) {
      const double overhead_ms = options_.step_overhead_ms(done.size());
      ms += overhead_ms;
      predicted_overhead_ += overhead_ms / 1000;
    }
    predicted_after_.push_back(predicted_after_.back() + ms / 1000);
  }
  for (Text* t : done) {
    if (t->cancelled || t->closed) continue;
    ++counters_.answers;
    if (!t->answered_once) t->first_answer = counters_.steps, t->answered_once = true;
    t->last_answer = counters_.steps;
    t->answered = true;
    t->choosing = true;
    ++choosing_;
  }
  return done;
}

}  // namespace tang
