#include "00_train/run_files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "atomic_file.hpp"
#include "errors.hpp"

namespace tang {

namespace fs = std::filesystem;

std::string shipped_model_path() {
  return std::string(TANG_DATA_DIR) + "/tang_gpt.safetensors";
}
std::string shipped_log_path() {
  return std::string(TANG_DATA_DIR) + "/tang_gpt_training.csv";
}

namespace {

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return fs::weakly_canonical(a, ec) == fs::weakly_canonical(b, ec);
}

void check_writable(const std::string& flag, const std::string& path) {
  if (path.empty()) throw UserError(flag + " is empty: give a file path");
  const fs::path folder =
      fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path();
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) {
    throw UserError("cannot create the folder " + folder.string() + " for " + flag + " " + path +
                    " (" + ec.message() + ")");
  }
  if (!fs::is_directory(folder, ec) || ::access(folder.c_str(), W_OK | X_OK) != 0) {
    throw UserError("cannot write into " + folder.string() + " for " + flag + " " + path +
                    ": choose a writable folder");
  }
  const fs::file_status status = fs::symlink_status(path, ec);
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    throw UserError(flag + " " + path +
                    " exists and is not a regular file (a directory, device, "
                    "link or pipe): give the path of a file to write");
  }
}

}  // namespace

void check_run_paths(const RunPaths& p, bool overwrite_shipped) {
  if (!overwrite_shipped) {
    for (const auto& [flag, path] :
         {std::pair{"--out", p.out}, {"--log", p.log}, {"--state", p.state}}) {
      if (same_file(path, shipped_model_path()) || same_file(path, shipped_log_path())) {
        throw UserError(std::string(flag) + " " + path +
                        " is a file the course ships; write your run elsewhere (the default is "
                        "runs/train/), or pass --overwrite-shipped if you mean to replace it");
      }
    }
  }
  if (same_file(p.out, p.state) || same_file(p.out, p.log) || same_file(p.state, p.log)) {
    throw UserError("--out, --state and --log must be three different files");
  }
  check_writable("--out", p.out);
  check_writable("--state", p.state);
  check_writable("--log", p.log);
}

StateLock::StateLock(const std::string& state_path) {
  const std::string lock_path = state_path + ".lock";
  fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    throw UserError("cannot create the lock file " + lock_path + " (" + std::strerror(errno) + ")");
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    fd_ = -1;
    throw UserError("another lesson_00_train is training with --state " + state_path +
                    " (it holds " + lock_path + "): wait for it, or use another --state");
  }
}

StateLock::~StateLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

namespace {

// The rows of an existing log for steps 1 .. last: whole rows (7 fields, a
// step number) in increasing step order; anything after a damaged row goes.
std::string rows_up_to(const std::string& path, long last) {
  std::ifstream in(path, std::ios::binary);
  std::string kept = std::string(TrainingLog::kHeader) + "\n";
  std::string line;
  long previous = 0;
  bool first = true;
  while (std::getline(in, line)) {
    if (first) {  // the header
      first = false;
      if (line == TrainingLog::kHeader) continue;
    }
    if (in.eof()) break;  // no newline after it: cut off mid-row
    long fields = 1;
    for (char c : line) fields += c == ',';
    long step = 0;
    try {
      step = std::stol(line);
    } catch (const std::exception&) {
      break;
    }
    if (fields != 7 || step != previous + 1 || step > last) break;
    kept += line + "\n";
    previous = step;
  }
  return kept;
}

}  // namespace

TrainingLog::TrainingLog(const std::string& path, long saved_step) : path_(path) {
  // start from the header alone, or the resumed run's rows; replace atomically
  const std::string rows = saved_step > 0 && fs::exists(path) ? rows_up_to(path, saved_step)
                                                              : std::string(kHeader) + "\n";
  write_file_atomically(path, rows);
  file_ = std::fopen(path.c_str(), "ab");
  if (file_ == nullptr) {
    throw UserError("cannot write the log " + path + " (" + std::strerror(errno) + ")");
  }
}

TrainingLog::~TrainingLog() {
  if (file_ != nullptr) std::fclose(file_);
}

void TrainingLog::append(const std::string& row) {
  if (std::fputs((row + "\n").c_str(), file_) == EOF || std::fflush(file_) != 0) {
    throw UserError("cannot write the log " + path_ + " (" + std::strerror(errno) +
                    "): is the disk full? Training stopped; the state saved last is intact, "
                    "continue with --resume once there is room");
  }
}

}  // namespace tang
