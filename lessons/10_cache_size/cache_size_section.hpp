// cache_size_section.hpp: section 10, shrinking the cache: four attentions
// (multi-head, grouped-query, multi-query, latent), each trained with three
// seeds on one batch order; what each caches, what it costs in quality (paired
// by seed, with a standard error), and what it saves in time.
#pragma once

#include "lesson.hpp"

namespace tang {

// Section 10, with its flags --variants, --variant-poems, --heldout-poems and
// --no-long-context.
Section cache_size_section();

}  // namespace tang
