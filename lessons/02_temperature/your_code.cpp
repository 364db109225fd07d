#include "your_code.hpp"

#include <ostream>

#include "errors.hpp"

namespace tang {

void run_yours(LessonContext& c, const std::string& exercise, const std::function<void()>& body) {
  if (!c.options.mine) return;
  c.out << "  -- yours: " << exercise << " --\n";
  try {
    body();
  } catch (const NotImplemented& e) {
    c.out << "  " << e.what() << "\n";
  }
}

void print_side_by_side(LessonContext& c, const Picker& reference, const Picker& yours,
                        std::size_t count) {
  Decoder decoder(c.model, /*use_cache=*/false);
  Rng reference_rng(c.options.seed), your_rng(c.options.seed);
  bool all_same = true;
  for (std::size_t i = 0; i < count; ++i) {
    const std::string ref =
        write_poem(decoder, c.model.tokenizer(), "", reference, reference_rng, c.options.length);
    const std::string mine =
        write_poem(decoder, c.model.tokenizer(), "", yours, your_rng, c.options.length);
    all_same = all_same && ref == mine;
    c.out << "    reference: " << ref << "\n    yours:     " << mine << "\n";
  }
  c.out << (all_same ? "  same text as the reference: your code draws the same characters\n"
                     : "  DIFFERENT from the reference: check your code against the comment in its "
                       "file\n");
}

}  // namespace tang
