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

namespace tang {

// The calling thread's CPU time so far, in seconds (CLOCK_THREAD_CPUTIME_ID).
double thread_cpu_seconds();

// Names this thread (as `top -H` and /proc show it; up to 15 characters).
void name_this_thread(const std::string& name);

// Every thread of this process by name, with the CPU seconds its threads of
// that name have used so far (from /proc/self/task: threads still running,
// to the scheduler's tick, 10 ms).
std::map<std::string, double> cpu_seconds_by_thread_name();

}  // namespace tang
