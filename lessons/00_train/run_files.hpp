// run_files.hpp: the files a training run writes, guarded.
//
// A run writes three files: the model (--out), the training state (--state)
// and the CSV log (--log). By default they go to runs/train/ in the source
// tree. The rules, all checked before step 1:
//
//   - a run never replaces a file it did not write: an existing --out or --log
//     is refused unless the run resumes the run that wrote them (the state
//     records its outputs) or --overwrite says so;
//   - no output is an input of the run (--data) or a file the course ships
//     (anything in data/); the shipped model and its log only with
//     --overwrite-shipped;
//   - each output is locked (<file>.lock, removed at the end): two runs can
//     never write the same file;
//   - a run refused before step 1 leaves the disk as it found it (no lock
//     files, no folders, the log untouched).
//
// The log is whole rows only: each row is flushed as soon as it is written,
// a failed write stops the run, and a resumed run first cuts the log back to
// the step its state was saved at, so no step appears twice.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace tang {

struct RunPaths {
  std::string out, state, log;
};

// The shipped files, which a run may only overwrite with --overwrite-shipped.
std::string shipped_model_path();
std::string shipped_log_path();

// What a run may do to existing files.
struct OutputRules {
  std::string data;                // the corpus the run reads
  bool overwrite_shipped = false;  // --overwrite-shipped
  bool overwrite = false;          // --overwrite
};

// The same file, whatever the spelling ("a/../b", a link): its canonical path.
std::string canonical_path(const std::string& path);

// Holds the three outputs of a run: checked, their folders made, each locked,
// from construction until destruction (which removes the lock files, and the
// folders it made while they are still empty). Throws UserError naming the
// flag, the path and what to do when a rule above is broken.
class RunOutputs {
 public:
  RunOutputs(const RunPaths& paths, const OutputRules& rules);
  ~RunOutputs();
  RunOutputs(const RunOutputs&) = delete;
  RunOutputs& operator=(const RunOutputs&) = delete;

  // Removes the lock files now; safe in a signal handler (a run that stops at
  // once, on a second signal, calls it before _exit).
  static void remove_lock_files_now() noexcept;

  // Refuses an existing --out or --log that `written_by_run` (the outputs the
  // resumed state recorded, canonical) does not list, unless --overwrite.
  void refuse_replacing(const std::vector<std::string>& written_by_run) const;

 private:
  void release() noexcept;
  RunPaths paths_;
  OutputRules rules_;
  std::vector<std::string> made_folders_;           // outermost last
  std::vector<std::pair<int, std::string>> locks_;  // fd, lock file
};

class TrainingLog {
 public:
  static constexpr const char* kHeader =
      "step,lr,train_loss,heldout_loss,grad_norm,tokens_per_s,elapsed_s";

  // A fresh log (saved_step 0) or the log of a resumed run, cut back to the
  // whole rows of steps 1 .. saved_step. Nothing is written until the first row.
  TrainingLog(const std::string& path, long saved_step);
  ~TrainingLog();
  TrainingLog(const TrainingLog&) = delete;
  TrainingLog& operator=(const TrainingLog&) = delete;

  // Appends one row and flushes it; throws UserError when it cannot.
  void append(const std::string& row);

 private:
  void open();
  std::string path_;
  long saved_step_;
  std::FILE* file_ = nullptr;
};

}  // namespace tang
