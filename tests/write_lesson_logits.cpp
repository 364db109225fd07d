// write_lesson_logits: writes tests/golden/lesson_logits.bin, the bits that
// lesson_logits_test.cpp requires of the lesson path.
//
// For each prompt of lesson_logits.hpp it runs the shipped model
// (data/tang_gpt.safetensors) through forward() with the plain kernels, exactly
// as the lessons do, and appends the logits of the last position to the file as
// raw little-endian float32 (vocab_size floats per prompt, nothing else).
//
// The lesson path is built for one instruction set (-march=x86-64-v3) without
// floating-point contraction and sums in a fixed order, so these bits are the
// same on every x86-64 machine with AVX2 and FMA. Regenerate the file ONLY when
// the model or the lesson path's arithmetic changes on purpose (a new checkpoint,
// a changed operation), never to make a failing test pass:
//
//   cmake --build build/release --target write_lesson_logits
//   build/release/tests/write_lesson_logits tests/golden/lesson_logits.bin
//
// Optional second argument: another checkpoint (default: the shipped one).

#include <bit>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "checkpoint.hpp"
#include "gpt.hpp"
#include "lesson_logits.hpp"

static_assert(std::endian::native == std::endian::little,
              "lesson_logits.bin is little-endian float32");

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::cerr << "usage: " << argv[0] << " OUTPUT.bin [CHECKPOINT]\n";
    return 2;
  }
  try {
    const std::string checkpoint = argc == 3 ? argv[2] : tang::default_checkpoint_path();
    const tang::GPT model = tang::load_checkpoint(checkpoint);
    tang::Activations acts(model.config());
    std::vector<float> all;
    for (const char* prompt : tang::testing::kLessonLogitsPrompts) {
      const auto logits = tang::forward(model, model.tokenizer().encode(prompt), acts);
      all.insert(all.end(), logits.data(), logits.data() + logits.size());
    }
    std::ofstream out(argv[1], std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(all.data()),
              static_cast<std::streamsize>(all.size() * sizeof(float)));
    out.close();
    if (!out) {
      std::cerr << "error: could not write " << argv[1] << "\n";
      return 1;
    }
    std::printf("%s: %zu prompts x %zu logits of %s\n", argv[1],
                std::size(tang::testing::kLessonLogitsPrompts), model.config().vocab_size,
                checkpoint.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
