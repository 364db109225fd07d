// shipped_model.hpp: data/tang_gpt.safetensors for the tests that need the real model.
//
//   NEED_SHIPPED_MODEL();   // skips the test when the file is missing, else defines `model`
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "checkpoint.hpp"

namespace tang::testing {

// Loaded once per test program; nullptr when the file is missing.
inline const GPT* shipped_model() {
  static const std::string path = std::string(TANG_DATA_DIR) + "/tang_gpt.safetensors";
  static const GPT* model =
      std::filesystem::exists(path) ? new GPT(load_checkpoint(path)) : nullptr;
  return model;
}

}  // namespace tang::testing

#define NEED_SHIPPED_MODEL()                                           \
  const ::tang::GPT* model_ptr = ::tang::testing::shipped_model();     \
  if (!model_ptr) GTEST_SKIP() << "data/tang_gpt.safetensors missing"; \
  const ::tang::GPT& model = *model_ptr
