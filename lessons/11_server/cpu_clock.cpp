#include "11_server/cpu_clock.hpp"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tang {

namespace {

// `clock`'s time in seconds (0 when it cannot be read).
double seconds_on(clockid_t clock) {
  timespec t{};
  if (clock_gettime(clock, &t) != 0) return 0;
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace

double thread_cpu_seconds() {
  return seconds_on(CLOCK_THREAD_CPUTIME_ID);
}

double thread_cpu_seconds(std::thread::native_handle_type thread) {
  clockid_t clock{};
  return pthread_getcpuclockid(thread, &clock) == 0 ? seconds_on(clock) : 0;
}

CpuParts CpuParts::of(const EngineCounters& k, double engine_cpu, double requests_cpu,
                      double probabilities_cpu) {
  CpuParts p;
  p.forward = k.forward_cpu_seconds;
  p.draw = k.draw_cpu_seconds;
  p.hand_off = k.hand_off_cpu_seconds;
  p.engine_rest = std::max(0.0, engine_cpu - p.forward - p.draw - p.hand_off);
  p.probabilities = probabilities_cpu;
  p.requests = std::max(0.0, requests_cpu - probabilities_cpu);
  return p;
}

void name_this_thread(const std::string& name) {
  pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
}

std::map<std::string, double> cpu_seconds_by_thread_name() {
  std::map<std::string, double> seconds;
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  std::error_code error;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", error)) {
    std::ifstream stat_file(task.path() / "stat");
    std::string line;
    if (!std::getline(stat_file, line)) continue;  // it ended meanwhile
    // "tid (name) state ..."; the name may hold spaces: it ends at the last ')'
    const std::size_t open = line.find('('), close = line.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    std::string field;
    for (int i = 3; i < 14; ++i) rest >> field;  // fields 3..13, then utime and stime
    double utime = 0, stime = 0;
    rest >> utime >> stime;
    seconds[line.substr(open + 1, close - open - 1)] += (utime + stime) / tick;
  }
  return seconds;
}

}  // namespace tang
