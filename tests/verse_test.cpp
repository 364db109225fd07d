// verse_test: lesson 07's rules, checker, constraint and beam search
// (lessons/07_verse/).
//
// The patterns of the four forms against the textbook ones; check_verse on
// famous poems that keep or break the rules, naming the rule; the constraint
// against exercise 05's mask (lesson 05's fixed form is one of its instances),
// with heads, tones, rhyme and no repeats; and, on the shipped model (skipped
// when it is missing), poems written under the constraint: every one passes
// check_verse, and beam width 1 with the form only writes lesson 05's poem.

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "05_acrostic/exercise/qiyan_jueju.hpp"
#include "05_acrostic/fixed_form.hpp"
#include "07_verse/beam_search.hpp"
#include "07_verse/check_verse.hpp"
#include "07_verse/verse_constraint.hpp"
#include "checkpoint.hpp"
#include "errors.hpp"
#include "generate.hpp"
#include "shipped_model.hpp"
#include "utf8.hpp"

namespace {

using namespace tang;

const VerseTables& tables() {
  static const VerseTables t = VerseTables::load_shipped();
  return t;
}

std::string rows(const VersePattern& p) {
  std::string out;
  for (const auto& line : p.lines) {
    for (Tone t : line) out += pattern_tone_name(t);
    out += "/";
  }
  return out;
}

TEST(VersePattern, FiveCharacterZeStartIsTheTextbookOne) {
  // 仄仄平平仄 平平仄仄平 平平平仄仄 仄仄仄平平, with positions 1 and 3 free
  EXPECT_EQ(rows(verse_pattern(*form_named("五绝"), Tone::kZe, false)),
            "中仄中平仄/中平中仄平/中平中仄仄/中仄中平平/");
}

TEST(VersePattern, SevenCharacterPingStartRhymingFirstLine) {
  EXPECT_EQ(rows(verse_pattern(*form_named("七绝"), Tone::kPing, true)),
            "中平中仄中平平/中仄中平中仄平/中仄中平中仄仄/中平中仄中平平/");
}

TEST(VersePattern, EightLinesRepeatTheCoupletsWithNian) {
  const VersePattern p = verse_pattern(*form_named("七律"), Tone::kPing, true);
  ASSERT_EQ(p.lines.size(), 8u);
  EXPECT_EQ(p.rhymes, (std::vector<bool>{true, true, false, true, false, true, false, true}));
  for (std::size_t line = 2; line < 8; line += 2) {  // 粘: line 2k+1 takes line 2k's second tone
    EXPECT_EQ(p.lines[line][1], p.lines[line - 1][1]) << "line " << line + 1;
  }
}

TEST(VerseTables, KnownCharacters) {
  EXPECT_EQ(tables().tone("白"), Tone::kZe);  // 入声: level in Mandarin, oblique in Tang verse
  EXPECT_EQ(tables().tone("国"), Tone::kZe);
  EXPECT_EQ(tables().tone("山"), Tone::kPing);
  EXPECT_EQ(tables().tone("看"), Tone::kEither);
  EXPECT_FALSE(tables().tone("，"));
  EXPECT_EQ(tables().rhyme_group("关"), tables().rhyme_group("山"));  // 删
  EXPECT_NE(tables().rhyme_group("山"), tables().rhyme_group("东"));
}

TEST(VerseTables, ABrokenFileIsOneClearError) {
  const auto dir = std::filesystem::temp_directory_path() / "tang_verse_tables_test";
  std::filesystem::create_directories(dir);
  const auto bad = dir / "tones.tsv";
  {
    std::FILE* f = std::fopen(bad.c_str(), "w");
    std::fputs("character\tclass\tsource\n山\t高\tstrains\n", f);
    std::fclose(f);
  }
  try {
    VerseTables::load(bad.string(), std::string(TANG_DATA_DIR) + "/rhymes.tsv");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("expected 平, 仄 or 两"), std::string::npos) << e.what();
  }
  EXPECT_THROW(VerseTables::load((dir / "missing.tsv").string(), bad.string()), UserError);
}

TEST(VerseTables, ARowOfTwoCharactersOrARepeatedOneNamesItsLine) {
  // a duplicate or a multi-character row loaded silently (the last one won)
  const auto dir = std::filesystem::temp_directory_path() / "tang_verse_tables_rows";
  std::filesystem::create_directories(dir);
  const std::string rhymes = std::string(TANG_DATA_DIR) + "/rhymes.tsv";
  const std::pair<std::string, std::string> cases[] = {
      {"character\tclass\n山\t平\n山\t仄\n", "line 3: '山' is listed again (first on line 2)"},
      {"character\tclass\n山水\t平\n", "line 2: '山水' is 2 characters"},
      {"character\tclass\n\t平\n", "line 2: '' is 0 characters"},
  };
  for (const auto& [text, needle] : cases) {
    const auto path = dir / "tones.tsv";
    std::FILE* f = std::fopen(path.c_str(), "w");
    std::fputs(text.c_str(), f);
    std::fclose(f);
    try {
      VerseTables::load(path.string(), rhymes);
      ADD_FAILURE() << "no error for " << text;
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  }
  const auto path = dir / "rhymes.tsv";
  std::FILE* f = std::fopen(path.c_str(), "w");
  std::fputs("group\tcharacter\tcount\n1\t东\t9\n1\t东\t9\n", f);
  std::fclose(f);
  try {
    VerseTables::load(std::string(TANG_DATA_DIR) + "/tones.tsv", path.string());
    ADD_FAILURE() << "a repeated rhyme row loaded";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("line 3: '东' is listed again"), std::string::npos)
        << e.what();
  }
}

TEST(VerseConstraint, FlagsThatLeaveNoPoemAreFoundBeforeWriting) {
  // --rhyme 江 --heads 江窗双缸 (group 22 then) ran out of rhymes after 2.9 KB of output
  NEED_SHIPPED_MODEL();
  const VerseVocabulary vocab(model.tokenizer(), tables());
  const VerseForm form = *form_named("七绝");
  std::vector<TokenId> heads;
  for (const std::string& h : utf8_split("江窗双缸")) heads.push_back(*model.tokenizer().find(h));
  const int jiang = *tables().rhyme_group("江");
  VerseConstraint fixed(vocab, form);
  fixed.with_heads(heads)
      .with_tones(default_pattern(form))
      .without_repeats()
      .with_rhyme_group(jiang);
  EXPECT_NE(fixed.why_impossible().find("rhyme group " + std::to_string(jiang)), std::string::npos)
      << fixed.why_impossible();
  // With the group left open, the first rhyme may not pick one too small for the rest:
  // at the end of line 1, no character of group 江 (too few besides the heads) is offered.
  VerseConstraint open(vocab, form);
  open.with_heads(heads).with_tones(default_pattern(form)).without_repeats();
  EXPECT_EQ(open.why_impossible(), "");
  std::vector<TokenId> written;
  while (!open.slot(written.size()).rhyme) {  // line 1 up to its rhyme: the first allowed each
    const LogitMask mask = open.allowed_next(written);
    TokenId id = 0;
    while (!mask.allows(id)) ++id;
    written.push_back(id);
  }
  const LogitMask first_rhyme = open.allowed_next(written);
  std::size_t offered = 0;
  for (std::size_t id = 0; id < model.tokenizer().size(); ++id) {
    if (!first_rhyme.allows(static_cast<TokenId>(id))) continue;
    ++offered;
    EXPECT_NE(vocab.rhyme_group[id], jiang)
        << model.tokenizer().character(static_cast<TokenId>(id));
  }
  EXPECT_GT(offered, 100u) << "the other groups are still open";
  Rng rng(7);
  EXPECT_EQ(write_verse(model, open, BeamSettings{4, {0.8f, 20, 1.0f}}, rng).tokens.size(),
            open.length());
}

TEST(CheckVerse, ChuSaiKeepsEveryRule) {
  const VerseCheck c =
      check_verse("秦时明月汉时关，万里长征人未还。但使龙城飞将在，不教胡马度阴山。", tables());
  ASSERT_TRUE(c.form);
  EXPECT_EQ(c.form->name, "七绝");
  EXPECT_EQ(c.pattern.start, Tone::kPing);
  EXPECT_TRUE(c.pattern.first_line_rhymes);
  EXPECT_TRUE(c.passes());
  EXPECT_EQ(c.repeated, "时");
  EXPECT_FALSE(c.passes(/*no_repeat=*/true));
}

TEST(CheckVerse, JingYeSiBreaksTwoRulesAndSaysWhich) {
  const VerseCheck c = check_verse("床前明月光，疑是地上霜。举头望明月，低头思故乡。\n", tables());
  ASSERT_TRUE(c.form);
  EXPECT_FALSE(c.passes());
  EXPECT_EQ(c.tone_problems, 2u);
  ASSERT_EQ(c.lines[1].problems.size(), 1u);
  EXPECT_NE(c.lines[1].problems[0].find("position 4: '上' is 仄, needs 平 (二四六分明)"),
            std::string::npos)
      << c.lines[1].problems[0];
  ASSERT_EQ(c.lines[2].problems.size(), 1u);
  EXPECT_NE(c.lines[2].problems[0].find("粘"), std::string::npos) << c.lines[2].problems[0];
}

TEST(CheckVerse, ARhymeFromAnotherGroupFails) {
  // 出塞 with its last rhyme 山 replaced by 东 (another group; 平, so the tones still hold)
  const VerseCheck c =
      check_verse("秦时明月汉时关，万里长征人未还。但使龙城飞将在，不教胡马度阴东。", tables());
  EXPECT_TRUE(c.tones_ok());
  EXPECT_FALSE(c.rhyme_ok());
  ASSERT_FALSE(c.lines[3].problems.empty());
  EXPECT_NE(c.lines[3].problems[0].find("rhyme: '东'"), std::string::npos);
}

TEST(CheckVerse, ShapesThatAreNotAForm) {
  EXPECT_FALSE(check_verse("春风花月夜，", tables()).form);        // one line
  EXPECT_FALSE(check_verse("春风花月夜，山水人", tables()).form);  // unfinished
  EXPECT_FALSE(check_verse("春风花月夜，山水人。春风花月夜，山水人。", tables()).form);
  EXPECT_FALSE(check_verse("", tables()).form);
  EXPECT_NE(
      describe_check(check_verse("春风花月夜，", tables()), false, "").find("not regular verse"),
      std::string::npos);
}

// --- the constraint --------------------------------------------------------

TEST(VerseConstraint, TheFixedFormIsExercise05sMask) {
  NEED_SHIPPED_MODEL();
  const VerseVocabulary vocab(model.tokenizer(), tables());
  const VerseConstraint form(vocab, *form_named("七绝"));
  ASSERT_EQ(form.length(), 33u);
  std::vector<TokenId> written;
  for (std::size_t position = 1; position <= 33; ++position) {
    const LogitMask ours = form.allowed_next(written);
    const LogitMask theirs = qiyan_jueju_mask(model.tokenizer(), position);
    for (std::size_t id = 0; id < model.tokenizer().size(); ++id) {
      ASSERT_EQ(ours.allows(static_cast<TokenId>(id)), theirs.allows(static_cast<TokenId>(id)))
          << "position " << position << " id " << id;
    }
    written.push_back(*model.tokenizer().find("春"));
  }
  EXPECT_THROW(form.allowed_next(written), std::invalid_argument);
}

TEST(VerseConstraint, TonesRhymeHeadsAndNoRepeats) {
  NEED_SHIPPED_MODEL();
  const Tokenizer& tok = model.tokenizer();
  const VerseVocabulary vocab(tok, tables());
  const VerseForm form = *form_named("五绝");
  const std::vector<TokenId> heads = {*tok.find("春"), *tok.find("花"), *tok.find("秋"),
                                      *tok.find("月")};
  VerseConstraint c(vocab, form);
  c.with_heads(heads).with_tones(default_pattern(form)).without_repeats();
  EXPECT_THROW(VerseConstraint(vocab, form).with_heads(std::vector<TokenId>(3, heads[0])),
               UserError);

  std::vector<TokenId> written;
  const LogitMask first = c.allowed_next(written);
  EXPECT_EQ(first.allowed_count(), 1u);
  EXPECT_TRUE(first.allows(heads[0]));
  written.push_back(heads[0]);
  // position 2 of a 仄起 line: 仄 or 两 only, and not the heads still to come
  const LogitMask second = c.allowed_next(written);
  EXPECT_GT(second.allowed_count(), 1000u);
  for (std::size_t id = 0; id < tok.size(); ++id) {
    if (!second.allows(static_cast<TokenId>(id))) continue;
    EXPECT_NE(vocab.tone[id], Tone::kPing) << tok.character(static_cast<TokenId>(id));
  }
  EXPECT_FALSE(second.allows(heads[0]));  // written
  EXPECT_FALSE(second.allows(heads[2]));  // the head of line 3
  EXPECT_FALSE(second.allows(vocab.comma));
  EXPECT_EQ(c.rest_of_line(written), "仄中平仄");

  // The first rhyme (end of line 2) decides the group of the next one.
  for (const char* ch : {"风", "吹", "一", "夜", "，", "花", "落", "满", "江"}) {
    written.push_back(*tok.find(ch));
  }
  const LogitMask rhyme = c.allowed_next(written);  // position 5 of line 2: any group
  EXPECT_TRUE(rhyme.allows(*tok.find("山")));
  EXPECT_TRUE(rhyme.allows(*tok.find("东")));
  written.push_back(*tok.find("山"));
  EXPECT_EQ(c.rhyme_group_after(written), tables().rhyme_group("山"));
  EXPECT_NE(
      c.rest_of_line(std::vector<TokenId>(written.begin(), written.end() - 1)).find("any group"),
      std::string::npos);
  for (const char* ch : {"。", "秋"}) written.push_back(*tok.find(ch));
  while (written.size() < 3 * 6 + 4) written.push_back(*tok.find("一"));  // up to line 4's end
  const LogitMask last = c.allowed_next(written);
  EXPECT_TRUE(last.allows(*tok.find("关")));
  EXPECT_FALSE(last.allows(*tok.find("东")));
  EXPECT_FALSE(last.allows(*tok.find("山")));  // used
  EXPECT_FALSE(last.allows(*tok.find("看")));  // 两: in no rhyme group
}

TEST(BeamSearch, WidthOneWithTheFormOnlyWritesLesson05sPoem) {
  NEED_SHIPPED_MODEL();
  const Tokenizer& tok = model.tokenizer();
  const VerseVocabulary vocab(tok, tables());
  const VerseConstraint form(vocab, *form_named("七绝"));
  const SamplingSettings sampling{0.8f, 20, 1.0f};
  for (std::uint64_t seed : {1u, 42u, 7u}) {
    Rng ours(seed), theirs(seed);
    const WrittenVerse v = write_verse(model, form, BeamSettings{1, sampling}, ours);
    Recompute predictor(model);
    const MaskForPosition mask = [&](std::size_t p) { return qiyan_jueju_mask(tok, p); };
    const std::vector<TokenId> lesson05 =
        write_under_masks(predictor, tok, mask, sampling, theirs, 40);
    EXPECT_EQ(tok.decode(v.tokens), tok.decode(lesson05)) << "seed " << seed;
  }
}

TEST(BeamSearch, EveryConstrainedPoemPassesCheckVerse) {
  NEED_SHIPPED_MODEL();
  const VerseVocabulary vocab(model.tokenizer(), tables());
  for (const VerseForm& form : verse_forms()) {
    VerseConstraint c(vocab, form);
    c.with_tones(default_pattern(form)).without_repeats();
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      Rng rng(seed);
      const WrittenVerse v = write_verse(model, c, BeamSettings{4, {0.8f, 20, 1.0f}}, rng);
      ASSERT_EQ(v.tokens.size(), c.length());
      ASSERT_EQ(v.log_p.size(), c.length());
      const std::string poem = model.tokenizer().decode(v.tokens);
      const VerseCheck check = check_verse(poem, tables());
      EXPECT_TRUE(check.passes(/*no_repeat=*/true)) << describe_check(check, true, "");
      EXPECT_EQ(check.pattern.lines, default_pattern(form).lines) << poem;
      double sum = 0;
      for (double lp : v.log_p) sum += lp;
      EXPECT_NEAR(sum, v.score, 1e-6 * std::abs(sum));
    }
  }
}

TEST(BeamSearch, TheSameSeedWritesTheSamePoemAndAGivenRhymeGroupHolds) {
  NEED_SHIPPED_MODEL();
  const VerseVocabulary vocab(model.tokenizer(), tables());
  const VerseForm form = *form_named("七绝");
  VerseConstraint c(vocab, form);
  const int shan = *tables().rhyme_group("山");
  c.with_tones(default_pattern(form)).with_rhyme_group(shan);
  Rng a(3), b(3);
  const WrittenVerse x = write_verse(model, c, BeamSettings{8, {0.8f, 20, 1.0f}}, a);
  const WrittenVerse y = write_verse(model, c, BeamSettings{8, {0.8f, 20, 1.0f}}, b);
  EXPECT_EQ(x.tokens, y.tokens);
  const VerseCheck check = check_verse(model.tokenizer().decode(x.tokens), tables());
  EXPECT_EQ(check.rhyme_group, shan);
  EXPECT_THROW(VerseConstraint(vocab, form).with_rhyme_group(0), UserError);
  EXPECT_THROW(VerseConstraint(vocab, form).with_rhyme_group(tables().group_count() + 1),
               UserError);
}

TEST(BeamSearch, AtTemperatureZeroAWiderBeamScoresAtLeastAsWellHere) {
  // Not a theorem (beam search can lose with more width), but what the lesson
  // shows: the masks-only greedy poem is the flattest.
  NEED_SHIPPED_MODEL();
  const VerseVocabulary vocab(model.tokenizer(), tables());
  const VerseForm form = *form_named("五绝");
  VerseConstraint c(vocab, form);
  c.with_tones(default_pattern(form));
  Rng rng(1);
  const double greedy = write_verse(model, c, BeamSettings{1, {0.0f, 0, 1.0f}}, rng).score;
  const double beam = write_verse(model, c, BeamSettings{4, {0.0f, 0, 1.0f}}, rng).score;
  EXPECT_GE(beam, greedy);
}

}  // namespace
