#include "00_train/run_files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
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

std::string canonical_path(const std::string& path) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return ec ? path : p.string();
}

namespace {

// The folder a path's file goes in ("." for a bare name).
fs::path folder_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

// Checks what can be checked without touching the disk: a file path, not a
// directory or device, in a folder that exists or could be made.
void check_output_path(const std::string& flag, const std::string& path) {
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(path, ec);
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    throw UserError(flag + " " + path +
                    " exists and is not a regular file (a directory, device, "
                    "link or pipe): give the path of a file to write");
  }
  fs::path existing = fs::absolute(folder_of(path), ec);  // its nearest existing folder
  while (!fs::exists(existing, ec) && existing.has_parent_path() &&
         existing != existing.parent_path()) {
    existing = existing.parent_path();
  }
  if (!fs::is_directory(existing, ec) || ::access(existing.c_str(), W_OK | X_OK) != 0) {
    throw UserError("cannot write into " + existing.string() + " for " + flag + " " + path +
                    ": choose a writable folder");
  }
}

// The lock files held, for remove_lock_files_now(): plain pointers into
// RunOutputs::locks_, which outlives every use (only unlink(2) reads them).
const char* g_lock_files[3] = {nullptr, nullptr, nullptr};

}  // namespace

void RunOutputs::remove_lock_files_now() noexcept {
  for (const char*& path : g_lock_files) {
    if (path != nullptr) ::unlink(path);
    path = nullptr;
  }
}

RunOutputs::RunOutputs(const RunPaths& p, const OutputRules& rules) : paths_(p), rules_(rules) {
  const std::vector<std::pair<std::string, std::string>> outputs = {
      {"--out", p.out}, {"--state", p.state}, {"--log", p.log}};
  const std::string model = canonical_path(shipped_model_path());
  const std::string log = canonical_path(shipped_log_path());
  const std::string data_folder = canonical_path(TANG_DATA_DIR) + "/";
  const std::string corpus = canonical_path(rules.data);
  std::vector<std::string> canonical;  // of out, state, log
  for (const auto& [flag, path] : outputs) {
    if (path.empty()) throw UserError(flag + " is empty: give a file path");
    const std::string& c = canonical.emplace_back(canonical_path(path));
    const bool shipped = c == model || c == log;
    if (shipped && !(rules.overwrite_shipped && flag != "--state")) {
      throw UserError(flag + " " + path +
                      " is a file the course ships; write your run elsewhere (the default is "
                      "runs/train/), or pass --overwrite-shipped if you mean to replace it");
    }
    if (!shipped && c.rfind(data_folder, 0) == 0) {
      throw UserError(flag + " " + path + " is in the course's data folder " +
                      std::string(TANG_DATA_DIR) +
                      ", whose files the lessons read: write your run elsewhere (the default "
                      "is runs/train/)");
    }
    if (c == corpus) {
      throw UserError(flag + " " + path +
                      " is the corpus this run reads (--data): write the run's files elsewhere");
    }
  }
  if (canonical[0] == canonical[1] || canonical[0] == canonical[2] ||
      canonical[1] == canonical[2]) {
    throw UserError("--out, --state and --log must be three different files");
  }
  for (const auto& [flag, path] : outputs) check_output_path(flag, path);

  // Only now does the disk change: folders, then one lock per output.
  try {
    for (const auto& [flag, path] : outputs) {
      std::vector<fs::path> missing;
      std::error_code ec;
      for (fs::path f = fs::absolute(folder_of(path), ec); !fs::exists(f, ec);
           f = f.parent_path()) {
        missing.push_back(f);
      }
      for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
        if (!fs::create_directory(*it, ec) && ec) {
          throw UserError("cannot create the folder " + folder_of(path).string() + " for " + flag +
                          " " + path + " (" + ec.message() + ")");
        }
        made_folders_.insert(made_folders_.begin(), it->string());  // innermost first
      }
      const std::string lock_path = path + ".lock";
      for (;;) {
        const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0) {
          throw UserError("cannot create the lock file " + lock_path + " for " + flag + " (" +
                          std::strerror(errno) + ")");
        }
        if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
          ::close(fd);
          throw UserError(flag == "--state" ? "another lesson_00_train is training with --state " +
                                                  path + " (it holds " + lock_path +
                                                  "): wait for it, or use another --state"
                                            : "another lesson_00_train is writing " + flag + " " +
                                                  path + " (it holds " + lock_path +
                                                  "): wait for it, or choose another " + flag);
        }
        // Its last holder may have removed the file between our open and flock:
        // keep the lock only if it is still the file at that path.
        struct stat held {
        }, named{};
        if (::fstat(fd, &held) == 0 && ::stat(lock_path.c_str(), &named) == 0 &&
            held.st_ino == named.st_ino && held.st_dev == named.st_dev) {
          locks_.emplace_back(fd, lock_path);
          break;
        }
        ::close(fd);
      }
    }
  } catch (...) {
    release();
    throw;
  }
  for (std::size_t i = 0; i < locks_.size() && i < 3; ++i)
    g_lock_files[i] = locks_[i].second.c_str();
}

void RunOutputs::refuse_replacing(const std::vector<std::string>& written_by_run) const {
  if (rules_.overwrite) return;
  for (const auto& [flag, path] : {std::pair{"--out", paths_.out}, {"--log", paths_.log}}) {
    if (!fs::exists(path)) continue;
    const std::string canonical = canonical_path(path);
    if (std::find(written_by_run.begin(), written_by_run.end(), canonical) != written_by_run.end())
      continue;
    throw UserError(std::string(flag) + " " + path +
                    " already exists and this run did not write it: choose another " + flag +
                    ", continue the run that wrote it with its --state and --resume, or pass "
                    "--overwrite to replace it");
  }
}

void RunOutputs::release() noexcept {
  for (const char*& path : g_lock_files) path = nullptr;
  for (const auto& [fd, lock_path] : locks_) {
    ::unlink(lock_path.c_str());  // while still held: no one else holds this file
    ::close(fd);
  }
  locks_.clear();
  std::error_code ec;
  for (const std::string& folder : made_folders_) fs::remove(folder, ec);  // only if empty
  made_folders_.clear();
}

RunOutputs::~RunOutputs() {
  // the folders stay once they hold a file of the run; fs::remove leaves them then
  release();
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

TrainingLog::TrainingLog(const std::string& path, long saved_step)
    : path_(path), saved_step_(saved_step) {}

void TrainingLog::open() {
  // start from the header alone, or the resumed run's rows; replace atomically
  const std::string rows = saved_step_ > 0 && fs::exists(path_) ? rows_up_to(path_, saved_step_)
                                                                : std::string(kHeader) + "\n";
  write_file_atomically(path_, rows);
  file_ = std::fopen(path_.c_str(), "ab");
  if (file_ == nullptr) {
    throw UserError("cannot write the log " + path_ + " (" + std::strerror(errno) + ")");
  }
}

TrainingLog::~TrainingLog() {
  if (file_ != nullptr) std::fclose(file_);
}

void TrainingLog::append(const std::string& row) {
  if (file_ == nullptr) open();
  if (std::fputs((row + "\n").c_str(), file_) == EOF || std::fflush(file_) != 0) {
    throw UserError("cannot write the log " + path_ + " (" + std::strerror(errno) +
                    "): is the disk full? Training stopped; the state saved last is intact, "
                    "continue with --resume once there is room");
  }
}

}  // namespace tang
