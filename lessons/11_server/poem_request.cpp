#include "11_server/poem_request.hpp"

#include "07_verse/verse_form.hpp"  // form_named
#include "options.hpp"              // can_head_a_line
#include "utf8.hpp"

namespace tang {

std::string form_problem(const std::string& form) {
  if (form_named(form)) return "";
  return "form: lesson 07's regular verse is " + form_names() + " (got '" + form + "')";
}

std::string request_problem(const PoemRequest& request, const Tokenizer& tokenizer) {
  if (!request.heads.empty() && !request.opening.empty())
    return "heads: give an opening or heads, not both";
  if (!request.verse.empty()) {
    if (std::string problem = form_problem(request.verse); !problem.empty()) return problem;
    if (!request.opening.empty() || !request.heads.empty())
      return "form: regular verse is written from its first character: give no prompt (or "
             "heads, for an acrostic of that form)";
  }
  for (const std::string& c : utf8_split(request.opening)) {
    if (c == "\n") return "prompt: a poem's opening has no newline";
    if (!tokenizer.find(c))
      return "prompt: the character '" + c + "' is not in the model's vocabulary";
  }
  const std::vector<std::string> heads = utf8_split(request.heads);
  if (!heads.empty()) {
    if (heads.size() != 4 && heads.size() != 8)
      return "heads: give 4 or 8 head characters, one per line (got " +
             std::to_string(heads.size()) + ")";
    for (const std::string& c : heads) {
      if (!can_head_a_line(tokenizer, c))
        return "heads: the character '" + c +
               "' cannot start a line (not in the vocabulary, "
               "or punctuation)";
    }
    if (request.line_chars != 5 && request.line_chars != 7)
      return "form: an acrostic line has 5 or 7 characters";
  }
  return "";
}

}  // namespace tang
