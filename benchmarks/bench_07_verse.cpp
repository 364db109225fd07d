// bench_07_verse: what lesson 07 adds, regular verse under a constraint with beam search.
// Everything runs the lesson path (plain kernels, lesson 03's sample_next): lesson 07 has
// no tuned twin.
//
//   lesson07/step/plain/unconstrained/W    one cached step of lesson 06: the character just
//                                      written through forward_with_cache (one position; the
//                                      cache holds "\n" and the characters before it), then
//                                      sample_next on a copy of the logits (T 0.8, top-k 20)
//   lesson07/step/plain/constrained/W      the same step, plus building the mask of the next
//                                      slot (VerseConstraint::allowed_next for a 七绝 with
//                                      tones and rhyme, a pass over the vocabulary) and
//                                      applying it: constrained / unconstrained is what the
//                                      constraint adds to every character
//       W = mid_line  after 秦时明月汉时关，万里长 (出塞): line 2, position 4 must be 平
//       W = rhyme     after 秦时明月汉时关，万里长征人未: line 2 ends in a 平 of 关's group
//   lesson07/write_verse/plain/form_only/beam:1      a whole 七绝 (33 characters with ⏎) by
//                                      write_verse under lesson 05's fixed form only, beam 1:
//                                      plain masked sampling, the unconstrained baseline
//   lesson07/write_verse/plain/tones_rhyme/beam:B    the same 七绝 under the lesson's
//                                      constraint (tones, rhyme, no repeats, no line copied
//                                      whole from a training poem), B = 1, 4 (the lesson's
//                                      default) and 8 beams: each step runs B forward steps,
//                                      B log-softmaxes, B masks, B x B draws
// The poems are written at T 0.8, top-k 20 (writing_settings), seed 42 every iteration, so
// each iteration writes the same poem. Counters: chars_per_s, step_us, x_floor per character.
#include <vector>

#include "03_topk_topp/sampler.hpp"
#include "06_kvcache/kv_cache.hpp"
#include "07_verse/beam_search.hpp"
#include "07_verse/training_lines.hpp"
#include "07_verse/verse_constraint.hpp"
#include "07_verse/verse_form.hpp"
#include "07_verse/verse_tables.hpp"
#include "bench_common.hpp"

namespace {

using namespace tang;

const SamplingSettings kSettings{0.8f, 20, 1.0f};  // writing_settings() with default flags
constexpr std::uint64_t kSeed = 42;                // the course's default --seed

// The tables and the constraints of a 七绝 (平起, first line rhyming: default_pattern),
// built once: the constraints keep references to the vocabulary.
struct Verse {
  Verse()
      : tables(VerseTables::load_shipped()),
        training(TrainingLines::from_corpus(std::string(TANG_DATA_DIR) + "/tang_poems.txt")),
        vocab(bench::course_model().tokenizer(), tables),
        form(*form_named("七绝")),
        form_only(vocab, form),
        tones_rhyme(vocab, form),
        regular(vocab, form) {
    tones_rhyme.with_tones(default_pattern(form));
    regular.with_tones(default_pattern(form)).without_repeats().without_lines_of(training);
  }
  VerseTables tables;
  TrainingLines training;
  VerseVocabulary vocab;
  VerseForm form;
  VerseConstraint form_only, tones_rhyme, regular;
};

const Verse& verse() {
  static const Verse v;
  return v;
}

// How many characters of 出塞 come before the step: the next one is 征 (mid_line) or 还 (rhyme).
std::size_t written_before(bool at_rhyme) {
  return at_rhyme ? 14 : 11;
}

void BM_step(benchmark::State& state, bool constrained, bool at_rhyme) {
  const GPT& model = bench::course_model();
  const Verse& v = verse();
  const std::vector<TokenId> poem = bench::ids(model, bench::kChuSai);
  const std::span<const TokenId> written = std::span(poem).first(written_before(at_rhyme));
  std::vector<TokenId> context = bench::ids(model, "\n");  // (1 + written) as write_verse keeps it
  context.insert(context.end(), written.begin(), written.end());
  const std::size_t position = context.size() - 1;  // the one the cache has not seen
  KVCache cache(model.config());
  Activations acts(model.config());
  forward_with_cache(model, std::span(context).first(position), 0, cache, acts);
  std::vector<float> work(model.config().vocab_size);
  Rng rng(kSeed);
  bench::StepClock clock(state);
  for (auto _ : state) {
    cache.length = position;  // forget the step before
    const View<2> out =
        forward_with_cache(model, std::span(context).subspan(position, 1), position, cache, acts);
    std::copy(out.data(), out.data() + out.size(), work.begin());
    if (constrained) v.tones_rhyme.allowed_next(written).apply(work);
    benchmark::DoNotOptimize(sample_next(work, kSettings, rng));
  }
  clock.finish(state, 1, "steps_per_s");
}

void BM_write_verse(benchmark::State& state, bool regular) {
  const GPT& model = bench::course_model();
  const VerseConstraint& constraint = regular ? verse().regular : verse().form_only;
  const BeamSettings settings{static_cast<std::size_t>(state.range(0)), kSettings};
  bench::StepClock clock(state);
  for (auto _ : state) {
    Rng rng(kSeed);
    const WrittenVerse poem = write_verse(model, constraint, settings, rng);
    benchmark::DoNotOptimize(poem.tokens.data());
  }
  clock.finish(state, static_cast<double>(constraint.length()), "chars_per_s");
}

void register_lesson() {
  for (bool at_rhyme : {false, true}) {
    for (bool constrained : {false, true}) {
      const std::string name = std::string("lesson07/step/plain/") +
                               (constrained ? "constrained/" : "unconstrained/") +
                               (at_rhyme ? "rhyme" : "mid_line");
      bench::register_row(name, BM_step, constrained, at_rhyme)
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond);
    }
  }
  benchmark::RegisterBenchmark("lesson07/write_verse/plain/form_only", BM_write_verse, false)
      ->ArgName("beam")
      ->Arg(1)
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("lesson07/write_verse/plain/tones_rhyme", BM_write_verse, true)
      ->ArgName("beam")
      ->Arg(1)
      ->Arg(4)
      ->Arg(8)
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
  return tang::bench::bench_main(argc, argv, 1, register_lesson);
}
