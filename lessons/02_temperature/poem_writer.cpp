#include "poem_writer.hpp"

#include "temperature.hpp"

namespace tang {

std::vector<TokenId> write(Decoder& decoder, std::vector<TokenId>& context, const Picker& pick,
                           Rng& rng, std::size_t max_new, bool stop_at_newline) {
  std::vector<TokenId> written;
  const std::size_t vocab = decoder.vocab_size();
  std::vector<float> logits(vocab);
  context.reserve(context.size() + max_new);  // no reallocation while writing
  while (written.size() < max_new) {
    const auto scores = decoder.next_logits(context);  // (1, V)
    std::copy(scores.begin(), scores.end(), logits.begin());
    const TokenId next = pick(logits, written.size(), rng);
    context.push_back(next);
    written.push_back(next);
    if (stop_at_newline && next == 0) break;  // id 0 is the newline that ends a poem
  }
  return written;
}

std::string write_poem(Decoder& decoder, const Tokenizer& tokenizer, const std::string& opening,
                       const Picker& pick, Rng& rng, std::size_t max_chars) {
  std::vector<TokenId> context = tokenizer.encode("\n" + opening);
  std::vector<TokenId> poem = write(decoder, context, pick, rng, max_chars, true);
  if (!poem.empty() && poem.back() == 0) poem.pop_back();
  return opening + tokenizer.decode(poem);
}

Picker temperature_picker(float temperature) {
  return [temperature](std::span<float> logits, std::size_t, Rng& rng) {
    return sample_with_temperature(logits, temperature, rng);
  };
}

}  // namespace tang
