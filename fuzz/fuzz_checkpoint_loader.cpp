// fuzz_checkpoint_loader: any bytes, read as a checkpoint file.
//
// The loader must answer every input with a model or a tang::UserError of one
// line. A crash, a sanitizer report, any other exception (std::bad_alloc from
// a size it trusted, nlohmann::json's type errors, std::out_of_range) or an
// error with a line break in it is a finding; so is a file that loads but does
// not survive being written and read again unchanged.
//
//   scripts/run_fuzzers.sh 300     (or build/fuzz/fuzz/fuzz_checkpoint_loader DIR)

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <string_view>

#include "checkpoint.hpp"
#include "errors.hpp"
#include "fuzz_checks.hpp"
#include "safetensors.hpp"

namespace {

using tang::fuzz::check_one_line;
using tang::fuzz::finding;

// What parses must serialise and parse back to the same tensors (found by name:
// zero-size tensors may share an offset and come back in another order).
void check_round_trip(const tang::SafetensorsFile& file) {
  const std::string again = tang::serialize_safetensors(file);
  const tang::SafetensorsFile reread = tang::parse_safetensors(again, "round trip");
  if (reread.metadata != file.metadata) finding("round trip", "metadata changed");
  if (reread.tensors.size() != file.tensors.size()) finding("round trip", "tensor count changed");
  std::map<std::string, const tang::NamedTensor*> by_name;
  for (const auto& t : reread.tensors) by_name[t.name] = &t;
  for (const auto& t : file.tensors) {
    auto it = by_name.find(t.name);
    if (it == by_name.end()) finding("round trip", "lost tensor " + t.name);
    const tang::NamedTensor& r = *it->second;
    if (r.dtype != t.dtype || r.shape != t.shape || r.bytes != t.bytes) {
      finding("round trip", "tensor " + t.name + " changed");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  tang::SafetensorsFile file;
  try {
    file = tang::parse_safetensors(bytes, "fuzz.safetensors");
  } catch (const tang::UserError& e) {
    check_one_line(e);
    return 0;
  }
  check_round_trip(file);

  try {
    const tang::GPT model = tang::model_from_safetensors(file, "fuzz.safetensors");
    // A model that loads saves to a file that loads to the same model.
    const std::string saved = tang::serialize_safetensors(tang::model_to_safetensors(model));
    const tang::GPT again =
        tang::model_from_safetensors(tang::parse_safetensors(saved, "saved"), "saved");
    if (again.parameters().size() != model.parameters().size() ||
        std::memcmp(again.parameters().data(), model.parameters().data(),
                    model.parameters().size() * sizeof(float)) != 0 ||
        again.tokenizer().characters() != model.tokenizer().characters()) {
      finding("model round trip", "saved model reads back different");
    }
  } catch (const tang::UserError& e) {
    check_one_line(e);
  }
  return 0;
}
