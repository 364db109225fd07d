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
  std::exception_ptr failure;  // what a step of it threw
  TextSteps steps;             // on the cost model's clock
  bool running() const { return writer != nullptr; }
  bool waiting() const { return running() && !cancelled && !failure && !writer->done(); }
  void fail() {
    if (!failure) failure = std::current_exception();
  }
};

struct PagedEngine::Plan {
  struct Piece {
    Text* text;
    std::size_t positions;
    bool draws;  // it ends the opening: the writer takes its last row
  };
  std::vector<Text*> batch;     // one new position each
  std::vector<Piece> pieces;    // of openings, prefill_chunk positions in all at most
  std::vector<StepWork> works;  // what each forward pass pushes through the model
  std::size_t drawing = 0;      // texts whose writers take a row: the batch, ended openings
  StepPrice price;
  double compute_seconds = 0;
  bool empty() const { return batch.empty() && pieces.empty(); }
};

PagedEngine::PagedEngine(const GPT& model, const EngineOptions& options)
    : model_(model),
      options_(options),
      pool_(model.config(), options.blocks, options.block_size),
      acts_(step_activations(model.config(), std::max(options.max_batch, options.prefill_chunk))),
      clock_(options) {
  const std::size_t context = model.config().block_size, size = options.block_size;
  if (options.blocks * size < context)
    throw std::invalid_argument("PagedEngine: the pool must hold one whole context (" +
                                std::to_string((context + size - 1) / size) + " blocks)");
  if (options.max_batch == 0 || options.prefill_chunk == 0 || options.max_texts == 0)
    throw std::invalid_argument("PagedEngine: max_batch, prefill_chunk and max_texts must be > 0");
  acts_.logits.fill(0.0f);  // its pages mapped now, as the pool's (block_pool.cpp)
  pool_counts_ = pool_.counts();
  thread_ = std::thread([this] { run(); });
}

PagedEngine::~PagedEngine() {
  {
    const std::lock_guard lock(mutex_);
    quitting_ = true;
  }
  work_.notify_all();
  thread_.join();
}

// --- the requests' side: a place, a writer in it, its end --------------------

std::optional<PagedEngine::TextId> PagedEngine::open() {
  const std::lock_guard lock(mutex_);
  std::size_t open = 0;
  for (const auto& [id, t] : texts_) open += !t->closed;
  if (!taking_ || quitting_ || open >= options_.max_texts) {
    ++counters_.texts_refused;
    return std::nullopt;
  }
  const TextId id = next_id_++;
  texts_.emplace(id, std::make_unique<Text>()).first->second->id = id;
  ++counters_.texts_opened;
  return id;
}

void PagedEngine::start(std::vector<Start> starts) {
  {
    const std::lock_guard lock(mutex_);
    for (const Start& s : starts) {  // every one checked before any starts
      const auto t = texts_.find(s.text);
      const auto same = [&](const Start& o) { return o.text == s.text; };
      if (t == texts_.end() || t->second->closed || t->second->running() || !s.writer ||
          std::count_if(starts.begin(), starts.end(), same) > 1)
        throw std::invalid_argument("PagedEngine::start: no such open text, or it was started");
    }
    if (!quitting_) {
      for (Start& s : starts) {
        Text& t = *texts_.at(s.text);
        t.writer = s.writer, t.on_end = std::move(s.on_end), t.steps.arrival = clock_.steps();
      }
      work_.notify_one();
      return;
    }
  }
  for (const Start& s : starts) s.on_end(TextEnd{true, nullptr, {}});  // the engine is stopping
}

void PagedEngine::cancel(Text& t) {  // under the lock
  if (!t.running() || t.cancelled) return;
  t.cancelled = true, ++counters_.texts_cancelled;
  work_.notify_one();
}

void PagedEngine::cancel(TextId id) {
  const std::lock_guard lock(mutex_);
  if (const auto t = texts_.find(id); t != texts_.end()) cancel(*t->second);
}

void PagedEngine::close(TextId id) {
  const std::lock_guard lock(mutex_);
  const auto t = texts_.find(id);
  if (t == texts_.end()) return;
  t->second->closed = true;
  if (!t->second->running())
    texts_.erase(t);  // a running text leaves at its end
  else
    cancel(*t->second);
}

void PagedEngine::stop_taking() {
  const std::lock_guard lock(mutex_);
  taking_ = false;
}

void PagedEngine::cancel_all() {
  const std::lock_guard lock(mutex_);
  for (auto& [id, t] : texts_) cancel(*t);
}

EngineStats PagedEngine::stats() const {
  const std::lock_guard lock(mutex_);
  EngineStats s{counters_, pool_counts_, 0, clock_.seconds(), clock_.overhead_seconds()};
  for (const auto& [id, t] : texts_) s.open_texts += !t->closed;
  return s;
}

// --- the loop: schedule, run the step without the lock, count, end -----------

void PagedEngine::run() {
  std::unique_lock lock(mutex_);
  const auto writing = [&] {  // a text was started and has not ended (it may wait for room)
    return std::any_of(texts_.begin(), texts_.end(), [](auto& t) { return t.second->running(); });
  };
  for (bool more = true; more;) {
    work_.wait(lock, [&] { return quitting_ || writing(); });
    Plan plan;
    if (quitting_) {
      for (auto& [id, t] : texts_) t->cancelled = true;  // the engine stops: every text ends
      more = false;
    } else {
      plan = schedule();
    }
    if (!plan.empty()) {
      lock.unlock();
      step(plan);
      lock.lock();
      count(plan);
    }
    const std::vector<Ending> ended = collect_ended();
    if (more && plan.empty() && ended.empty())  // a safety net: all wait for room
      work_.wait_for(lock, std::chrono::milliseconds(1));
    lock.unlock();  // on_end may call the engine
    for (const auto& [on_end, how] : ended) on_end(how);
    lock.lock();
  }
}

// Which texts this step serves, and what it pushes through the model.
PagedEngine::Plan PagedEngine::schedule() {
  std::vector<Text*> batch, openings;  // one more position each; more than one
  for (auto& [id, t] : texts_) {       // in order of id: the oldest first
    if (!t->waiting()) continue;
    t->window = crop_to_context(t->writer->context(), model_.config().block_size);
    const std::vector<TokenId>& have = t->paged.tokens;
    if (have.size() >= t->window.size() || !std::equal(have.begin(), have.end(), t->window.begin()))
      release_all(t->paged, pool_), t->started = false;  // the window slid: start over
    const bool one_more = t->started && t->window.size() == t->paged.length() + 1;
    (one_more ? batch : openings).push_back(t.get());
  }
  // An opening first takes what the pool holds of it (exercise 11b); with one
  // position left it joins the batch, else it computes a piece: the oldest
  // first, prefill_chunk positions in all at most. One whose first block a piece
  // of this step computes waits a step, and then takes that block from the pool.
  Plan plan;
  std::size_t budget = options_.prefill_chunk, running = 0;
  for (const auto& [id, t] : texts_) running += t->started;
  const auto shares_first_block = [&](const Text* t) {
    const long size = long(options_.block_size);
    return std::any_of(plan.pieces.begin(), plan.pieces.end(), [&](const Plan::Piece& p) {
      const std::span<const TokenId> a = t->window, b = p.text->window;
      return a.size() > std::size_t(size) && b.size() > std::size_t(size) &&
             std::equal(a.begin(), a.begin() + size, b.begin());
    });
  };
  for (Text* t : openings) {
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
    if (options_.reuse_prefixes && t->paged.length() == 0 && shares_first_block(t)) continue;
    if (left > 1 && budget == 0) continue;
    if (!t->started) {  // it starts computing: what the pool gave it counts as reused
      t->started = true, ++running;
      counters_.count_prefill(t->window.size(), t->paged.length(), t->paged.registered);
    }
    if (left == 1) {
      batch.push_back(t);
    } else {
      plan.pieces.push_back({t, std::min(budget, left), budget >= left});
      budget -= plan.pieces.back().positions;
    }
  }
  counters_.most_texts_written = std::max(counters_.most_texts_written, running);
  // Room for each text's positions, the oldest first; a text preempted by an
  // older one's room leaves the step.
  std::sort(batch.begin(), batch.end(), [](const Text* a, const Text* b) { return a->id < b->id; });
  for (Text* t : batch)
    if (t->started && make_room(*t, 1)) plan.batch.push_back(t);
  std::vector<Plan::Piece> pieces;
  for (const Plan::Piece& p : plan.pieces)
    if (p.text->started && make_room(*p.text, p.positions)) pieces.push_back(p);
  plan.pieces = std::move(pieces);
  std::erase_if(plan.batch, [](const Text* t) { return !t->started; });
  std::erase_if(plan.pieces, [](const Plan::Piece& p) { return !p.text->started; });
  // The work of each forward pass (06_kvcache/step_cost.hpp): each piece, then
  // the batch's B rows, each over its cache and its new position.
  for (const Plan::Piece& p : plan.pieces) {
    plan.works.push_back(extend_step(p.positions, p.text->paged.length(), 1, p.draws ? 1 : 0));
    plan.drawing += p.draws;
  }
  if (const std::size_t B = plan.batch.size(); B > 0) {
    StepWork w{B, B, 0, B};
    for (const Text* t : plan.batch) w.keys += t->paged.length() + 1;
    plan.works.push_back(w);
    plan.drawing += B;
  }
  return plan;
}

// Room in `text`'s table for `positions` more: free or cached blocks first,
// then the blocks of the newest text newer than it that holds any.
bool PagedEngine::make_room(Text& text, std::size_t positions) {
  for (std::size_t need = blocks_needed(text.paged, positions, pool_.block_size()); need > 0;) {
    if (const std::optional<BlockId> block = pool_.allocate()) {
      text.paged.table.push_back(*block), --need;
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

// The step: its price, the forward passes, and each writer's draw from its row
// as soon as the row is there. Without the lock: only the loop touches the
// pool, the texts' caches and their writers.
void PagedEngine::step(Plan& plan) {
  try {
    plan.price = clock_.price(plan.works, plan.pieces.size(), plan.drawing);
  } catch (...) {  // e.g. the cost model threw: before anything is computed
    for (Text* t : plan.batch) t->fail();
    for (const Plan::Piece& p : plan.pieces) p.text->fail();
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
    return logits;  // (B, V)
  };
  const auto take = [&](Text& t, const float* row) {  // the writer draws its character
    try {
      t.writer->take(require_finite({row, V}));
    } catch (...) {
      t.fail();
    }
  };
  // The openings' pieces first, each on its own: a new request's first
  // character then goes out without waiting for the batch.
  for (const Plan::Piece& p : plan.pieces) {
    PagedText* const texts[] = {&p.text->paged};
    try {
      const View<2> logits =
          forward(p.text->window.subspan(p.text->paged.length(), p.positions), texts);
      register_full_blocks(p.text->paged, pool_);
      if (p.draws) take(*p.text, logits.data());
    } catch (...) {
      p.text->fail();
    }
  }
  if (plan.batch.empty()) return;
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
    for (Text* t : plan.batch) t->fail();
  }
}

// The step's counts and its place on the cost model's clock.
void PagedEngine::count(const Plan& plan) {
  EngineCounters& c = counters_;
  ++c.steps;
  c.most_blocks_in_use = std::max(c.most_blocks_in_use, pool_.counts().in_use);
  c.compute_seconds += plan.compute_seconds;
  for (const StepWork& w : plan.works) c.computed_positions += w.rows;
  if (!plan.batch.empty()) {
    ++c.batched_steps, c.batched_rows += plan.batch.size();
    c.largest_batch = std::max(c.largest_batch, plan.batch.size());
  }
  clock_.add(plan.price);
  for (std::size_t i = 0; i < plan.pieces.size(); ++i) {  // a text whose opening ended draws
    Text& t = *plan.pieces[i].text;                       // at the end of its piece
    if (plan.pieces[i].draws && !t.failure)
      ++c.answers, clock_.drew(t.steps, plan.price.drawn_at_ms[i]);
  }
  for (Text* t : plan.batch)  // the batch's, at the step's end
    if (!t->failure) ++c.answers, clock_.drew(t->steps, plan.price.ms + plan.price.overhead_ms);
}

// The texts that are done, cancelled or failed give their blocks back and
// leave; their on_end calls, for after the lock. Closed texts go.
std::vector<PagedEngine::Ending> PagedEngine::collect_ended() {
  std::vector<Ending> endings;
  for (auto it = texts_.begin(); it != texts_.end();) {
    Text& t = *it->second;
    if (t.running() && !t.waiting()) {
      const bool cut = t.cancelled && !t.failure && !t.writer->done();
      endings.emplace_back(std::move(t.on_end), TextEnd{cut, t.failure, clock_.times(t.steps)});
      release_all(t.paged, pool_);
      t.started = false, t.writer = nullptr;
    }
    it = t.closed && !t.running() ? texts_.erase(it) : std::next(it);
  }
  pool_counts_ = pool_.counts();
  return endings;
}

}  // namespace tang
