// speculative_section.hpp: section 12, speculative decoding. A drafter's
// characters checked by the model in one cached forward pass: one poem with
// its kept drafts marked, then each drafter at k = 1 .. 8 and T 0 and 0.8
// beside lesson 06's cached writing, measured and predicted, and what the cost
// model predicts for a model whose weights do not fit in the caches.
#pragma once

#include "lesson.hpp"

namespace tang {

// Section 12, with its flag --draft.
Section speculative_section();

}  // namespace tang
