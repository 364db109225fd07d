// cpu_clock.hpp: CPU time, a thread's and the process's threads' by name, for
// where the server's time goes (serve_bench's breakdown).
//
// The wall clock counts a thread's waits as its time; a CPU clock counts only
// what it ran. A server on 2 cores runs its engine, its requests' threads and
// the HTTP library's thread side by side, so each part is timed on its own
// thread's CPU clock and the parts add up to the CPU time the server used.
#pragma once

#include <map>
#include <string>
#include <thread>

#include "11_server/engine_options.hpp"  // EngineCounters

namespace tang {

// The calling thread's CPU time so far, in seconds (CLOCK_THREAD_CPUTIME_ID).
double thread_cpu_seconds();
// Another thread's (std::thread::native_handle()), while it runs.
double thread_cpu_seconds(std::thread::native_handle_type thread);

// Names this thread (as `top -H` and /proc show it; up to 15 characters).
void name_this_thread(const std::string& name);

// Every thread of this process by name, with the CPU seconds its threads of
// that name have used so far (from /proc/self/task: threads still running,
// to the scheduler's tick, 10 ms).
std::map<std::string, double> cpu_seconds_by_thread_name();

// Where a server's CPU time went over a run: the engine's thread (its forward
// passes, its draws, its hand-offs to the requests' threads, the rest of its
// loop), the probabilities (requests that asked for logprobs) and the rest of
// the requests' threads (HTTP over the network; in-process, the clients).
struct CpuParts {
  double forward = 0, draw = 0, probabilities = 0, hand_off = 0, engine_rest = 0, requests = 0;
  // `k`: the engine's counters over the run; the engine's and the requests' threads'
  // CPU seconds over it, and of those the probabilities'.
  static CpuParts of(const EngineCounters& k, double engine_cpu, double requests_cpu,
                     double probabilities_cpu);
  double total() const {
    return forward + draw + probabilities + hand_off + engine_rest + requests;
  }
  double besides() const { return total() - forward; }  // what the forward passes leave
};

}  // namespace tang
