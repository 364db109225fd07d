#include "11_server/poem_service.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "01_probabilities/next_char.hpp"  // lesson 01: most_likely
#include "06_kvcache/kv_cache.hpp"         // lesson 06: CachedPredictor
#include "11_server/cpu_clock.hpp"
#include "11_server/request_writer.hpp"
#include "11_server/tuned_draw.hpp"
#include "errors.hpp"
#include "trace.hpp"  // StepRecord

namespace tang {

namespace {

using Clock = std::chrono::steady_clock;

std::atomic<std::size_t> worked_out{0};         // probabilities_worked_out()
std::atomic<std::int64_t> probabilities_ns{0};  // probabilities_cpu_seconds()
std::atomic<std::size_t> wake_ups{0};           // request_wake_ups()
std::atomic<std::size_t> wakes_taken{0};        // request_wakes_taken()

// A drawn character's probability and the five most likely (lesson 01's
// most_likely), at the request's temperature before top-k and top-p, as
// --trace shows a step (StepRecord::begin): from the logits, or from the
// draw's own logits at the temperature when it kept them (`scaled`: the same
// numbers, one pass less).
void add_probabilities(WrittenCharacter& c, TokenId drawn, std::span<const float> logits,
                       float temperature, bool scaled) {
  const double start = thread_cpu_seconds();
  worked_out.fetch_add(1, std::memory_order_relaxed);
  StepRecord step;
  if (scaled) {
    step.before.assign(logits.begin(), logits.end());
    softmax_in_place(step.before);  // its largest is 0: exp(z - 0) as begin() computes it
  } else {
    step.begin(logits, temperature);
  }
  c.probability = step.before[static_cast<std::size_t>(drawn)];
  c.top = most_likely(step.before, 5);
  probabilities_ns.fetch_add(static_cast<std::int64_t>(1e9 * (thread_cpu_seconds() - start)),
                             std::memory_order_relaxed);
}

// What the engine's thread tells a request's thread: a character of choice
// `choice`, or that choice's end. A drawn character comes with the logits it
// was drawn from, for the request's thread to work out its probabilities.
struct Event {
  std::size_t choice = 0;
  WrittenCharacter character;
  TokenId token = 0;
  std::vector<float> logits;  // (V) or empty: nothing left to work out
  bool scaled = false;        // `logits` are at the temperature already (TunedDraw)
  std::optional<TextEnd> end;
};

// A request's queue: the engine's thread stages each step's characters and
// hands them off together, one wake-up of the request's thread a step at most;
// the request's thread takes everything waiting at once.
class EventQueue {
 public:
  // The engine's thread only: held until hand_off().
  void stage(Event event) { staged_.push_back(std::move(event)); }
  // The engine's thread: what was staged goes to the request's thread, which
  // wakes up only if something did.
  void hand_off() {
    if (staged_.empty()) return;
    {
      const std::lock_guard lock(mutex_);
      for (Event& e : staged_) {
        with_logits_ += !e.logits.empty();
        events_.push_back(std::move(e));
      }
    }
    staged_.clear();
    wake_ups.fetch_add(1, std::memory_order_relaxed);
    ready_.notify_one();
  }
  void push(Event event) {  // at once (a text's end)
    {
      const std::lock_guard lock(mutex_);
      with_logits_ += !event.logits.empty();
      events_.push_back(std::move(event));
    }
    wake_ups.fetch_add(1, std::memory_order_relaxed);
    ready_.notify_one();
  }
  // Everything waiting, oldest first (one at least).
  std::deque<Event> pop_all() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return !events_.empty(); });
    wakes_taken.fetch_add(1, std::memory_order_relaxed);
    std::deque<Event> taken;
    taken.swap(events_);
    with_logits_ = 0;
    return taken;
  }
  // Events waiting that carry their logits (28 KB each for our vocabulary).
  std::size_t with_logits() const {
    const std::lock_guard lock(mutex_);
    return with_logits_;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Event> events_;
  std::size_t with_logits_ = 0;
  std::vector<Event> staged_;  // the engine thread's alone
};

// A request's writer as the engine steps it: each character it writes goes to
// the queue as it appears, those the writer puts there itself (an acrostic's
// heads and punctuation) as they are, a drawn one alone or, when the request
// asks for probabilities, with the logits it was drawn from: they are worked
// out on the request's thread, so that the engine's thread only draws. Only
// while the request's thread keeps up: with kLogitsQueued such events waiting,
// the engine's thread works them out itself: a client that reads slowly holds
// at most that many rows of logits (its other events are a character each).
// Its newline ends the poem and is not sent.
class StreamedWriter : public Writer {
 public:
  static constexpr std::size_t kLogitsQueued = 4;

  // `tuned`: draws with the tuned path's TunedDraw instead of lesson 03's step.
  StreamedWriter(const Tokenizer& tokenizer, const PoemRequest& request, std::size_t choice,
                 EventQueue& queue, bool tuned)
      : tokenizer_(tokenizer),
        heads_(!request.heads.empty()),
        probabilities_(request.probabilities),
        temperature_(request.settings.temperature),
        choice_(choice),
        queue_(queue),
        draw_(tuned ? std::make_shared<TunedDraw>(request.probabilities) : nullptr),
        writer_(RequestWriter::make(tokenizer, request, {}, step(draw_))),
        seen_(writer_->prompt_positions()) {
    forced();  // an acrostic's first head
  }
  std::span<const TokenId> context() const override { return writer_->context(); }
  void take(std::span<const float> logits) override {
    writer_->take(logits);
    const TokenId drawn = writer_->context()[seen_++];  // the first new position
    if (drawn == tokenizer_.newline()) {
      newline_ = true;
    } else {
      Event e{choice_, {tokenizer_.character(drawn), -1, {}}, drawn, {}, false, std::nullopt};
      std::vector<float> scaled = draw_ ? draw_->take_scaled() : std::vector<float>{};
      e.scaled = !scaled.empty();
      const std::span<const float> from = e.scaled ? std::span<const float>(scaled) : logits;
      if (probabilities_ && queue_.with_logits() < kLogitsQueued) {
        e.logits = e.scaled ? std::move(scaled) : std::vector<float>(logits.begin(), logits.end());
      } else if (probabilities_) {
        add_probabilities(e.character, drawn, from, temperature_, e.scaled);
      }
      queue_.stage(std::move(e));
    }
    forced();
  }
  bool done() const override { return writer_->done(); }
  std::string poem() const { return writer_->poem(); }
  // It ended as a poem ends (its newline, an acrostic's last line), not cut short.
  bool ended() const { return newline_ || (heads_ && writer_->done()); }
  float temperature() const { return temperature_; }

 private:
  static SampleStep step(const std::shared_ptr<TunedDraw>& draw) {
    if (!draw) return sample_next;  // lesson 03's
    return [draw](std::span<float> logits, const SamplingSettings& settings, Rng& rng,
                  StepRecord* record, const Constraint& constraint) {
      return (*draw)(logits, settings, rng, record, constraint);
    };
  }
  void forced() {  // staged: they go with the step's hand-off
    const std::span<const TokenId> context = writer_->context();
    for (; seen_ < context.size(); ++seen_) {
      const TokenId id = context[seen_];
      queue_.stage({choice_, {tokenizer_.character(id), -1, {}}, id, {}, false, std::nullopt});
    }
  }
  const Tokenizer& tokenizer_;
  bool heads_, probabilities_, newline_ = false;
  float temperature_;
  std::size_t choice_;
  EventQueue& queue_;
  std::shared_ptr<TunedDraw> draw_;  // the tuned path's draw, or none (lesson 03's)
  std::unique_ptr<RequestWriter> writer_;
  std::size_t seen_;  // positions of the context sent, or the prompt's
};

}  // namespace

std::vector<ServedPoem> serve_poems(
    PagedEngine& engine, std::span<const PoemRequest> requests,
    const std::function<bool(std::size_t, const WrittenCharacter&)>& on_character,
    const std::function<void()>& on_started) {
  const Tokenizer& tokenizer = engine.model().tokenizer();
  const Clock::time_point start = Clock::now();
  const auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  // shared with every text's on_end: the engine's thread may still be inside the last
  // push (its notify) when this thread has taken that event and returns
  const auto queue = std::make_shared<EventQueue>();
  std::vector<std::unique_ptr<StreamedWriter>> writers;  // (n)
  for (std::size_t i = 0; i < requests.size(); ++i)
    writers.push_back(std::make_unique<StreamedWriter>(tokenizer, requests[i], i, *queue,
                                                       engine.options().tuned_draw));
  queue->hand_off();  // an acrostic's first heads, before the engine has the texts
  std::vector<ServedPoem> served(requests.size());
  std::vector<PagedEngine::Start> starts;
  for (std::size_t i = 0; i < requests.size(); ++i)
    starts.push_back({writers[i].get(),
                      [queue, i](const TextEnd& how) {
                        queue->push({i, {}, 0, {}, false, how});
                      },
                      [queue] { queue->hand_off(); }});
  if (!engine.start(std::move(starts)))
    throw EngineBusy("the server is writing as many poems as it takes; try again soon");
  std::size_t running = requests.size();  // started, not ended: their writers and the queue stay
  try {
    if (on_started) on_started();
    while (running > 0) {
      for (Event& e : queue->pop_all()) {
        ServedPoem& s = served[e.choice];
        if (e.end) {
          --running;
          s.seconds = seconds();
          s.predicted = e.end->predicted;
          s.failure = e.end->failure;
          s.stopped = s.stopped || e.end->cancelled || e.end->failure;
        } else if (!s.stopped) {
          if (s.characters == 0) s.first_seconds = seconds();
          ++s.characters;
          if (!e.logits.empty())
            add_probabilities(e.character, e.token, e.logits, writers[e.choice]->temperature(),
                              e.scaled);
          if (!on_character(e.choice, e.character)) {
            s.stopped = true;
            engine.cancel(writers[e.choice].get());
          }
        }
      }
    }
  } catch (...) {  // every started text ends before its writer goes
    for (const auto& writer : writers) engine.cancel(writer.get());
    while (running > 0)
      for (const Event& e : queue->pop_all()) running -= e.end.has_value();
    throw;
  }
  for (std::size_t i = 0; i < served.size(); ++i) {
    served[i].poem = writers[i]->poem();
    served[i].ended = !served[i].failure && writers[i]->ended();
  }
  return served;
}

std::size_t probabilities_worked_out() {
  return worked_out.load(std::memory_order_relaxed);
}

std::size_t request_wake_ups() {
  return wake_ups.load(std::memory_order_relaxed);
}

std::size_t request_wakes_taken() {
  return wakes_taken.load(std::memory_order_relaxed);
}

double probabilities_cpu_seconds() {
  return 1e-9 * static_cast<double>(probabilities_ns.load(std::memory_order_relaxed));
}

ServedPoem serve_poem(PagedEngine& engine, const PoemRequest& request,
                      const std::function<bool(const WrittenCharacter&)>& on_character) {
  if (const std::string problem = request_problem(request, engine.model().tokenizer());
      !problem.empty())
    throw UserError(problem);
  ServedPoem served =
      std::move(serve_poems(engine, {&request, 1}, [&](std::size_t, const WrittenCharacter& c) {
        return on_character(c);
      })[0]);
  if (served.failure) std::rethrow_exception(served.failure);
  return served;
}

std::string write_alone(const GPT& model, const PoemRequest& request, const EngineOptions& path) {
  const std::unique_ptr<const PanelWeights> panels =
      path.panel_product ? std::make_unique<const PanelWeights>(model) : nullptr;
  CachedPredictor<KernelMatrices> predictor(model,
                                            panels ? KernelMatrices(model, *panels, path.gelu)
                                                   : KernelMatrices(model, path.matmul, path.gelu));
  TunedDraw draw(false);
  const std::unique_ptr<RequestWriter> writer =
      path.tuned_draw ? RequestWriter::make(model.tokenizer(), request, {}, std::ref(draw))
                      : RequestWriter::make(model.tokenizer(), request);
  write_with(*writer, predictor);
  return writer->poem();
}

}  // namespace tang
