// poem_engine_test: lesson 11's engine writing many poems at once. Every
// served poem is the poem lesson 06's cache writes alone, whatever else is in
// flight, with a pool so small that texts are preempted, past the context, and
// with a shared opening; cancelled texts give their blocks back; a full engine
// refuses. A pool in int8 writes the same poems small or large. Uses the shipped model (skipped
// without it).
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "03_topk_topp/sampler.hpp"
#include "05_acrostic/acrostic.hpp"
#include "06_kvcache/kv_cache.hpp"
#include "07_verse/beam_search.hpp"
#include "11_server/load_run.hpp"
#include "11_server/poem_service.hpp"
#include "11_server/request_writer.hpp"
#include "11_server/step_overhead.hpp"
#include "errors.hpp"
#include "fast/fast.hpp"
#include "options.hpp"
#include "shipped_model.hpp"
#include "utf8.hpp"

namespace {

// One opening, 春风, with seed 5, `max_chars` characters at most.
tang::PoemRequest spring_wind(std::size_t max_chars) {
  tang::PoemRequest r;
  r.opening = "春风";
  r.max_chars = max_chars;
  r.seed = 5;
  return r;
}

// Openings, acrostics of 5 and 7 characters a line, regular verse, greedy and sampled settings,
// each with its own seed (more varied than lesson 11's mix, load_run.hpp).
std::vector<tang::PoemRequest> varied_requests(std::size_t n) {
  const char* openings[] = {"", "春风", "明月松间照，", "白日依山尽，黄河入海流。", "山"};
  const char* heads[] = {"春花秋月", "江山如画"};
  std::vector<tang::PoemRequest> requests;
  for (std::size_t i = 0; i < n; ++i) {
    tang::PoemRequest r;
    r.seed = 100 + i;
    if (i % 4 == 3) {
      r.heads = heads[i % 2];
      r.line_chars = i % 8 == 3 ? 5 : 7;
    } else if (i % 10 == 6) {  // lesson 07's regular verse
      r.verse = tang::verse_forms()[(i / 10) % 4].name;
    } else {
      r.opening = openings[i % 5];
    }
    if (i % 5 == 1) r.settings = {0.0f, 0, 1.0f};  // greedy
    if (i % 5 == 2) r.settings = {1.2f, 0, 0.8f};
    r.max_chars = 20 + 7 * (i % 6);
    requests.push_back(r);
  }
  return requests;
}

// Serves every request on its own thread, all at once; returns the poems.
std::vector<tang::ServedPoem> serve_all(tang::PagedEngine& engine,
                                        const std::vector<tang::PoemRequest>& requests) {
  std::vector<tang::ServedPoem> served(requests.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    threads.emplace_back([&, i] {
      served[i] = tang::serve_poem(engine, requests[i], [](const auto&) { return true; });
    });
  }
  for (std::thread& t : threads) t.join();
  return served;
}

void expect_every_block_back(const tang::PagedEngine& engine) {
  // the step thread frees them; a busy machine gets up to 10 s
  for (int i = 0; i < 2000 && engine.stats().pool.in_use > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const tang::EngineStats s = engine.stats();
  EXPECT_EQ(s.pool.in_use, 0u);
  EXPECT_EQ(s.pool.free + s.pool.cached, s.pool.total);
  EXPECT_EQ(s.open_texts, 0u);
}

TEST(PoemEngine, ThirtyTwoAtOnceWriteWhatLessonSixWritesAlone) {
  NEED_SHIPPED_MODEL();
  tang::PagedEngine engine(model, tang::EngineOptions{});
  const std::vector<tang::PoemRequest> requests = varied_requests(32);
  const std::vector<tang::ServedPoem> served = serve_all(engine, requests);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    EXPECT_EQ(served[i].poem, tang::write_alone(model, requests[i])) << "request " << i;
    EXPECT_FALSE(served[i].stopped);
  }
  const tang::EngineStats s = engine.stats();
  EXPECT_GT(s.counters.largest_batch, 8u) << "the texts were written together";
  expect_every_block_back(engine);
}

// A writer that keeps every row of logits it is handed, and the context it
// was for, then draws as its request's writer does.
class KeepingWriter : public tang::Writer {
 public:
  explicit KeepingWriter(std::unique_ptr<tang::RequestWriter> writer)
      : writer_(std::move(writer)) {}
  std::span<const tang::TokenId> context() const override { return writer_->context(); }
  void take(std::span<const float> logits) override {
    contexts.emplace_back(context().begin(), context().end());
    rows.emplace_back(logits.begin(), logits.end());
    writer_->take(logits);
  }
  bool done() const override { return writer_->done(); }
  std::vector<std::vector<tang::TokenId>> contexts;
  std::vector<std::vector<float>> rows;

 private:
  std::unique_ptr<tang::RequestWriter> writer_;
};

// How many of the rows 32 texts written at once were handed differ from the
// rows the single-text writer computes alone, both with the products and GELU
// of `options`.
std::size_t rows_unlike_alone(const tang::GPT& model, const tang::EngineOptions& options) {
  std::vector<std::unique_ptr<KeepingWriter>> writers;
  for (const tang::PoemRequest& r : varied_requests(32))
    writers.push_back(
        std::make_unique<KeepingWriter>(tang::RequestWriter::make(model.tokenizer(), r)));
  std::atomic<std::size_t> ended = 0;
  {
    tang::PagedEngine engine(model, options);
    std::vector<tang::PagedEngine::Start> starts;
    for (const auto& w : writers) starts.push_back({w.get(), [&](const auto&) { ++ended; }});
    EXPECT_TRUE(engine.start(std::move(starts)));
    for (int i = 0; i < 6000 && ended < writers.size(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_GT(engine.stats().counters.largest_batch, 8u) << "the texts were written together";
  }
  std::size_t unlike = 0;
  const tang::PanelWeights panels(model);
  for (const auto& w : writers) {
    tang::CachedPredictor<tang::KernelMatrices> alone(
        model, options.panel_product ? tang::KernelMatrices(model, panels, options.gelu)
                                     : tang::KernelMatrices(model, options.matmul, options.gelu));
    for (std::size_t i = 0; i < w->rows.size(); ++i) {
      const std::span<const float> row = alone.next_logits(w->contexts[i]);
      unlike += !std::equal(row.begin(), row.end(), w->rows[i].begin());
    }
  }
  return unlike;
}

// Options with every product `matmul`.
tang::EngineOptions with_product(tang::MatmulKernel matmul) {
  tang::EngineOptions options;
  options.matmul = matmul;
  return options;
}

// On the tuned path (poem_server --tuned) every product is panel_matmul, which
// sums a row alike in any batch (as few_rows_matmul does): every row of logits
// a served text takes is the tuned single-text writer's, bit for bit. The
// benchmarks' tuned product (the lesson's loop for one row, sgemm past 32) sums
// a row as its batch has it: the same check finds its rows unlike.
TEST(PoemEngine, OnTheTunedPathEveryRowIsTheTunedWritersAlone) {
  NEED_SHIPPED_MODEL();
  EXPECT_EQ(rows_unlike_alone(model, tang::with_tuned_path({})), 0u);
  EXPECT_EQ(rows_unlike_alone(model, with_product(tang::fast::few_rows_matmul)), 0u);
  EXPECT_EQ(rows_unlike_alone(model, tang::EngineOptions{}), 0u) << "the lesson's own path";
  EXPECT_GT(rows_unlike_alone(model, with_product(tang::fast::matmul_forward)), 0u);
}

// max_batch is how many texts are written at once: the others wait to start,
// openings and acrostics too (they used to compute their openings meanwhile).
TEST(PoemEngine, AtMostMaxBatchTextsAreWrittenAtOnce) {
  NEED_SHIPPED_MODEL();
  const std::vector<tang::PoemRequest> requests = varied_requests(12);
  for (const std::size_t max_batch : {1u, 3u, 64u}) {
    tang::EngineOptions options;
    options.max_batch = max_batch;
    tang::PagedEngine engine(model, options);
    const std::vector<tang::ServedPoem> served = serve_all(engine, requests);
    for (std::size_t i = 0; i < requests.size(); ++i)
      EXPECT_EQ(served[i].poem, tang::write_alone(model, requests[i])) << "request " << i;
    const tang::EngineCounters c = engine.stats().counters;
    EXPECT_LE(c.most_texts_written, max_batch);
    EXPECT_LE(c.largest_batch, max_batch);
    if (max_batch == 64) {
      EXPECT_GT(c.most_texts_written, 1u) << "the counter counts";
    }
  }
}

// A request with a form and nothing else is lesson 07's regular verse, as its
// beam search writes it at width 1 (one poem, one draw a character).
TEST(PoemEngine, RegularVerseIsWhatLessonSevenWritesAtWidthOne) {
  NEED_SHIPPED_MODEL();
  tang::PagedEngine engine(model, tang::EngineOptions{});
  const tang::VerseTables tables = tang::VerseTables::load_shipped();
  const tang::VerseVocabulary vocab(model.tokenizer(), tables);
  std::vector<tang::PoemRequest> requests;
  for (const tang::VerseForm& form : tang::verse_forms()) {
    for (std::uint64_t seed : {3u, 42u}) {
      tang::PoemRequest r;
      r.verse = form.name;
      r.seed = seed;
      if (seed == 3) r.settings = {1.0f, 0, 0.9f};
      requests.push_back(r);
    }
  }
  const std::vector<tang::ServedPoem> served = serve_all(engine, requests);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const tang::VerseForm form = *tang::form_named(requests[i].verse);
    tang::VerseConstraint constraint(vocab, form);
    constraint.with_tones(tang::default_pattern(form)).without_repeats();
    tang::Rng rng(requests[i].seed);
    const tang::WrittenVerse lesson07 =
        tang::write_verse(model, constraint, tang::BeamSettings{1, requests[i].settings}, rng);
    EXPECT_EQ(served[i].poem + "\n", model.tokenizer().decode(lesson07.tokens)) << form.name;
    EXPECT_TRUE(served[i].ended) << form.name;
    EXPECT_EQ(served[i].characters, lesson07.tokens.size() - 1) << "every character streamed";
  }
}

// A request's writer writes what its lesson writes alone: an opening as
// write_poem with lesson 03's sampler, heads as lesson 05's write_acrostic.
TEST(RequestWriter, AnOpeningAndHeadsAreTheLessonsPoems) {
  NEED_SHIPPED_MODEL();
  for (std::uint64_t seed : {1u, 7u, 42u}) {
    tang::PoemRequest opening;
    opening.opening = "春风";
    opening.seed = seed;
    opening.settings = {1.1f, 0, 0.9f};
    tang::PoemRequest heads;
    heads.heads = "江山如画";
    heads.line_chars = 5;
    heads.seed = seed;
    for (const tang::PoemRequest& r : {opening, heads}) {
      const auto writer = tang::RequestWriter::make(model.tokenizer(), r);
      tang::CachedPredictor<> through_writer(model), alone(model);
      tang::write_with(*writer, through_writer);
      tang::Rng rng(seed);
      const std::string lesson =
          r.heads.empty() ? tang::write_poem(alone, model.tokenizer(), r.opening,
                                             tang::sampling_picker(r.settings), rng, r.max_chars)
                          : tang::write_acrostic(alone, model.tokenizer(), r.heads, r.line_chars,
                                                 r.settings, rng);
      EXPECT_EQ(writer->poem(), lesson) << "seed " << seed << (r.heads.empty() ? "" : ", heads");
    }
  }
}

TEST(PoemEngine, ASmallPoolPreemptsAndStillWritesTheSamePoems) {
  NEED_SHIPPED_MODEL();
  tang::EngineOptions options;
  options.blocks = 10;  // one whole context (8 blocks of 16) and two more
  options.prefill_chunk = 8;
  tang::PagedEngine engine(model, options);
  const std::vector<tang::PoemRequest> requests = varied_requests(12);
  const std::vector<tang::ServedPoem> served = serve_all(engine, requests);
  for (std::size_t i = 0; i < requests.size(); ++i)
    EXPECT_EQ(served[i].poem, tang::write_alone(model, requests[i])) << "request " << i;
  EXPECT_GT(engine.stats().counters.preemptions, 0u);
  expect_every_block_back(engine);
}

// An int8 pool reads every position from its codes (paged_forward.cpp), so its
// poems do not depend on the schedule either: a pool so small that texts are
// preempted and computed again, in pieces of 8, writes what a roomy one does.
TEST(PoemEngine, AnInt8PoolWritesTheSamePoemsSmallOrLarge) {
  NEED_SHIPPED_MODEL();
  tang::EngineOptions small, large;
  small.pool_numbers = large.pool_numbers = tang::PoolNumbers::kInt8;
  small.blocks = 10, small.prefill_chunk = 8;
  const std::vector<tang::PoemRequest> requests = varied_requests(12);
  tang::PagedEngine tight(model, small);
  const std::vector<tang::ServedPoem> preempted = serve_all(tight, requests);
  EXPECT_GT(tight.stats().counters.preemptions, 0u);
  tang::PagedEngine roomy(model, large);
  const std::vector<tang::ServedPoem> served = serve_all(roomy, requests);
  for (std::size_t i = 0; i < requests.size(); ++i)
    EXPECT_EQ(preempted[i].poem, served[i].poem) << "request " << i;
  expect_every_block_back(tight);
  expect_every_block_back(roomy);
}

TEST(PoemEngine, PastTheContextTheWindowSlidesAsInLessonSix) {
  NEED_SHIPPED_MODEL();
  tang::PagedEngine engine(model, tang::EngineOptions{});
  tang::PoemRequest r;
  for (int i = 0; i < 5; ++i) r.opening += "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。";
  r.settings = {1.0f, 0, 1.0f};  // 120 characters, then up to 40 more: the window slides
  r.max_chars = 40;
  r.seed = 7;
  std::vector<tang::PoemRequest> requests(3, r);
  requests[1].seed = 8, requests[2].seed = 9;
  const std::vector<tang::ServedPoem> served = serve_all(engine, requests);
  std::size_t longest = 0;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    EXPECT_EQ(served[i].poem, tang::write_alone(model, requests[i])) << "request " << i;
    longest = std::max(longest, tang::utf8_split(served[i].poem).size());
  }
  EXPECT_GT(longest + 1, model.config().block_size) << "one poem went past the context";
}

TEST(PoemEngine, ASharedOpeningIsComputedOnce) {
  NEED_SHIPPED_MODEL();
  tang::PagedEngine engine(model, tang::EngineOptions{});
  tang::PoemRequest r;
  r.opening = "白日依山尽，黄河入海流。欲穷千里";  // with its newline: 17 positions
  r.max_chars = 10;
  const tang::ServedPoem first = tang::serve_poem(engine, r, [](const auto&) { return true; });
  r.seed = 43;
  const tang::ServedPoem second = tang::serve_poem(engine, r, [](const auto&) { return true; });
  EXPECT_EQ(second.poem, tang::write_alone(model, r));
  const tang::EngineCounters c = engine.stats().counters;
  EXPECT_EQ(c.prefix_hits, 1u);
  EXPECT_EQ(c.reused_blocks, 1u);
  EXPECT_EQ(c.reused_positions, 16u) << "one full block of 16; the 17th position is computed";
  EXPECT_EQ(c.prefill_positions, 34u);
  (void)first;
}

// Sixteen requests started together (one start: they join the same step) with
// the same 19 positions ("\n" and 18 characters): the first computes them; the
// others take its full block by its hash and copy the two rows of its
// part-filled block, computing only their last position. (Sixteen client
// threads would make the counts depend on when each thread runs: section 11
// shows that.)
TEST(PoemEngine, SixteenAtOnceShareTheirOpening) {
  NEED_SHIPPED_MODEL();
  tang::EngineOptions options;
  tang::PagedEngine engine(model, options);
  std::vector<tang::PoemRequest> requests(16);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    requests[i].opening = "白日依山尽，黄河入海流。欲穷千里目，";
    requests[i].seed = 500 + i;
    requests[i].max_chars = 12;
  }
  const std::vector<tang::ServedPoem> served =
      tang::serve_poems(engine, requests, [](std::size_t, const auto&) { return true; });
  for (std::size_t i = 0; i < requests.size(); ++i)
    EXPECT_EQ(served[i].poem, tang::write_alone(model, requests[i])) << "request " << i;
  const tang::EngineCounters c = engine.stats().counters;
  EXPECT_EQ(c.prefill_positions, 16u * 19u);
  EXPECT_EQ(c.prefix_hits, 15u);
  EXPECT_EQ(c.copied_blocks, 15u);
  EXPECT_GE(c.reused_positions * 10, c.prefill_positions * 8) << "at least 80% reused";
  const std::size_t computed = c.computed_positions;  // openings included
  std::size_t written = 0;
  for (const tang::ServedPoem& s : served) written += s.characters;
  EXPECT_LE(computed, 19u + 15u + written) << "each opening's last position and each character";
  expect_every_block_back(engine);
}

// A client that reads slowly gets the same characters and probabilities: while
// it lags, the engine works them out itself instead of queueing the logits.
TEST(PoemEngine, ASlowReaderGetsTheSameCharactersAndProbabilities) {
  NEED_SHIPPED_MODEL();
  tang::PagedEngine engine(model, tang::EngineOptions{});
  tang::PoemRequest r = spring_wind(30);
  r.probabilities = true;
  const auto serve = [&](bool slow) {
    std::vector<tang::WrittenCharacter> seen;
    const tang::ServedPoem served = tang::serve_poem(engine, r, [&](const auto& c) {
      if (slow && seen.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(200));
      seen.push_back(c);
      return true;
    });
    EXPECT_EQ(served.poem, tang::write_alone(model, r));
    return seen;
  };
  const std::vector<tang::WrittenCharacter> fast = serve(false), slow = serve(true);
  ASSERT_EQ(fast.size(), slow.size());
  ASSERT_GT(fast.size(), 10u);
  for (std::size_t i = 0; i < fast.size(); ++i) {
    EXPECT_EQ(fast[i].character, slow[i].character) << i;
    EXPECT_EQ(fast[i].probability, slow[i].probability) << i;
    ASSERT_EQ(fast[i].top.size(), slow[i].top.size()) << i;
    for (std::size_t k = 0; k < fast[i].top.size(); ++k) {
      EXPECT_EQ(fast[i].top[k].id, slow[i].top[k].id) << i;
      EXPECT_EQ(fast[i].top[k].probability, slow[i].top[k].probability) << i;
    }
  }
}

// A character's probability and top five cost a softmax over the vocabulary:
// a request that does not ask for them (no logprobs) gets none worked out.
TEST(PoemEngine, ARequestWithoutLogprobsComputesNoProbabilities) {
  NEED_SHIPPED_MODEL();
  tang::PagedEngine engine(model, tang::EngineOptions{});
  tang::PoemRequest r = spring_wind(20);
  const std::size_t before = tang::probabilities_worked_out();
  const tang::ServedPoem plain = tang::serve_poem(engine, r, [](const auto&) { return true; });
  EXPECT_EQ(tang::probabilities_worked_out(), before) << "none asked, none worked out";
  EXPECT_GT(plain.characters, 5u);

  r.probabilities = true;  // as a request with logprobs asks: one row a character
  std::size_t with = 0;
  const tang::ServedPoem asked = tang::serve_poem(engine, r, [&](const tang::WrittenCharacter& c) {
    with += c.probability > 0 && c.top.size() == 5;
    return true;
  });
  EXPECT_EQ(asked.poem, plain.poem) << "asking changes no character";
  EXPECT_EQ(with, asked.characters);
  EXPECT_EQ(tang::probabilities_worked_out(), before + asked.characters);
}

// The probabilities a request gets are --trace's (StepRecord::begin, lesson
// 01's most_likely) for the same step of the poem written alone, bit for bit:
// an opening and an acrostic (its forced characters have none), drawn by lesson
// 03's step or by the tuned draw (which hands on its logits at the temperature).
TEST(PoemEngine, AskedProbabilitiesAreTheTracesOfThePoemWrittenAlone) {
  NEED_SHIPPED_MODEL();
  for (const bool tuned_draw : {false, true}) {
    tang::EngineOptions options;
    options.tuned_draw = tuned_draw;
    tang::PagedEngine engine(model, options);
    for (const bool acrostic : {false, true}) {
      tang::PoemRequest r;
      (acrostic ? r.heads : r.opening) = acrostic ? "春花秋月" : "床前明月光";
      r.max_chars = 20;
      r.seed = 7;
      r.probabilities = true;
      std::vector<tang::StepRecord> steps;  // of the poem written alone, each drawn character's
      tang::CachedPredictor<tang::KernelMatrices> predictor(
          model, tang::KernelMatrices(model, tang::ops::matmul_forward));
      const auto alone = tang::RequestWriter::make(
          model.tokenizer(), r,
          [&](std::size_t, const tang::StepRecord& s) { steps.push_back(s); });
      tang::write_with(*alone, predictor);
      std::size_t drawn = 0;
      tang::serve_poem(engine, r, [&](const tang::WrittenCharacter& c) {
        if (c.probability < 0) return true;  // an acrostic's head or punctuation
        EXPECT_LT(drawn, steps.size());
        if (drawn >= steps.size()) return false;
        const tang::StepRecord& s = steps[drawn++];
        EXPECT_EQ(c.probability, s.before[static_cast<std::size_t>(s.chosen)]) << drawn;
        const std::vector<tang::Candidate> top = tang::most_likely(s.before, 5);
        EXPECT_EQ(c.top.size(), top.size());
        for (std::size_t k = 0; k < top.size() && k < c.top.size(); ++k) {
          EXPECT_EQ(c.top[k].id, top[k].id) << drawn;
          EXPECT_EQ(c.top[k].probability, top[k].probability) << drawn;
        }
        return true;
      });
      EXPECT_GT(drawn, 5u) << acrostic;
    }
  }
}

// The tuned draw (tuned_draw.hpp) draws lesson 03's characters: openings,
// greedy and top-p settings, acrostics and regular verse all come out as lesson
// 06 writes them alone.
TEST(PoemEngine, TheTunedDrawWritesTheLessonsPoems) {
  NEED_SHIPPED_MODEL();
  tang::EngineOptions options;
  options.tuned_draw = true;
  tang::PagedEngine engine(model, options);
  const std::vector<tang::PoemRequest> requests = varied_requests(32);
  const std::vector<tang::ServedPoem> served = serve_all(engine, requests);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const std::string alone = tang::write_alone(model, requests[i]);
    EXPECT_EQ(served[i].poem, alone) << "request " << i;
    tang::EngineOptions alone_drawn_tuned;
    alone_drawn_tuned.tuned_draw = true;
    EXPECT_EQ(tang::write_alone(model, requests[i], alone_drawn_tuned), alone) << "request " << i;
  }
}

// The engine hands a request what its choices wrote once a step: one wake-up
// of the request's thread a step, not one a character (an acrostic stages its
// heads and punctuation with the step's drawn characters), two when its
// choices are split between the openings' pieces and the batch.
TEST(PoemEngine, ARequestIsWokenOnceAStep) {
  NEED_SHIPPED_MODEL();
  tang::PagedEngine engine(model, tang::EngineOptions{});
  for (const std::size_t n : {1, 3}) {
    std::vector<tang::PoemRequest> choices(n);  // as a request with n choices
    for (std::size_t i = 0; i < choices.size(); ++i) {
      choices[i].heads = "春花秋月";
      choices[i].seed = 40 + i;
    }
    const std::size_t steps_before = engine.stats().counters.steps;
    const std::size_t woken_before = tang::request_wake_ups();
    std::size_t characters = 0;
    tang::serve_poems(engine, choices, [&](std::size_t, const tang::WrittenCharacter&) {
      ++characters;
      return true;
    });
    const std::size_t steps = engine.stats().counters.steps - steps_before;
    const std::size_t woken = tang::request_wake_ups() - woken_before;
    EXPECT_EQ(characters, n * 4 * 8) << "four lines of seven and their punctuation";
    // the heads before the first step, each step, each choice's end
    EXPECT_LE(woken, 1 + (n == 1 ? 1 : 2) * steps + n)
        << n << " choices: " << characters << " characters in " << steps << " steps";
  }
}

TEST(PoemEngine, AStoppedStreamGivesItsBlocksBackAndTheOthersGoOn) {
  NEED_SHIPPED_MODEL();
  tang::PagedEngine engine(model, tang::EngineOptions{});
  std::vector<tang::PoemRequest> requests = varied_requests(8);
  std::vector<tang::ServedPoem> served(requests.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    threads.emplace_back([&, i] {
      std::size_t seen = 0;  // the even ones go away after 3 characters
      served[i] = tang::serve_poem(engine, requests[i],
                                   [&](const auto&) { return i % 2 == 1 || ++seen < 3; });
    });
  }
  for (std::thread& t : threads) t.join();
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (i % 2 == 1) {
      EXPECT_FALSE(served[i].stopped);
      EXPECT_EQ(served[i].poem, tang::write_alone(model, requests[i])) << "request " << i;
    } else {
      EXPECT_TRUE(served[i].stopped) << "request " << i;
      EXPECT_EQ(served[i].characters, 3u);
    }
  }
  expect_every_block_back(engine);
}

// A writer that holds the engine's thread at its first draw until let go (10 s
// at most), then writes one character: its text runs as long as the test wants.
class HeldWriter : public tang::Writer {
 public:
  explicit HeldWriter(std::shared_future<void> go) : go_(std::move(go)) {}
  std::span<const tang::TokenId> context() const override { return context_; }
  void take(std::span<const float>) override {
    go_.wait_for(std::chrono::seconds(10));
    context_.push_back(0);
  }
  bool done() const override { return context_.size() > 1; }

 private:
  std::shared_future<void> go_;
  std::vector<tang::TokenId> context_ = {0};
};

TEST(PoemEngine, AFullEngineRefusesAndAStoppedOneTakesNothing) {
  NEED_SHIPPED_MODEL();
  std::promise<void> go;
  const std::shared_future<void> held = go.get_future().share();
  HeldWriter a(held), b(held), c(held);
  std::atomic<int> ended = 0;
  tang::EngineOptions options;
  options.max_texts = 2;
  tang::PagedEngine engine(model, options);  // last: it ends its texts before their writers go
  const auto wait_for = [&](int n) {
    for (int i = 0; i < 2000 && ended < n; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return ended.load();
  };
  const auto start = [&](std::vector<tang::Writer*> writers) {
    std::vector<tang::PagedEngine::Start> starts;
    for (tang::Writer* w : writers) starts.push_back({w, [&](const tang::TextEnd&) { ++ended; }});
    return engine.start(std::move(starts));
  };
  ASSERT_FALSE(start({&a, &b, &c})) << "three at once are more than two";
  ASSERT_TRUE(start({&a, &b}));
  ASSERT_FALSE(start({&c})) << "two texts are running";
  tang::PoemRequest r;
  EXPECT_THROW(tang::serve_poem(engine, r, [](const auto&) { return true; }), tang::EngineBusy);
  EXPECT_EQ(engine.stats().open_texts, 2u);
  go.set_value();
  ASSERT_EQ(wait_for(2), 2);
  EXPECT_TRUE(start({&c})) << "both ended: their places are free";
  engine.stop_taking();
  EXPECT_FALSE(start({&a}));
  EXPECT_EQ(engine.stats().counters.texts_refused, 6u);
  EXPECT_EQ(wait_for(3), 3) << "c ends before its writer goes";
}

// A served step is predicted as its forward passes plus the overhead for the
// texts it answers: with a free forward and 1 ms a text, the prediction is the
// texts answered, in ms.
TEST(PoemEngine, EachStepIsPredictedAsItsForwardPlusItsOverhead) {
  NEED_SHIPPED_MODEL();
  tang::EngineOptions options;
  options.predict_ms = [](const tang::StepWork&) { return 0.0; };
  options.step_overhead_ms = [](std::size_t texts) { return double(texts); };
  tang::PagedEngine engine(model, options);
  serve_all(engine, varied_requests(8));
  const tang::EngineStats stats = engine.stats();
  const tang::EngineCounters& c = stats.counters;
  EXPECT_GT(c.answers, c.steps) << "some steps answered several texts";
  EXPECT_NEAR(stats.predicted_seconds, double(c.answers) / 1000, 1e-9);
  EXPECT_NEAR(stats.predicted_overhead_seconds, double(c.answers) / 1000, 1e-9);
}

// A text whose opening ends in a step draws as soon as its piece is done: the
// cost model's first character for it counts the pieces before it and its own,
// with its share of the step's overhead, not the rest of the step.
TEST(PoemEngine, AnOpeningsFirstCharacterIsPredictedAtItsPiece) {
  NEED_SHIPPED_MODEL();
  tang::EngineOptions options;
  options.predict_ms = [](const tang::StepWork&) { return 1.0; };              // each forward pass
  options.step_overhead_ms = [](std::size_t texts) { return double(texts); };  // each draw
  tang::PagedEngine engine(model, options);
  std::vector<tang::PoemRequest> requests(2);
  requests[0].opening = "春风";
  requests[1].opening = "明月";  // no block in common: both computed, one piece each
  for (tang::PoemRequest& r : requests) r.max_chars = 3;
  const std::vector<tang::ServedPoem> served =
      tang::serve_poems(engine, requests, [](std::size_t, const auto&) { return true; });
  // one step: the two pieces, each drawing (2 ms of overhead, 1 each); then two
  // batched steps of both (1 ms and 2 ms of overhead each)
  EXPECT_NEAR(served[0].predicted.first_seconds, 0.002, 1e-12) << "its piece and its draw";
  EXPECT_NEAR(served[1].predicted.first_seconds, 0.004, 1e-12) << "both pieces and both draws";
  EXPECT_NEAR(served[0].predicted.seconds, 0.004 + 2 * 0.003, 1e-12) << "the whole steps";
}

// A step that throws (here the cost model's function, once) fails the texts it
// was for, with that exception, and the engine goes on serving the others.
TEST(PoemEngine, AFailingStepFailsItsTextsAndTheEngineGoesOn) {
  NEED_SHIPPED_MODEL();
  tang::EngineOptions options;
  std::atomic<int> calls = 0;
  options.predict_ms = [](const tang::StepWork&) { return 0.0; };
  options.step_overhead_ms = [&](std::size_t) {
    if (++calls == 5) throw std::domain_error("the fifth step failed");
    return 0.0;
  };
  tang::PagedEngine engine(model, options);
  const std::vector<tang::PoemRequest> requests = varied_requests(6);
  std::vector<std::string> outcome(requests.size());
  for (const std::size_t first : {0, 3}) {  // three at once, then three more
    std::vector<std::thread> threads;
    for (std::size_t i = first; i < first + 3; ++i) {
      threads.emplace_back([&, i] {
        try {
          outcome[i] = tang::serve_poem(engine, requests[i], [](const auto&) { return true; }).poem;
        } catch (const std::domain_error& e) {
          outcome[i] = std::string("failed: ") + e.what();
        }
      });
    }
    for (std::thread& t : threads) t.join();
  }
  std::size_t failed = 0;  // the texts of the fifth step (all three, unless one was late)
  for (std::size_t i = 0; i < 3; ++i) {
    if (outcome[i] == "failed: the fifth step failed") {
      ++failed;
    } else {
      EXPECT_EQ(outcome[i], tang::write_alone(model, requests[i])) << "request " << i;
    }
  }
  EXPECT_GE(failed, 1u);
  for (std::size_t i = 3; i < 6; ++i)
    EXPECT_EQ(outcome[i], tang::write_alone(model, requests[i])) << "request " << i << ", after";
  expect_every_block_back(engine);
}

TEST(StepOverhead, IsLinearBetweenItsPointsAndFlatBeyond) {
  const tang::StepOverhead o{{{1, 0.1}, {4, 0.25}, {16, 0.85}}};
  EXPECT_DOUBLE_EQ(o.ms(1), 0.1);
  EXPECT_DOUBLE_EQ(o.ms(0.5), 0.1);
  EXPECT_DOUBLE_EQ(o.ms(2.5), 0.175);
  EXPECT_DOUBLE_EQ(o.ms(10), 0.55);
  EXPECT_DOUBLE_EQ(o.ms(64), 0.85);
  EXPECT_EQ(tang::StepOverhead{}.ms(3), 0.0);
}

// The overhead of a step: the run's time less its forward passes, over its
// steps, at the run's mean texts a step; measured on a one-layer model of our vocabulary.
TEST(StepOverhead, IsTheRunsTimeLessItsForwardPassesOverItsSteps) {
  NEED_SHIPPED_MODEL();
  std::vector<std::size_t> asked;
  const tang::StepOverhead o =
      tang::measure_step_overhead(model, [&](const tang::GPT& tiny, std::size_t clients) {
        EXPECT_EQ(tiny.config().n_layer, 1u);
        EXPECT_EQ(tiny.config().vocab_size, model.config().vocab_size);
        asked.push_back(clients);
        tang::OverheadRun run;
        run.seconds = 0.5 + 0.01 * double(clients);
        run.counters.compute_seconds = 0.25;
        run.counters.steps = 100;
        run.counters.answers = 100 * clients;
        return run;
      });
  EXPECT_EQ(asked.size(), std::size(tang::kOverheadClients) + 1) << "one warm-up run first";
  ASSERT_EQ(o.ms_at.size(), std::size(tang::kOverheadClients));
  for (std::size_t i = 0; i < o.ms_at.size(); ++i) {
    const double clients = double(tang::kOverheadClients[i]);
    EXPECT_DOUBLE_EQ(o.ms_at[i].first, clients);
    EXPECT_NEAR(o.ms_at[i].second, 1000 * (0.25 + 0.01 * clients) / 100, 1e-9);
  }
}

TEST(PoemEngine, BadRequestsAreNamedBeforeAnyWork) {
  NEED_SHIPPED_MODEL();
  tang::PoemRequest r;
  r.opening = "abc";
  EXPECT_NE(tang::request_problem(r, model.tokenizer()).find("prompt: the character 'a'"),
            std::string::npos);
  r.opening = "春\n风";
  EXPECT_NE(tang::request_problem(r, model.tokenizer()).find("newline"), std::string::npos);
  r.opening = "春";
  r.heads = "春花秋月";
  EXPECT_NE(tang::request_problem(r, model.tokenizer()).find("not both"), std::string::npos);
  r.opening = "";
  r.heads = "春花秋";
  EXPECT_NE(tang::request_problem(r, model.tokenizer()).find("4 or 8"), std::string::npos);
  r.heads = "春花，月";
  EXPECT_NE(tang::request_problem(r, model.tokenizer()).find("'，' cannot start a line"),
            std::string::npos);
  r.heads = "春花秋月";
  r.line_chars = 6;
  EXPECT_NE(tang::request_problem(r, model.tokenizer()).find("5 or 7"), std::string::npos);
  r.line_chars = 5;
  EXPECT_EQ(tang::request_problem(r, model.tokenizer()), "");
  r.verse = "五绝";
  EXPECT_NE(tang::request_problem(r, model.tokenizer()).find("form: regular verse"),
            std::string::npos);
  r.heads = "";
  EXPECT_EQ(tang::request_problem(r, model.tokenizer()), "");
  r.verse = "六绝";
  EXPECT_NE(tang::request_problem(r, model.tokenizer()).find("form: lesson 07's regular verse"),
            std::string::npos);
}

// Starting several texts at once is all or none: one without its writer, and
// none starts.
TEST(PoemEngine, StartingSeveralIsAllOrNone) {
  NEED_SHIPPED_MODEL();
  tang::PagedEngine engine(model, tang::EngineOptions{});
  tang::PoemRequest r;
  r.opening = "春风";
  r.max_chars = 4;
  const std::unique_ptr<tang::RequestWriter> a = tang::RequestWriter::make(model.tokenizer(), r);
  int ended = 0;
  std::vector<tang::PagedEngine::Start> one_missing;
  one_missing.push_back({a.get(), [&](const tang::TextEnd&) { ++ended; }});
  one_missing.push_back({nullptr, [&](const tang::TextEnd&) { ++ended; }});
  EXPECT_THROW(engine.start(std::move(one_missing)), std::invalid_argument);
  EXPECT_EQ(engine.stats().open_texts, 0u) << "nothing started";
  std::promise<void> done;
  std::vector<tang::PagedEngine::Start> once;
  once.push_back({a.get(), [&](const tang::TextEnd&) { done.set_value(); }});
  ASSERT_TRUE(engine.start(std::move(once)));
  done.get_future().wait();
  EXPECT_EQ(ended, 0);
  EXPECT_EQ(a->poem(), tang::write_alone(model, r));
}

}  // namespace
