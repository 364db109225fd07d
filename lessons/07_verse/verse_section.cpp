#include "07_verse/verse_section.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <ostream>
#include <set>

#include "03_topk_topp/sampler.hpp"
#include "07_verse/beam_search.hpp"
#include "07_verse/check_verse.hpp"
#include "07_verse/verse_constraint.hpp"
#include "errors.hpp"
#include "number_text.hpp"
#include "utf8.hpp"

namespace tang {

namespace {

// A famous 七绝 that keeps every rule, and a famous 五言 poem that does not.
const char* const kChuSai = "秦时明月汉时关，万里长征人未还。但使龙城飞将在，不教胡马度阴山。";
const char* const kJingYeSi = "床前明月光，疑是地上霜。举头望明月，低头思故乡。";
const char* const kDefaultHeads = "春眠不觉";  // section 5's heads, here as an acrostic 七绝

// The acrostic's heads: --heads (given once, section 7 checks), or the default.
std::string acrostic_heads(const LessonOptions& o) {
  return o.heads.empty() ? std::string(kDefaultHeads) : o.heads.front();
}

// The share of the model's probability that the constraint allowed at the end
// of each rhyming line, e.g. "2.1% 0.4% 13.0%": where masks paint it into a corner.
std::string rhyme_shares(const WrittenVerse& v, const VerseConstraint& constraint) {
  std::string shares;
  for (std::size_t i = 0; i < v.allowed_mass.size(); ++i) {
    if (constraint.slot(i).rhyme)
      shares += (shares.empty() ? "" : " ") + fixed(100.0 * v.allowed_mass[i], 1) + "%";
  }
  return shares;
}

// Writes one poem and prints it with the check and its costs.
void write_and_show(LessonContext& c, const VerseVocabulary& vocab, const std::string& title,
                    const VerseConstraint& constraint, std::size_t width, std::uint64_t seed) {
  BeamSettings settings{width, writing_settings(c.options)};
  Rng rng(seed);
  const WrittenVerse v =
      write_verse(c.model, constraint, settings, rng, c.options.trace ? &c.out : nullptr);
  std::string text = c.model.tokenizer().decode(v.tokens);
  const VerseCheck check = check_verse(text, vocab.tables);
  c.out << "  " << title << ":\n" << describe_check(check, /*no_repeat=*/false, "    ");
  c.out << "    mean ln p per character " << fixed(mean_log_p_per_character(v, vocab), 2);
  const std::string shares = rhyme_shares(v, constraint);
  if (!shares.empty()) {
    c.out << "; at the rhyme positions the allowed characters had " << shares
          << " of the model's probability";
  }
  c.out << "\n";
}

// Section 7's two constraints, as run_lesson's prepare step checks them and the
// section writes them (then also without lines copied from training poems).
VerseConstraint verse_constraint(const VerseVocabulary& vocab, const VerseOptions& o) {
  VerseConstraint verse(vocab, o.form);
  verse.with_tones(default_pattern(o.form)).without_repeats();
  if (o.rhyme_group) verse.with_rhyme_group(*o.rhyme_group);
  return verse;
}

// The acrostic on `heads`: in the chosen form when it has as many lines, else a 七言 one.
VerseConstraint acrostic_constraint(const VerseVocabulary& vocab, const VerseOptions& o,
                                    const std::string& heads) {
  std::vector<TokenId> head_ids;
  for (const std::string& h : utf8_split(heads)) head_ids.push_back(*vocab.tokenizer.find(h));
  const VerseForm form =
      *form_of_shape(head_ids.size(), o.form.lines == head_ids.size() ? o.form.chars : 7);
  VerseConstraint acrostic(vocab, form);
  acrostic.with_heads(head_ids).with_tones(default_pattern(form)).without_repeats();
  if (o.rhyme_group) acrostic.with_rhyme_group(*o.rhyme_group);
  return acrostic;
}

void show_verse(LessonContext& c, const VerseOptions& o) {
  const VerseTables& tables = *o.tables;
  const Tokenizer& tokenizer = c.model.tokenizer();
  const VerseVocabulary vocab(tokenizer, tables);

  c.out << "Every character is 平 (level), 仄 (oblique) or 两 (either) in data/tones.tsv; "
           "rhyme groups are data/rhymes.tsv ("
        << tables.group_count() << " groups).\n";
  c.out << "  A famous 七绝 (王昌龄, 出塞), checked by check_verse:\n"
        << describe_check(check_verse(kChuSai, tables), false, "    ");
  c.out << "  The most famous 五言 poem (李白, 静夜思) is not regular verse:\n"
        << describe_check(check_verse(kJingYeSi, tables), false, "    ");

  const VersePattern pattern = default_pattern(o.form);
  c.out << "\n  A " << o.form.name << " (" << pattern.describe() << "), T "
        << label(writing_settings(c.options).temperature) << ", seed " << c.options.seed
        << ", pattern (中 = either)";
  for (std::size_t i = 0; i < pattern.lines.size(); ++i) {
    std::string row;
    for (Tone t : pattern.lines[i]) row += pattern_tone_name(t);
    c.out << (i == 0 ? " " : " / ") << row;
  }
  c.out << "\n";

  const TrainingLines training = TrainingLines::from_corpus(c.options.corpus);
  VerseConstraint form_only(vocab, o.form);
  VerseConstraint verse = verse_constraint(vocab, o);
  verse.without_lines_of(training);
  write_and_show(c, vocab, "form only (lesson 05's masks), beam 1", form_only, 1, c.options.seed);
  c.out << "  The verse constraint: these tones, one rhyme group, no character twice, no line of a "
           "training poem copied whole.\n";
  write_and_show(c, vocab, "verse, beam 1 (masks alone)", verse, 1, c.options.seed);
  write_and_show(c, vocab, "verse, beam " + std::to_string(o.beam), verse, o.beam, c.options.seed);

  // The acrostic of section 5, now also in tone and rhyme.
  const std::string heads = acrostic_heads(c.options);
  VerseConstraint acrostic = acrostic_constraint(vocab, o, heads);
  acrostic.without_lines_of(training);
  write_and_show(
      c, vocab,
      "acrostic " + acrostic.form().name + " on " + heads + ", beam " + std::to_string(o.beam),
      acrostic, o.beam, c.options.seed);
}

void declare_verse_flags(CLI::App& app, VerseOptions& o) {
  // every lesson's --heads (options.cpp) is repeatable for section 5 alone; from here on
  // section 7 writes one acrostic with them, so they are given once
  app.get_option("--heads")->description(
      "acrostic head characters for sections 5 and 7, given once: 4 or 8 different "
      "characters, e.g. 春花秋月");
  app.add_option("--form", o.form_name, "section 7's form: " + form_names())->capture_default_str();
  o.rhyme_flag =
      app.add_option("--rhyme", o.rhyme,
                     "section 7's rhyme group: its number (1 .. the groups of data/rhymes.tsv) or "
                     "one of its characters, e.g. 山 (default: the first rhyme written decides)");
  app.add_option("--beam", o.beam, "section 7's beam width, in [1, 64]")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{64}));
}

void prepare_verse(VerseOptions& o, const GPT& model, const LessonOptions& lesson) {
  const auto form = form_named(o.form_name);
  if (!form) throw BadOption("--form " + o.form_name + ": choose " + form_names());
  o.form = *form;
  o.tables = std::make_shared<const VerseTables>(VerseTables::load_shipped());
  if (o.rhyme_flag->count() > 0 && o.rhyme.empty()) {
    throw BadOption("--rhyme is empty: give a rhyme group's number (1 .. " +
                    std::to_string(o.tables->group_count()) +
                    ") or one of its characters, e.g. 山; leave --rhyme out to let the first "
                    "rhyme decide");
  }
  if (!o.rhyme.empty()) {
    const bool digits = o.rhyme.find_first_not_of("0123456789") == std::string::npos;
    const int groups = o.tables->group_count();
    if (digits && o.rhyme.size() <= 3) {
      const int g = std::stoi(o.rhyme);
      if (g < 1 || g > groups) {
        throw BadOption("--rhyme " + o.rhyme + ": the rhyme groups are 1 .. " +
                        std::to_string(groups) + " (data/rhymes.tsv)");
      }
      o.rhyme_group = g;
    } else {
      o.rhyme_group = o.tables->rhyme_group(o.rhyme);
      if (!o.rhyme_group) {
        throw BadOption("--rhyme " + o.rhyme +
                        ": not a character of a rhyme group; give a group number or a 平 "
                        "character that ends rhyming lines, e.g. 山 (data/rhymes.tsv)");
      }
    }
  }
  VerseVocabulary vocab(model.tokenizer(), *o.tables);  // the model has ，。⏎
  if (lesson.heads.size() > 1) {
    throw BadOption("--heads: section 7 writes one acrostic; give --heads once");
  }
  if (!lesson.heads.empty()) {
    const std::vector<std::string> heads = utf8_split(lesson.heads.front());
    if (heads.size() != 4 && heads.size() != 8) {
      throw BadOption("--heads " + lesson.heads.front() + ": " + std::to_string(heads.size()) +
                      " characters; a 绝句 has 4 lines and a 律诗 8: give 4 or 8 heads");
    }
    std::set<std::string> seen;
    for (const std::string& h : heads) {
      if (!seen.insert(h).second) {
        throw BadOption("--heads " + lesson.heads.front() + " repeats '" + h +
                        "': regular verse here uses no character twice; give different heads");
      }
    }
  }
  // Flags that are each fine but together leave no poem possible, found now, not halfway.
  const std::string heads = acrostic_heads(lesson);
  const std::string flags = (o.rhyme.empty() ? "" : "--rhyme " + o.rhyme + " ") +
                            (lesson.heads.empty() ? "the default heads" : "--heads " + heads);
  if (const std::string why = verse_constraint(vocab, o).why_impossible(); !why.empty()) {
    throw BadOption("--form " + o.form.name + (o.rhyme.empty() ? "" : " --rhyme " + o.rhyme) +
                    ": " + why + "; choose another rhyme group");
  }
  if (const std::string why = acrostic_constraint(vocab, o, heads).why_impossible(); !why.empty()) {
    throw BadOption(flags + ": section 7's acrostic cannot be written: " + why +
                    "; choose another --rhyme or other heads");
  }
}

}  // namespace

Section verse_section() {
  auto options = std::make_shared<VerseOptions>();  // the section's flags, read by its parts
  return {"Regular verse (格律): tones, rhyme and beam search",
          [options](LessonContext& c) { show_verse(c, *options); },
          [](const LessonOptions& o) {
            return std::string("\n，。") + kChuSai + kJingYeSi + acrostic_heads(o);
          },
          [options](CLI::App& app) { declare_verse_flags(app, *options); },
          [options](const GPT& model, const LessonOptions& lesson) {
            prepare_verse(*options, model, lesson);
          },
          [](const GPT& model) {
            return why_not_multi_head(model.config(), "lesson 07's beam search (its KV cache)");
          }};
}

}  // namespace tang
