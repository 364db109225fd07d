#include "09_inside/inside_section.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <memory>
#include <numeric>
#include <ostream>

#include "03_topk_topp/sampler.hpp"
#include "07_verse/beam_search.hpp"
#include "07_verse/training_lines.hpp"
#include "07_verse/verse_constraint.hpp"
#include "08_many_poems/weight_quality.hpp"
#include "09_inside/exercise/logit_lens.hpp"
#include "09_inside/head_patterns.hpp"
#include "09_inside/inside_view.hpp"
#include "09_inside/knockout.hpp"
#include "09_inside/poem_layout.hpp"
#include "errors.hpp"
#include "number_text.hpp"

namespace tang {

namespace {

const char* const kOpening = "白日依山尽，黄河入海";  // 王之涣, 登鹳雀楼: next comes 流
constexpr std::size_t kQuatrain = 33;                 // "\n" + a 七绝's 32 characters

struct InsideOptions {
  std::size_t poems = 200;  // --poems
  std::vector<std::vector<TokenId>> heldout;
  std::shared_ptr<const VerseTables> tables;
};

std::string shown(const Tokenizer& tokenizer, TokenId id) {
  const std::string& c = tokenizer.character(id);
  return c == "\n" ? "⏎" : c;
}

// Part 1: each head's three most attended positions when position t predicts.
void show_attention(LessonContext& c, const InsideView& view, std::span<const TokenId> tokens,
                    std::size_t t) {
  const Tokenizer& tok = c.model.tokenizer();
  char cell[64];
  for (std::size_t l = 0; l < view.L; ++l) {
    for (std::size_t h = 0; h < view.NH; ++h) {
      const std::span<const float> row = view.weights(l, h).subspan(t * view.T, t + 1);
      std::vector<std::size_t> order(t + 1);
      std::iota(order.begin(), order.end(), std::size_t{0});
      const std::size_t k = std::min<std::size_t>(3, t + 1);
      std::partial_sort(
          order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
          [&](std::size_t a, std::size_t b) { return row[a] != row[b] ? row[a] > row[b] : a < b; });
      c.out << "    layer " << l + 1 << " head " << h + 1 << "  ";
      for (std::size_t i = 0; i < k; ++i) {
        std::snprintf(cell, sizeof cell, "  %3zu %s %.2f", order[i],
                      shown(tok, tokens[order[i]]).c_str(), row[order[i]]);
        c.out << cell;
      }
      c.out << "\n";
    }
  }
}

// Part 2: the logit lens at position t, after the embeddings and every block.
void show_lens(LessonContext& c, const InsideView& view, std::size_t t) {
  const Tokenizer& tok = c.model.tokenizer();
  char cell[64];
  for (std::size_t s = 0; s <= view.L; ++s) {
    const std::string stage = s == 0 ? "embeddings" : "block " + std::to_string(s);
    std::snprintf(cell, sizeof cell, "    %-10s", stage.c_str());
    c.out << cell;
    for (const Candidate& k : logit_lens(c.model, view.residual(s, t), 5)) {
      std::snprintf(cell, sizeof cell, "  %s %.3f", shown(tok, k.id).c_str(), k.probability);
      c.out << cell;
    }
    c.out << (s == view.L ? "   (the model's own output)\n" : "\n");
  }
}

// One step looked at: the text up to position t, then parts 1 and 2 there.
void show_step(LessonContext& c, std::span<const TokenId> tokens, std::size_t t,
               const std::string& what) {
  Activations acts(c.model.config(), 1, Keep::kEverything);
  const InsideView view = look_inside(c.model, tokens.first(t + 1), acts);
  c.out << "\n  " << what << "\n  Each head's three most attended positions (position, character, "
        << "weight):\n";
  show_attention(c, view, tokens, t);
  c.out << "  The logit lens: the five most likely next characters from the stream after each "
           "stage:\n";
  show_lens(c, view, t);
}

// A 七绝 the model writes under lesson 05's form masks (lesson 07's constraint
// without tones or rhyme), as "\n" + its characters.
std::vector<TokenId> written_quatrain(LessonContext& c, const VerseTables& tables) {
  const VerseVocabulary vocab(c.model.tokenizer(), tables);
  const VerseConstraint form_only(vocab, *form_named("七绝"));
  Rng rng(c.options.seed);
  const WrittenVerse v =
      write_verse(c.model, form_only, BeamSettings{1, writing_settings(c.options)}, rng);
  std::vector<TokenId> tokens = {c.model.tokenizer().newline()};
  tokens.insert(tokens.end(), v.tokens.begin(), v.tokens.end());
  tokens.resize(std::min(tokens.size(), kQuatrain));  // not the ending newline
  return tokens;
}

// Part 3: the table of what each head attends to.
std::string strongest(const PatternSums& head, const PatternSums& uniform) {
  std::size_t best = kPatterns;
  double best_ratio = 0.0;
  for (std::size_t k = 0; k < kPatterns; ++k) {
    if (head[k].queries == 0 || uniform[k].weight <= 0.0) continue;
    const double mean = head[k].weight / static_cast<double>(head[k].queries);
    const double ratio = head[k].weight / uniform[k].weight;  // same queries for both
    if (mean >= 0.2 && ratio >= 2.0 && ratio > best_ratio) best = k, best_ratio = ratio;
  }
  return best == kPatterns ? "-" : kPatternNames[best];
}

void show_patterns(LessonContext& c, const HeadPatterns& p) {
  char cell[64];
  c.out << "\n  What each head attends to, over " << p.poems << " held-out poems (" << p.positions
        << " positions): mean weight, and its\n  ratio to uniform attention's; the name is the "
           "strongest pattern of at least 0.2 and 2x:\n            ";
  for (const char* name : kPatternNames) {
    std::snprintf(cell, sizeof cell, " %11s", name);
    c.out << cell;
  }
  c.out << "\n    uniform ";
  for (const PatternSum& u : p.uniform) {
    std::snprintf(cell, sizeof cell, " %11.2f", u.queries ? u.weight / double(u.queries) : 0.0);
    c.out << cell;
  }
  c.out << "\n    queries ";
  for (const PatternSum& u : p.uniform) {
    std::snprintf(cell, sizeof cell, " %11zu", u.queries);
    c.out << cell;
  }
  c.out << "   (positions that have the pattern's target)\n";
  for (std::size_t l = 0; l < p.L; ++l) {
    for (std::size_t h = 0; h < p.NH; ++h) {
      const PatternSums& head = p.heads[l * p.NH + h];
      std::snprintf(cell, sizeof cell, "    L%zu H%zu   ", l + 1, h + 1);
      c.out << cell;
      for (std::size_t k = 0; k < kPatterns; ++k) {
        const double mean = head[k].queries ? head[k].weight / double(head[k].queries) : 0.0;
        const double ratio = p.uniform[k].weight > 0 ? head[k].weight / p.uniform[k].weight : 0.0;
        std::snprintf(cell, sizeof cell, "  %.2f %4.1fx", mean, ratio);
        c.out << cell;
      }
      c.out << "  " << strongest(head, p.uniform) << "\n";
    }
  }
}

// Part 4: each head knocked out, and what the model loses.
void show_knockouts(LessonContext& c, const InsideOptions& o) {
  const TrainingLines training = TrainingLines::from_corpus(c.options.corpus);
  KnockoutBench bench;
  bench.heldout = o.heldout;
  bench.seeds.resize(o.poems);
  std::iota(bench.seeds.begin(), bench.seeds.end(), c.options.seed);
  bench.settings = writing_settings(c.options);
  bench.max_chars = c.model.config().block_size - 1;
  bench.tables = o.tables.get();
  bench.training_lines = &training.lines();
  c.out << "\n  Each head knocked out: held-out loss on the same " << o.heldout.size()
        << " poems; of " << o.poems << " poems written at T " << label(bench.settings.temperature)
        << ",\n  top-k " << bench.settings.top_k << " (seeds " << bench.seeds.front() << " .. "
        << bench.seeds.back()
        << "), the share in form, the share rhyming, lines copied whole:\n"
           "    model         loss   change    in form   rhyming   copied lines\n";
  char row[160];
  auto print = [&](const std::string& name, const ModelScore& s, double base) {
    const double poems = static_cast<double>(std::max<std::size_t>(s.poems, 1));
    const std::string change =
        name == "whole" ? "" : (s.loss >= base ? "+" : "") + fixed(s.loss - base, 3);
    std::snprintf(row, sizeof row, "    %-10s  %6.3f  %7s    %6.1f%%   %6.1f%%   %4zu of %zu\n",
                  name.c_str(), s.loss, change.c_str(), 100.0 * double(s.in_form) / poems,
                  100.0 * double(s.rhyming) / poems, s.copied, s.lines);
    c.out << row;
    c.out.flush();
  };
  const ModelScore whole = score_model(c.model, bench);
  print("whole", whole, whole.loss);
  const GPTConfig& cfg = c.model.config();
  for (std::size_t l = 0; l < cfg.n_layer; ++l) {
    for (std::size_t h = 0; h < cfg.n_head; ++h) {
      const GPT knocked = without_head(c.model, l, h);
      print("L" + std::to_string(l + 1) + " H" + std::to_string(h + 1), score_model(knocked, bench),
            whole.loss);
    }
  }
}

void show_inside(LessonContext& c, const InsideOptions& o) {
  const Tokenizer& tok = c.model.tokenizer();
  c.out << "At two steps, where each head looks and what the stream predicts after each block; "
           "then,\nover held-out poems, what each head attends to and what the model loses "
           "without it.\n";
  // the step after 登鹳雀楼's 黄河入海, or after the first --prompt (its last block_size positions)
  const bool own = !c.options.prompts.empty();
  const std::string prompt = own ? c.options.prompts.front() : std::string(kOpening);
  std::vector<TokenId> opening = tok.encode("\n" + prompt);
  const std::size_t block = c.model.config().block_size;
  if (opening.size() > block) opening.erase(opening.begin(), opening.end() - block);
  show_step(c, opening, opening.size() - 1,
            "After 「" + prompt + "」" + (own ? "" : " (王之涣, 登鹳雀楼)") +
                ", the model predicts the next character:");

  const std::vector<TokenId> quatrain = written_quatrain(c, *o.tables);
  const PoemLayout layout = layout_of(tok, quatrain);
  std::vector<TokenId> poem(quatrain.begin() + 1, quatrain.end());
  const std::vector<std::size_t> rhymes = rhyme_positions(layout);
  const std::size_t rhyme = rhymes.back();  // line 4's last character
  show_step(c, quatrain, rhyme - 1,
            "A 七绝 the model wrote (seed " + std::to_string(c.options.seed) +
                ", lesson 05's form masks, T " + label(writing_settings(c.options).temperature) +
                "): " + tok.decode(poem) + "\n  At position " + std::to_string(rhyme - 1) +
                ", predicting line 4's rhyme (it wrote " + shown(tok, quatrain[rhyme]) +
                "; lines 1 and 2 end in " + shown(tok, quatrain[layout.lines[0].back()]) + " " +
                shown(tok, quatrain[rhymes.front()]) + "):");

  show_patterns(c, measure_head_patterns(c.model, o.heldout));
  show_knockouts(c, o);
}

void declare_inside_flags(CLI::App& app, InsideOptions& o) {
  app.add_option("--poems", o.poems,
                 "section 9: held-out poems for the head table and the knockouts' loss, and "
                 "poems written per knockout, in [1, 2000]")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{2000}));
}

std::string too_small_for_inside(const GPT& model) {
  const std::string shared =
      why_not_multi_head(model.config(), "lesson 09's knockouts (lesson 08's batched cache)");
  if (!shared.empty()) return shared;
  if (model.config().block_size >= kQuatrain) return "";
  return "it looks inside a 七绝 of " + std::to_string(kQuatrain) +
         " positions with its newline; this model's context is " +
         std::to_string(model.config().block_size);
}

void prepare_inside(InsideOptions& o, const GPT& model, const LessonOptions& lesson) {
  o.tables = std::make_shared<const VerseTables>(VerseTables::load_shipped());
  VerseVocabulary vocab(model.tokenizer(), *o.tables);       // the model has ，。⏎
  o.heldout = heldout_poems(model, lesson.corpus, o.poems);  // names a bad line
}

}  // namespace

Section inside_section() {
  auto options = std::make_shared<InsideOptions>();
  return {"Inside the model: attention, layer by layer, what each head is for",
          [options](LessonContext& c) { show_inside(c, *options); },
          [](const LessonOptions& o) {
            std::string text = std::string("\n，。") + kOpening;
            for (const std::string& prompt : o.prompts) text += prompt;
            return text;
          },
          [options](CLI::App& app) { declare_inside_flags(app, *options); },
          [options](const GPT& model, const LessonOptions& lesson) {
            prepare_inside(*options, model, lesson);
          },
          too_small_for_inside};
}

}  // namespace tang
