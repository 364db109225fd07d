#include "11_server/poem_service.hpp"

#include <algorithm>
#include <chrono>
#include <numeric>

#include "01_probabilities/next_char.hpp"  // lesson 01: most_likely
#include "06_kvcache/kv_cache.hpp"         // lesson 06: CachedPredictor
#include "11_server/request_writer.hpp"
#include "errors.hpp"
#include "options.hpp"  // can_head_a_line
#include "utf8.hpp"

namespace tang {

namespace {

using Clock = std::chrono::steady_clock;

// Hands every character of the poem to the caller as it appears: the drawn ones
// from the writing loop's report (with their candidates), the forced ones of an
// acrostic when the writer puts them in the context (the next call of
// next_logits, or the end).
class Streamer : public Predictor {
 public:
  Streamer(Predictor& inner, const Tokenizer& tokenizer, std::size_t prompt,
           const std::function<bool(const WrittenCharacter&)>& on_character, PagedEngine& engine,
           PagedEngine::TextId text)
      : inner_(inner),
        tokenizer_(tokenizer),
        prompt_(prompt),
        on_character_(on_character),
        engine_(engine),
        text_(text),
        start_(Clock::now()) {}

  std::span<const float> next_logits(std::span<const TokenId> context) override {
    forced(context);
    return inner_.next_logits(context);
  }
  // The characters of `context` past what was streamed, before the next draw.
  void forced(std::span<const TokenId> context) {
    while (prompt_ + streamed_ < context.size()) emit(context[prompt_ + streamed_], nullptr);
  }
  // A drawn character, with the record of its step.
  void drawn(const StepRecord& record) {
    if (record.chosen == tokenizer_.newline()) {
      result.ended = true;
    } else {
      emit(record.chosen, &record);
    }
  }
  ServedPoem result;

 private:
  void emit(TokenId id, const StepRecord* record) {
    ++streamed_;
    if (result.stopped) return;
    WrittenCharacter c;
    c.character = tokenizer_.character(id);
    if (record != nullptr) {  // the five most likely, at the request's temperature
      const std::vector<float>& p = record->before;
      c.probability = p[static_cast<std::size_t>(id)];
      c.top = most_likely(p, 5);  // lesson 01's
    }
    if (result.characters == 0)
      result.first_seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    ++result.characters;
    if (!on_character_(c)) {
      result.stopped = true;
      engine_.cancel(text_);  // the next call throws Cancelled: the writer stops
    }
  }
  Predictor& inner_;
  const Tokenizer& tokenizer_;
  std::size_t prompt_, streamed_ = 0;
  const std::function<bool(const WrittenCharacter&)>& on_character_;
  PagedEngine& engine_;
  PagedEngine::TextId text_;
  Clock::time_point start_;
};

// Writes `request` through `predictor`, as lessons 04, 05 and 07 do: its
// RequestWriter, driven to its end.
std::string write_request(Predictor& predictor, const Tokenizer& tokenizer,
                          const PoemRequest& request, const StepReport& report) {
  const std::unique_ptr<RequestWriter> writer = RequestWriter::make(tokenizer, request, report);
  write_with(*writer, predictor);
  return writer->poem();
}

}  // namespace

ServedPoem serve_poem(PagedEngine& engine, const PoemRequest& request,
                      const std::function<bool(const WrittenCharacter&)>& on_character) {
  if (const std::string problem = request_problem(request, engine.model().tokenizer());
      !problem.empty())
    throw UserError(problem);
  const std::optional<PagedEngine::TextId> text = engine.open();
  if (!text) throw EngineBusy("the server is writing as many poems as it takes; try again soon");
  struct Closer {
    PagedEngine& engine;
    PagedEngine::TextId text;
    ~Closer() { engine.close(text); }
  } closer{engine, *text};
  return serve_poem(engine, *text, request, on_character);
}

ServedPoem serve_poem(PagedEngine& engine, PagedEngine::TextId id, const PoemRequest& request,
                      const std::function<bool(const WrittenCharacter&)>& on_character) {
  const Tokenizer& tokenizer = engine.model().tokenizer();
  const std::size_t prompt = tokenizer.encode("\n" + request.opening).size();
  EnginePredictor through_engine(engine, id);
  Streamer streamer(through_engine, tokenizer, prompt, on_character, engine, id);
  const StepReport report = [&](std::size_t, const StepRecord& record) { streamer.drawn(record); };
  const Clock::time_point start = Clock::now();
  try {
    streamer.result.poem = write_request(streamer, tokenizer, request, report);
    // an acrostic's last "。" goes into the context after the last call
    const std::vector<TokenId> whole = tokenizer.encode("\n" + streamer.result.poem);
    streamer.forced(whole);
    if (!request.heads.empty()) streamer.result.ended = true;
  } catch (const Cancelled&) {
    streamer.result.stopped = true;
  }
  streamer.result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (const auto predicted = engine.predicted(id)) streamer.result.predicted = *predicted;
  return streamer.result;
}

std::string write_alone(const GPT& model, const PoemRequest& request) {
  CachedPredictor<> predictor(model);
  return write_request(predictor, model.tokenizer(), request, {});
}

}  // namespace tang
