#include "11_server/request_writer.hpp"

#include <optional>
#include <vector>

#include "03_topk_topp/sampler.hpp"       // lesson 03: sample_next
#include "05_acrostic/acrostic.hpp"       // lesson 05: AcrosticWriter
#include "07_verse/verse_constraint.hpp"  // lesson 07: VerseConstraint
#include "07_verse/verse_form.hpp"

namespace tang {

namespace {

// lesson 03's sampling_picker, with `step` drawing
Picker picker(const SamplingSettings& settings, const SampleStep& step) {
  return [settings, step](std::span<float> logits, std::size_t, Rng& rng, StepRecord* record) {
    return step(logits, settings, rng, record, {});
  };
}

// An opening, continued as lessons 04-06 write a poem (write_poem).
class OpeningWriter : public RequestWriter {
 public:
  OpeningWriter(const Tokenizer& tokenizer, const PoemRequest& r, const StepReport& report,
                const SampleStep& step)
      : tokenizer_(tokenizer),
        opening_(r.opening),
        rng_(r.seed),
        context_(tokenizer.encode("\n" + r.opening)),
        prompt_(context_.size()),
        drawn_(context_, picker(r.settings, step), rng_, r.max_chars, tokenizer.newline(), report) {
  }
  std::span<const TokenId> context() const override { return drawn_.context(); }
  void take(std::span<const float> logits) override { drawn_.take(logits); }
  bool done() const override { return drawn_.done(); }
  OpeningWriter(const OpeningWriter&) = delete;  // its writer points into it
  OpeningWriter& operator=(const OpeningWriter&) = delete;
  std::string poem() const override { return poem_text(tokenizer_, opening_, drawn_.written()); }
  std::size_t prompt_positions() const override { return prompt_; }

 private:
  const Tokenizer& tokenizer_;
  std::string opening_;
  Rng rng_;
  std::vector<TokenId> context_;
  std::size_t prompt_;
  SampledWriter drawn_;  // last: it points at the members above
};

// Lesson 07's regular verse with one poem in flight: before each character,
// the constraint's mask for what was written so far, then the lesson's sampler
// (the mask first). That is write_verse at width 1: the same coins, the same
// poem (tested).
class VerseWriter : public RequestWriter {
 public:
  VerseWriter(const Tokenizer& tokenizer, const PoemRequest& r, const StepReport& report,
              const SampleStep& step)
      : tokenizer_(tokenizer),
        settings_(r.settings),
        rng_(r.seed),
        vocab_(tokenizer, tables()),
        verse_(vocab_, *form_named(r.verse)),  // request_problem checked the name
        context_(tokenizer.encode("\n")) {
    verse_.with_tones(default_pattern(*form_named(r.verse))).without_repeats();  // as lesson 07
    const Picker pick = [this, step](std::span<float> logits, std::size_t, Rng& rng,
                                     StepRecord* record) {
      const LogitMask mask = verse_.allowed_next(std::span(context_).subspan(1));
      return step(logits, settings_, rng, record, [&](std::span<float> z) { mask.apply(z); });
    };
    drawn_.emplace(context_, pick, rng_, verse_.length(), tokenizer.newline(), report);
  }
  VerseWriter(const VerseWriter&) = delete;  // its picker and writer point into it
  VerseWriter& operator=(const VerseWriter&) = delete;
  std::span<const TokenId> context() const override { return drawn_->context(); }
  void take(std::span<const float> logits) override { drawn_->take(logits); }
  bool done() const override { return drawn_->done(); }
  std::string poem() const override { return poem_text(tokenizer_, "", drawn_->written()); }

 private:
  static const VerseTables& tables() {
    static const VerseTables shipped = VerseTables::load_shipped();  // read once, then shared
    return shipped;
  }
  const Tokenizer& tokenizer_;
  SamplingSettings settings_;
  Rng rng_;
  VerseVocabulary vocab_;
  VerseConstraint verse_;
  std::vector<TokenId> context_;
  std::optional<SampledWriter> drawn_;  // its picker reads the members above
};

// Heads, as lesson 05's acrostic.
class HeadsWriter : public RequestWriter {
 public:
  HeadsWriter(const Tokenizer& tokenizer, const PoemRequest& r, const StepReport& report,
              const SampleStep& step)
      : settings_(r.settings),
        rng_(r.seed),
        acrostic_(tokenizer, r.heads, r.line_chars, settings_, rng_, report, step) {}
  std::span<const TokenId> context() const override { return acrostic_.context(); }
  void take(std::span<const float> logits) override { acrostic_.take(logits); }
  bool done() const override { return acrostic_.done(); }
  std::string poem() const override { return acrostic_.poem(); }

 private:
  SamplingSettings settings_;
  Rng rng_;
  AcrosticWriter acrostic_;  // last: it points at the members above
};

}  // namespace

std::unique_ptr<RequestWriter> RequestWriter::make(const Tokenizer& tokenizer,
                                                   const PoemRequest& request,
                                                   const StepReport& report,
                                                   const SampleStep& step) {
  if (!request.verse.empty())
    return std::make_unique<VerseWriter>(tokenizer, request, report, step);
  if (!request.heads.empty())
    return std::make_unique<HeadsWriter>(tokenizer, request, report, step);
  return std::make_unique<OpeningWriter>(tokenizer, request, report, step);
}

}  // namespace tang
