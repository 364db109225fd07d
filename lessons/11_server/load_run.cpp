#include "11_server/load_run.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <mutex>
#include <thread>

#include "11_server/cpu_clock.hpp"

namespace tang {

LoadRun run_clients(PagedEngine& engine, const std::vector<PoemRequest>& requests,
                    std::size_t clients) {
  LoadRun run;
  run.served.resize(requests.size());
  std::atomic<std::size_t> next = 0;
  std::exception_ptr failure;  // the first request that threw, rethrown after the join
  std::mutex failure_mutex;
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (std::size_t c = 0; c < std::min(clients, requests.size()); ++c) {
    threads.emplace_back([&] {
      const double cpu = thread_cpu_seconds();
      try {
        for (std::size_t i = next++; i < requests.size(); i = next++)
          run.served[i] =
              serve_poem(engine, requests[i], [](const WrittenCharacter&) { return true; });
      } catch (...) {
        const std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next = requests.size();  // the other clients stop too
      }
      const std::lock_guard lock(failure_mutex);
      run.clients_cpu_seconds += thread_cpu_seconds() - cpu;
    });
  }
  for (std::thread& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const ServedPoem& s : run.served) run.characters += s.characters;
  return run;
}

std::vector<PoemRequest> mixed_requests(std::size_t n, std::uint64_t seed) {
  const char* openings[] = {"", "春风", "明月松间照，", "山"};
  const char* heads[] = {"春花秋月", "江山如画"};
  std::vector<PoemRequest> requests(n);
  for (std::size_t i = 0; i < n; ++i) {
    requests[i].seed = seed + i;
    if (i % 4 == 3) {
      requests[i].heads = heads[(i / 4) % 2];
    } else {
      requests[i].opening = openings[i % 4];
    }
  }
  return requests;
}

std::vector<PoemRequest> shared_opening_requests(std::size_t n, std::uint64_t seed) {
  std::vector<PoemRequest> requests(n);
  for (std::size_t i = 0; i < n; ++i) {
    requests[i].opening = kSharedOpening;
    requests[i].seed = seed + i;
  }
  return requests;
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double rank = std::ceil(p / 100.0 * double(values.size()));
  const std::size_t i = rank < 1 ? 0 : static_cast<std::size_t>(rank) - 1;
  return values[std::min(i, values.size() - 1)];
}

std::vector<double> seconds_per_character(const std::vector<ServedPoem>& served) {
  std::vector<double> out;
  for (const ServedPoem& s : served) {
    if (s.characters > 1) out.push_back((s.seconds - s.first_seconds) / double(s.characters - 1));
  }
  return out;
}

}  // namespace tang
