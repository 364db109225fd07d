// verse_section.hpp: section 7, regular verse (格律): tones, rhyme and beam search.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "07_verse/verse_form.hpp"
#include "07_verse/verse_tables.hpp"
#include "lesson.hpp"

namespace tang {

// Lesson 07's own flags, filled in by verse_flags() before the lesson prints.
struct VerseOptions {
  std::string form_name = "七绝";     // --form
  std::string rhyme;                  // --rhyme: a group number or one of its characters
  CLI::Option* rhyme_flag = nullptr;  // to tell --rhyme '' from no --rhyme
  std::size_t beam = 4;               // --beam
  // Resolved by the check:
  VerseForm form;
  std::optional<int> rhyme_group;
  std::shared_ptr<const VerseTables> tables;
};

// --form 五绝|七绝|五律|七律, --rhyme, --beam N; checked against the tables and
// the model (and --heads against the form) before anything is printed.
// Section 7, with its flags --form, --rhyme and --beam.
Section verse_section();

}  // namespace tang
