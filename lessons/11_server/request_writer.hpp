// request_writer.hpp: a served request as a Writer (common/generate.hpp).
//
// Each kind of request is written by the lesson that taught it: an opening as
// lessons 04-06 write a poem, heads as lesson 05's acrostic, a form as lesson
// 07's regular verse at width 1. A RequestWriter owns everything its writing
// needs (its generator Rng(seed), its text, its picker and constraint), so one
// can be kept and stepped whenever its logits are ready: the same coins, the
// same poem as the lesson writes alone.
#pragma once

#include <memory>
#include <string>

#include "03_topk_topp/sampler.hpp"  // lesson 03: SampleStep, sample_next
#include "11_server/poem_request.hpp"
#include "generate.hpp"
#include "tokenizer.hpp"

namespace tang {

class RequestWriter : public Writer {
 public:
  // `request` passed request_problem; `tokenizer` must outlive it (the writer
  // keeps its own copies of `report` and `step`). Each character is drawn by
  // `step`: lesson 03's sample_next, or the tuned path's (tuned_draw.hpp).
  static std::unique_ptr<RequestWriter> make(const Tokenizer& tokenizer, const PoemRequest& request,
                                             const StepReport& report = {},
                                             const SampleStep& step = sample_next);
  // The poem so far: the opening (or the heads) and what was written, without
  // its newline.
  virtual std::string poem() const = 0;
  // Positions of the context that are the request's own ("\n" and its opening):
  // the rest was written.
  virtual std::size_t prompt_positions() const { return 1; }
};

}  // namespace tang
