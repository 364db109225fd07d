// cache_size_section.hpp: section 10, shrinking the cache: the five models of
// one recipe (multi-head twice, grouped-query, multi-query, latent), what each
// caches, what it costs in quality, and what it saves in time.
#pragma once

#include "lesson.hpp"

namespace tang {

// Section 10, with its flags --variants, --variant-poems, --heldout-poems and
// --no-long-context.
Section cache_size_section();

}  // namespace tang
