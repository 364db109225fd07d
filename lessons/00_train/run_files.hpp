// run_files.hpp: the files a training run writes, guarded.
//
// A run writes three files: the model (--out), the training state (--state)
// and the CSV log (--log). By default they go to runs/train/ in the source
// tree, never over the shipped model or its log (data/tang_gpt.safetensors,
// data/tang_gpt_training.csv) unless --overwrite-shipped says so. Everything
// is checked before step 1: the folders exist or can be made and are
// writable, and no other trainer is using the same state (a lock file).
//
// The log is whole rows only: each row is flushed as soon as it is written,
// a failed write stops the run, and a resumed run first cuts the log back to
// the step its state was saved at, so no step appears twice.
#pragma once

#include <cstdio>
#include <string>

namespace tang {

struct RunPaths {
  std::string out, state, log;
};

// The shipped files, which a run may only overwrite with --overwrite-shipped.
std::string shipped_model_path();
std::string shipped_log_path();

// Throws UserError naming the path when a run cannot write it.
void check_run_paths(const RunPaths& paths, bool overwrite_shipped);

// Holds an exclusive lock on <state>.lock for as long as it lives.
class StateLock {
 public:
  explicit StateLock(const std::string& state_path);
  ~StateLock();
  StateLock(const StateLock&) = delete;
  StateLock& operator=(const StateLock&) = delete;

 private:
  int fd_ = -1;
};

class TrainingLog {
 public:
  static constexpr const char* kHeader =
      "step,lr,train_loss,heldout_loss,grad_norm,tokens_per_s,elapsed_s";

  // A fresh log (saved_step 0) or the log of a resumed run, cut back to the
  // whole rows of steps 1 .. saved_step.
  TrainingLog(const std::string& path, long saved_step);
  ~TrainingLog();
  TrainingLog(const TrainingLog&) = delete;
  TrainingLog& operator=(const TrainingLog&) = delete;

  // Appends one row and flushes it; throws UserError when it cannot.
  void append(const std::string& row);

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
};

}  // namespace tang
