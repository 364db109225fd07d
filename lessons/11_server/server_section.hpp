// server_section.hpp: section 11, a poem server without the network: the
// paged cache against lesson 06's, many clients at once through continuous
// batching, a shared opening taken from the pool, a pool too small, and one
// streamed request. poem_server (poem_server.cpp) serves the same engine over HTTP.
#pragma once

#include "lesson.hpp"

namespace tang {

// Section 11, with its flag --requests.
Section server_section();

}  // namespace tang
