#include "11_server/cpu_clock.hpp"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace tang {

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
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
