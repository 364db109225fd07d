// faults_test: the programs under odd files, signals, full outputs and extreme
// values (label robustness). Each test names what used to go wrong; the
// signal and full-disk drills are scripts/fault_drill.sh (test fault_drill).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "checkpoint.hpp"
#include "errors.hpp"
#include "gpt.hpp"
#include "lesson.hpp"
#include "options.hpp"
#include "parameters.hpp"
#include "run_command.hpp"

namespace fs = std::filesystem;

namespace {

const std::string kModel = std::string(TANG_DATA_DIR) + "/tang_gpt.safetensors";
const std::string kShippedLog = std::string(TANG_DATA_DIR) + "/tang_gpt_training.csv";

using tang_tests::command_line;
using tang_tests::Outcome;

std::string quote(const std::string& arg) {
  return tang_tests::shell_quote(arg);
}

class Scratch {
 public:
  Scratch() : path_(fs::temp_directory_path() / ("tang_faults_test_" + std::to_string(getpid()))) {
    fs::create_directories(path_);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  fs::path operator/(const std::string& name) const { return path_ / name; }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

Scratch& scratch() {
  static Scratch s;
  return s;
}

std::string read(const fs::path& p) {
  return tang_tests::read_file(p);
}

// Runs a shell command line; stdout and stderr captured separately.
Outcome sh(const std::string& command) {
  return tang_tests::run_command(command, scratch().path());
}

Outcome run(const std::string& exe, const std::vector<std::string>& args) {
  return sh(command_line(exe, args));
}

// One "error:" line on stderr that contains `needle`.
void expect_one_error_line(const Outcome& r, const std::string& needle) {
  EXPECT_NE(r.status, 0) << r.err;
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << "expected '" << needle << "' in: " << r.err;
}

#define REQUIRE_MODEL() \
  if (!fs::exists(kModel)) GTEST_SKIP() << kModel << " is missing"

// A tiny model with a chosen vocabulary, written to the scratch folder.
std::string write_tiny_model(const std::string& name, std::vector<std::string> vocab,
                             float lnf_bias = 0.0f) {
  tang::GPTConfig config{vocab.size(), 8, 1, 2, 4};
  tang::Tensor<1> params = tang::Tensor<1>::from_shape({tang::parameter_count(config)});
  tang::Rng rng(7);
  tang::initialise_parameters(config, params.data(), rng);
  const tang::GPTWeights w = tang::bind_weights(config, params.data());
  if (lnf_bias != 0.0f) {  // every logit then sums C terms of 3e38: past the float range
    for (std::size_t i = 0; i < config.n_embd; ++i) w.lnf_b[i] = lnf_bias;
    for (std::size_t i = 0; i < config.vocab_size * config.n_embd; ++i) w.wte[i] = 1.0f;
  }
  const tang::GPT model(config, tang::Tokenizer(std::move(vocab)), std::move(params));
  const std::string path = (scratch() / name).string();
  tang::save_checkpoint(path, model);
  return path;
}

// --- lessons ------------------------------------------------------------------------------

TEST(LessonFaults, AVocabularyWithoutTheFullStopIsNamedNotACrash) {
  // used to crash every lesson: probabilities_section dereferenced find("。") unchecked
  const std::string model = write_tiny_model("no_full_stop.safetensors", {"\n", "春", "风", "，"});
  const Outcome r = run(TANG_LESSON_05, {"--checkpoint", model, "--prompt", "春风"});
  expect_one_error_line(r, "has no '。' in its vocabulary");
  EXPECT_NE(r.err.find(model), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "") << "nothing may be printed before the error";
}

TEST(LessonFaults, HugeFiniteWeightsAreReportedNotPrintedAsNan) {
  // ln_f.bias = 3e38 passes the NaN check; the logits overflow: used to print -nan%
  const std::string model =
      write_tiny_model("huge_bias.safetensors", {"\n", "春", "风", "，", "。"}, 3e38f);
  const Outcome r = run(TANG_LESSON_01, {"--checkpoint", model, "--prompt", "春风"});
  expect_one_error_line(r, "not a finite number");
  EXPECT_EQ(r.out.find("nan"), std::string::npos) << r.out;
}

TEST(LessonFaults, ATinyTemperatureIsGreedyNotNan) {
  // 1e-40 passed the [0, 10] check and z / T overflowed: every section printed ，，，，
  REQUIRE_MODEL();
  const std::vector<std::string> short_run = {"--checkpoint", kModel,    "--length",
                                              "16",           "--heads", "春风"};
  std::vector<std::string> args = short_run;
  args.insert(args.end(), {"--temperature", "1e-40"});
  const Outcome r = run(TANG_LESSON_05, args);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find("，，"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("nan"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("T = 9.999946e-41"), std::string::npos) << "the label shows the value";
  args = short_run;
  args.insert(args.end(), {"--temperature", "0"});
  const Outcome greedy = run(TANG_LESSON_05, args);
  // the same characters as greedy decoding, under another label
  // (section 2's table of the spread: its T column differs, the numbers must not)
  EXPECT_NE(r.out.find("9.999946e-41    0.00         1.0     100.0%      1 characters"),
            std::string::npos)
      << r.out;
  auto body = [](const std::string& out) {
    std::string text = out.substr(out.find("== 2."));
    const auto table = text.find("After 「"), poems = text.find("Divide the logits");
    if (table != std::string::npos && poems != std::string::npos) text.erase(table, poems - table);
    return text;
  };
  std::string a = body(r.out), b = body(greedy.out);
  for (std::string* s : {&a, &b}) {
    for (const std::string label : {"T = 9.999946e-41", "T = 0.0 (greedy)", "T = 0.0"}) {
      for (std::size_t at; (at = s->find(label)) != std::string::npos;) s->erase(at, label.size());
    }
  }
  EXPECT_EQ(a, b);
}

TEST(LessonFaults, LabelsKeepTheirDigits) {
  // T = 0.04 used to show as "T = 0.0", p = 1e-6 as "p = 0.00"
  EXPECT_EQ(tang::label(0.04f), "0.04");
  EXPECT_EQ(tang::label(1e-6f), "1e-06");
  EXPECT_EQ(tang::label(1.0f), "1.0");
  EXPECT_EQ(tang::label(0.9f), "0.9");
}

TEST(LessonFaults, OddFilesAsCheckpointAreNamedForWhatTheyAre) {
  // a directory, FIFO, device or symlink loop used to be "not found"; a FIFO hung
  const fs::path fifo = scratch() / "fifo", loop = scratch() / "loop";
  ::mkfifo(fifo.c_str(), 0600);
  fs::create_symlink(loop, loop);
  const std::pair<std::string, std::string> cases[] = {
      {scratch() / "", "is a directory"},
      {fifo, "is a FIFO"},
      {"/dev/null", "is a device"},
      {loop, "cannot be reached"},
  };
  for (const auto& [path, needle] : cases) {
    const Outcome r = sh("timeout 20 " + quote(TANG_LESSON_01) + " --checkpoint " + quote(path));
    expect_one_error_line(r, needle);
  }
}

TEST(LessonFaults, ACheckpointWithAHugeTailIsRefusedWithoutReadingIt) {
  // a 2 GB file (a valid model plus a sparse tail) took 15 s and 3.9 GB to be refused
  REQUIRE_MODEL();
  const fs::path big = scratch() / "big.safetensors";
  fs::copy_file(kModel, big);
  fs::resize_file(big, std::uintmax_t{2} << 30);
  const Outcome r = run(TANG_LESSON_01, {"--checkpoint", big.string()});
  expect_one_error_line(r, "is longer than its header says");
  fs::remove(big);
}

TEST(LessonFaults, ADirectoryOrEmptyFileAsCorpusIsAFlagError) {
  // used to print "0 of 0 times = 0.0%" and exit 0
  REQUIRE_MODEL();
  std::ofstream(scratch() / "empty.txt");
  for (const auto& [path, needle] :
       {std::pair<std::string, std::string>{scratch() / "", "is not a regular file"},
        {scratch() / "empty.txt", "is empty"}}) {
    const Outcome r = run(TANG_LESSON_01, {"--checkpoint", kModel, "--corpus", path});
    expect_one_error_line(r, needle);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out, "");
  }
}

TEST(LessonFaults, AFullOrClosedStdoutIsAnError) {
  // used to exit 0 with nothing written
  REQUIRE_MODEL();
  for (const std::string redirect : {">/dev/full", ">&-"}) {
    const fs::path err = scratch() / "err.txt";
    const int status = std::system((quote(TANG_LESSON_01) + " --checkpoint " + quote(kModel) + " " +
                                    redirect + " 2>" + quote(err))
                                       .c_str());
    EXPECT_NE(WEXITSTATUS(status), 0) << redirect;
    EXPECT_NE(read(err).find("could not write the output of lesson_01_probabilities"),
              std::string::npos)
        << read(err);
  }
}

TEST(LessonFaults, InvisibleCharactersAreEscaped) {
  // a zero-width joiner, U+202E, combining marks and C1 controls printed raw
  EXPECT_EQ(tang::show_invisible("a\u200db"), "a\\u{200D}b");
  EXPECT_EQ(tang::show_invisible("\u202e"), "\\u{202E}");
  EXPECT_EQ(tang::show_invisible("e\u0301"), "e\\u{0301}");
  EXPECT_EQ(tang::show_invisible("\xc2\x85"), "\\u{0085}");
  EXPECT_EQ(tang::show_invisible("春风"), "春风");
  EXPECT_EQ(tang::printable("\u200d"), "\\u{200D}");
  const Outcome r = run(TANG_LESSON_01, {"--prompt", "春\u202e风"});
  expect_one_error_line(r, "\\u{202E}");
}

TEST(LessonFaults, AHugeConfigIsRefusedWithItsSizesBeforeAllocating) {
  // vocabulary 100,000 and context 65,536 made a lesson allocate 26 GB of logits
  tang::GPTConfig config{100000, 65536, 1, 1, 1};
  EXPECT_NO_THROW(tang::Activations(config, 1, tang::Keep::kLastLogits));  // writing needs 1 row
  try {
    tang::Activations(config, 32, tang::Keep::kEverything);
    FAIL() << "838 GB of activations must be refused";
  } catch (const tang::UserError& e) {
    EXPECT_NE(std::string(e.what()).find("GB of activations"), std::string::npos) << e.what();
  }
}

// --- the trainer ---------------------------------------------------------------------------

std::vector<std::string> tiny_run(const std::string& dir) {
  fs::create_directories(dir);
  const std::string corpus = dir + "/poems.txt";
  if (!fs::exists(corpus)) {
    std::ifstream in(std::string(TANG_DATA_DIR) + "/tang_poems.txt");
    std::ofstream out(corpus);
    std::string line;
    for (int i = 0; i < 200 && std::getline(in, line); ++i) out << line << "\n";
  }
  return {"--data",       corpus,
          "--layers",     "1",
          "--heads",      "2",
          "--dims",       "8",
          "--batch",      "2",
          "--block-size", "8",
          "--steps",      "20",
          "--warmup",     "2",
          "--eval-every", "10",
          "--threads",    "1",
          "--out",        dir + "/m.safetensors",
          "--state",      dir + "/s.safetensors",
          "--log",        dir + "/log.csv"};
}

TEST(TrainerFaults, NeverWritesTheShippedModelOrLog) {
  // `lesson_00_train --resume` on a fresh clone overwrote data/tang_gpt.safetensors
  const std::string dir = scratch() / "shipped";
  for (const auto& [flag, path] :
       {std::pair<std::string, std::string>{"--out", kModel}, {"--log", kShippedLog}}) {
    std::vector<std::string> args = tiny_run(dir);
    for (std::size_t i = 0; i + 1 < args.size(); ++i) {
      if (args[i] == flag) args[i + 1] = path;
    }
    const auto before = fs::exists(path) ? fs::last_write_time(path) : fs::file_time_type{};
    const Outcome r = run(TANG_TRAINER, args);
    expect_one_error_line(r, "is a file the course ships");
    if (fs::exists(path)) {
      EXPECT_EQ(fs::last_write_time(path), before);
    }
  }
}

TEST(TrainerFaults, DefaultOutputsGoToTheirOwnFolder) {
  const Outcome r = run(TANG_TRAINER, {"--help"});
  EXPECT_NE(r.out.find("runs/train/tang_gpt.safetensors"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--overwrite-shipped"), std::string::npos) << r.out;
}

TEST(TrainerFaults, OutputPathsAreCheckedBeforeStepOne) {
  // --out in a missing folder used to fail only at the first export; /proc was "internal"
  std::vector<std::string> args = tiny_run(scratch() / "paths");
  *(std::find(args.begin(), args.end(), "--out") + 1) = "/proc/no/such/m.safetensors";
  const Outcome r = run(TANG_TRAINER, args);
  expect_one_error_line(r, "cannot create the folder /proc/no/such");
  EXPECT_EQ(r.out.find("step"), std::string::npos) << "no step may run: " << r.out;
}

TEST(TrainerFaults, TwoTrainersCannotShareOneState) {
  const std::vector<std::string> args = tiny_run(scratch() / "locked");
  const std::string lock = (scratch() / "locked" / "s.safetensors.lock").string();
  const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  const Outcome r = run(TANG_TRAINER, args);
  expect_one_error_line(r, "another lesson_00_train is training with --state");
  ::close(fd);
  EXPECT_EQ(run(TANG_TRAINER, args).status, 0) << "once the lock is free it trains";
}

TEST(TrainerFaults, APlantedSymlinkAtTheOldTemporaryNameIsNotFollowed) {
  // <state>.tmp used to be opened with truncation, following a link to any file
  const std::string dir = scratch() / "symlink";
  const std::vector<std::string> args = tiny_run(dir);
  const fs::path victim = scratch() / "victim.txt";
  std::ofstream(victim) << "keep me";
  fs::create_symlink(victim, dir + "/s.safetensors.tmp");
  fs::create_symlink(victim, dir + "/m.safetensors.tmp");
  ASSERT_EQ(run(TANG_TRAINER, args).status, 0);
  EXPECT_EQ(read(victim), "keep me");
}

TEST(TrainerFaults, AFreshStartOverAnExistingStateIsRefused) {
  const std::vector<std::string> args = tiny_run(scratch() / "fresh");
  ASSERT_EQ(run(TANG_TRAINER, args).status, 0);
  expect_one_error_line(run(TANG_TRAINER, args), "continue it with --resume");
}

TEST(TrainerFaults, TheLogIsCutBackToTheSavedStepOnResume) {
  // after kill -9 the log could end mid-row and --resume appended to it (a merged row)
  const std::string dir = scratch() / "cutback";
  std::vector<std::string> args = tiny_run(dir);
  args.insert(args.end(), {"--save-every", "5", "--stop-at", "10"});
  ASSERT_EQ(run(TANG_TRAINER, args).status, 0);
  {  // as if killed after step 12 was half written
    std::ofstream log(dir + "/log.csv", std::ios::app);
    log << "11,0.001,5.0,,1.0,100,1.0\n12,0.0";
  }
  args.back() = "20";
  args.push_back("--resume");
  ASSERT_EQ(run(TANG_TRAINER, args).status, 0);
  std::istringstream rows(read(dir + "/log.csv"));
  std::string line;
  std::getline(rows, line);
  for (long step = 1; std::getline(rows, line); ++step) {
    EXPECT_EQ(std::count(line.begin(), line.end(), ','), 6) << line;
    EXPECT_EQ(std::stol(line), step) << line;
    if (step == 20) {
      EXPECT_FALSE(std::getline(rows, line)) << "nothing after step 20";
    }
  }
}

// Every file under `dir`, with its contents: what a refused run must leave as it was.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    files[entry.path().string()] = entry.is_regular_file() ? read(entry.path()) : "(folder)";
  }
  return files;
}

void set_flag(std::vector<std::string>& args, const std::string& flag, const std::string& value) {
  auto it = std::find(args.begin(), args.end(), flag);
  if (it == args.end()) {
    args.insert(args.end(), {flag, value});
  } else {
    *(it + 1) = value;
  }
}

TEST(TrainerFaults, AnExistingOutOrLogIsReplacedOnlyWhenAsked) {
  // a fresh run silently replaced an existing --out model and --log
  const std::string dir = scratch() / "theirs";
  for (const std::string flag : {"--out", "--log"}) {
    std::vector<std::string> args = tiny_run(dir);
    const std::string theirs = dir + "/theirs_" + flag.substr(2);
    std::ofstream(theirs) << "keep me";
    set_flag(args, flag, theirs);
    const auto before = snapshot(dir);
    const Outcome r = run(TANG_TRAINER, args);
    expect_one_error_line(r, flag + " " + theirs + " already exists and this run did not write it");
    EXPECT_NE(r.err.find("--overwrite"), std::string::npos) << r.err;
    EXPECT_EQ(snapshot(dir), before) << "a refused run changes nothing";
    args.push_back("--overwrite");
    EXPECT_EQ(run(TANG_TRAINER, args).status, 0) << "--overwrite replaces it";
    EXPECT_NE(read(theirs), "keep me");
    fs::remove(dir + "/s.safetensors");
  }
}

TEST(TrainerFaults, AResumedRunReplacesOnlyTheFilesItsStateWrote) {
  const std::string dir = scratch() / "own";
  std::vector<std::string> args = tiny_run(dir);
  set_flag(args, "--stop-at", "10");
  ASSERT_EQ(run(TANG_TRAINER, args).status, 0);
  set_flag(args, "--stop-at", "20");
  args.push_back("--resume");
  EXPECT_EQ(run(TANG_TRAINER, args).status, 0) << "its own --out and --log";
  std::ofstream(dir + "/other.csv") << "keep me";
  set_flag(args, "--log", dir + "/other.csv");
  expect_one_error_line(run(TANG_TRAINER, args), "did not write it");
  EXPECT_EQ(read(dir + "/other.csv"), "keep me");
}

TEST(TrainerFaults, NoOutputIsAnInputOrAFileOfTheDataFolder) {
  // --out X --data X replaced the corpus; --log data/tones.tsv was taken;
  // --state data/rhymes.tsv left data/rhymes.tsv.lock behind
  const std::string dir = scratch() / "inputs";
  const std::vector<std::string> base = tiny_run(dir);
  const std::string corpus = base[1];
  const std::string data = TANG_DATA_DIR;
  const auto data_before = snapshot(data);
  const std::pair<std::string, std::string> cases[] = {
      {"--out", corpus},
      {"--log", corpus},
      {"--state", corpus},
      {"--out", data + "/tang_poems.txt"},
      {"--log", data + "/tones.tsv"},
      {"--state", data + "/rhymes.tsv"},
  };
  for (const auto& [flag, path] : cases) {
    std::vector<std::string> args = base;
    set_flag(args, flag, path);
    args.push_back("--overwrite");  // not even when told to overwrite
    const auto before = snapshot(dir);
    const Outcome r = run(TANG_TRAINER, args);
    expect_one_error_line(r, flag + " " + path + " is ");
    EXPECT_EQ(snapshot(dir), before) << flag << " " << path;
  }
  EXPECT_EQ(snapshot(data), data_before) << "nothing in data/ changed, no lock file left";
}

TEST(TrainerFaults, ARunRefusedBeforeStepOneChangesNothing) {
  // --block-size larger than the corpus failed after cutting the log back to its header
  const std::string dir = scratch() / "nothing";
  std::vector<std::string> args = tiny_run(dir);
  {  // 20 poems, about 1,200 characters
    std::ifstream in(args[1]);
    std::ofstream few(dir + "/few.txt");
    std::string line;
    for (int i = 0; i < 20 && std::getline(in, line); ++i) few << line << "\n";
  }
  set_flag(args, "--data", dir + "/few.txt");
  ASSERT_EQ(run(TANG_TRAINER, args).status, 0);
  set_flag(args, "--block-size", "4096");
  set_flag(args, "--out", dir + "/new/deeper/m.safetensors");
  args.push_back("--resume");
  const auto before = snapshot(dir);
  const Outcome r = run(TANG_TRAINER, args);
  expect_one_error_line(r, "fewer than one training window");
  EXPECT_EQ(snapshot(dir), before) << "the log, the state, no new folder, no lock file";
}

TEST(TrainerFaults, TwoRunsCannotShareAnOutput) {
  // two trainers with their own --state but one --out and --log both ran; the log
  // held only the second run's rows
  for (const std::string flag : {"--out", "--log"}) {
    const std::string dir = scratch() / ("shared" + flag.substr(2));
    const std::vector<std::string> args = tiny_run(dir);
    const std::string path = *(std::find(args.begin(), args.end(), flag) + 1);
    const int fd = ::open((path + ".lock").c_str(), O_RDWR | O_CREAT, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);  // as a running trainer holds it
    expect_one_error_line(run(TANG_TRAINER, args), "another lesson_00_train is writing " + flag);
    EXPECT_FALSE(fs::exists(dir + "/s.safetensors")) << "the refused run wrote nothing";
    ::close(fd);
    EXPECT_EQ(run(TANG_TRAINER, args).status, 0) << "once the lock is free it trains";
    EXPECT_FALSE(fs::exists(path + ".lock")) << "a run removes its lock files at the end";
  }
}

TEST(TrainerFaults, ASignalDuringTheHeldOutEvaluationStopsItAndResumingEvaluatesThatStep) {
  // Ctrl-C to a trainer evaluating every step waited for the whole evaluation,
  // said nothing, and ignored a second Ctrl-C
  const std::string dir = scratch() / "eval_signal";
  std::vector<std::string> args = tiny_run(dir);
  set_flag(args, "--data", std::string(TANG_DATA_DIR) + "/tang_poems.txt");  // 130,000 held out
  set_flag(args, "--batch", "1");  // an evaluation of 16,000 windows against a step of 1
  set_flag(args, "--eval-every", "1");
  // Evaluations take nearly all of the run's time, but on a busy machine a step and
  // its save can stall long enough for the signal to land between two of them: the
  // trainer says where it stopped, and such a try is made again from the start.
  Outcome stopped;
  for (int attempt = 1; attempt <= 3; ++attempt) {
    for (const char* file : {"/s.safetensors", "/m.safetensors", "/log.csv"})
      fs::remove(dir + file);
    stopped = sh("(" + command_line(TANG_TRAINER, args) +
                 " & pid=$!; sleep 6; kill -INT $pid; wait $pid)");
    ASSERT_EQ(stopped.status, 128 + SIGINT) << stopped.err;
    if (stopped.err.find("in the held-out evaluation of step") != std::string::npos) break;
  }
  EXPECT_NE(stopped.err.find("stopping: finishing this step"), std::string::npos) << stopped.err;
  ASSERT_NE(stopped.err.find("in the held-out evaluation of step"), std::string::npos)
      << "three signals in a row landed between evaluations: " << stopped.err;
  ASSERT_NE(stopped.err.find("state saved to"), std::string::npos) << stopped.err;
  const long saved = std::stol(stopped.err.substr(stopped.err.find("at step ") + 8));
  set_flag(args, "--stop-at", std::to_string(saved + 1));
  args.push_back("--resume");
  const Outcome resumed = run(TANG_TRAINER, args);
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("the evaluation the last run was stopped in"), std::string::npos)
      << "the signal came during an evaluation (16,000 windows), and that evaluation was cut "
         "short: "
      << resumed.out;
  std::istringstream rows(read(dir + "/log.csv"));
  std::string line;
  std::getline(rows, line);
  long step = 0;
  while (std::getline(rows, line)) {
    step += 1;
    EXPECT_EQ(std::stol(line), step) << line;
    EXPECT_EQ(line.find(",,"), std::string::npos) << "every step has its held-out loss: " << line;
  }
  EXPECT_EQ(step, saved + 1);
}

TEST(TrainerFaults, CorpusOddFilesAndLineEndingsAreNamed) {
  // CR-only and no-newline corpora were "shorter than one training window"; CRLF, a
  // BOM or NUL bytes became vocabulary characters; a directory or FIFO hung or said nothing
  const fs::path dir = scratch() / "corpora";
  fs::create_directories(dir);
  const std::pair<std::string, std::string> files[] = {
      {"春风\r\n明月\r\n", "Windows line endings"},
      {"春风\r明月\r", "CR line endings"},
      {"\xEF\xBB\xBF春风\n", "byte-order mark"},
      {std::string("春\0风\n", 8), "NUL bytes"},
      {"春风明月", "no line break"},
      {"", "is empty"},
  };
  int i = 0;
  for (const auto& [text, needle] : files) {
    const fs::path corpus = dir / ("c" + std::to_string(i++) + ".txt");
    std::ofstream(corpus, std::ios::binary) << text;
    std::vector<std::string> args = tiny_run((dir / "run").string());
    args[1] = corpus.string();
    expect_one_error_line(run(TANG_TRAINER, args), needle);
  }
  const fs::path fifo = dir / "fifo";
  ::mkfifo(fifo.c_str(), 0600);
  for (const std::string& path : {dir.string(), fifo.string(), std::string("/dev/zero")}) {
    std::vector<std::string> args = tiny_run((dir / "run").string());
    args[1] = path;
    const Outcome r = sh("timeout 20 " + command_line(TANG_TRAINER, args));
    EXPECT_NE(r.status, 124) << path << " must not hang";
    expect_one_error_line(r, "corpus " + path);
  }
}

TEST(TrainerFaults, OneSeedParserForEveryProgram) {
  // the trainer read -1 and 2^64 as 2^64-1 and 010 as 8
  for (const std::string seed : {"-1", "18446744073709551616", "010", "1e3", ""}) {
    std::vector<std::string> args = tiny_run(scratch() / "seed");
    args.insert(args.end(), {"--seed", seed});
    const Outcome r = run(TANG_TRAINER, args);
    expect_one_error_line(r, "--seed");
    EXPECT_EQ(r.status, 2) << seed;
  }
  EXPECT_EQ(tang::parse_seed("--seed", "18446744073709551615"), 18446744073709551615ull);
}

TEST(TrainerFaults, EvalErrorsNameEvalAndTheMissingCharacter) {
  // --eval errors pointed at --checkpoint; a small model blamed a character vaguely
  expect_one_error_line(run(TANG_TRAINER, {"--eval", (scratch() / "none.safetensors").string()}),
                        "pass --eval PATH");
  const std::string small =
      write_tiny_model("small_vocab.safetensors", {"\n", "春", "风", "，", "。"});
  const Outcome r = run(TANG_TRAINER, {"--eval", small});
  expect_one_error_line(r, "which the vocabulary of");
  EXPECT_NE(r.err.find("--data"), std::string::npos) << r.err;
}

// --- every program: its output, its stdin, its corpus ---------------------------------------

// `( command )`: its own redirections of stdin then win over sh()'s </dev/null.
std::string subshell(const std::string& command) {
  std::string s = "( ";
  s += command;
  s += " )";
  return s;
}

// A corpus of the first n poems of the shipped one.
std::string first_poems(std::size_t n) {
  const std::string path = (scratch() / ("first_" + std::to_string(n) + ".txt")).string();
  if (!fs::exists(path)) {
    std::ifstream in(std::string(TANG_DATA_DIR) + "/tang_poems.txt");
    std::ofstream out(path);
    std::string line;
    for (std::size_t i = 0; i < n && std::getline(in, line); ++i) out << line << "\n";
  }
  return path;
}

TEST(ProgramFaults, EveryProgramFailsWhenItsOutputIsLost) {
  // check_verse, measure_verse, measure_weights and lesson_00_train --eval exited 0
  // with their output on /dev/full or stdout closed
  REQUIRE_MODEL();
  const std::string small = first_poems(200);
  const std::pair<std::string, std::vector<std::string>> programs[] = {
      {TANG_CHECK_VERSE, {"床前明月光，疑是地上霜。举头望明月，低头思故乡。"}},
      {TANG_CHECK_VERSE, {"--corpus", small}},
      {TANG_MEASURE_VERSE, {"--poems", "1"}},
      {TANG_MEASURE_WEIGHTS, {"--poems", "1"}},
      {TANG_MEASURE_SETTINGS, {"--poems", "1"}},
      {TANG_DISTRIBUTION_TABLE, {}},
      {TANG_ATTENTION_TABLE, {}},
      {TANG_TRAINER, {"--eval", "--data", small}},
      {TANG_LESSON_01, {"--section", "1"}},
      {TANG_MEASURE_WEIGHTS, {"--help"}},
  };
  for (const auto& [exe, args] : programs) {
    for (const std::string redirect : {">/dev/full", ">&-"}) {
      const fs::path err = scratch() / "err.txt";
      const int status =
          std::system((command_line(exe, args) + " " + redirect + " 2>" + quote(err)).c_str());
      const std::string name = fs::path(exe).filename().string();
      EXPECT_EQ(WEXITSTATUS(status), 1) << name << " " << redirect;
      EXPECT_NE(read(err).find("error: could not write the output of"), std::string::npos)
          << name << " " << redirect << ": " << read(err);
    }
  }
}

TEST(AttentionTableFaults, ATextItCannotReadIsOneErrorLine) {
  REQUIRE_MODEL();
  std::string long_text;
  for (int i = 0; i < 11; ++i) long_text += "床前明月光，疑是地上霜。";  // 132 characters
  const std::pair<std::string, std::string> cases[] = {
      {"", "--text is empty"},
      {"床前明月光，疑是地上☃。", "☃"},
      {long_text, "must fit the model's context of 128"},
  };
  for (const auto& [text, needle] : cases) {
    const Outcome r = run(TANG_ATTENTION_TABLE, {"--text", text});
    SCOPED_TRACE(text);
    expect_one_error_line(r, needle);
    EXPECT_EQ(r.out, "") << "nothing printed before the error";
  }
}

TEST(AttentionTable, EveryRowOfEveryHeadSumsToOne) {
  REQUIRE_MODEL();
  const Outcome r = run(TANG_ATTENTION_TABLE, {"--text", "白日依山尽，黄河入海流。"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream lines(r.out);
  std::string characters, header, line;
  std::getline(lines, characters);
  std::getline(lines, header);
  EXPECT_EQ(characters, "# characters\t⏎\t白\t日\t依\t山\t尽\t，\t黄\t河\t入\t海\t流\t。");
  EXPECT_EQ(header, "layer\thead\tquery\tkey\tweight");
  std::map<std::tuple<int, int, int>, double> sums;
  std::size_t rows = 0;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    int layer = 0, head = 0, query = 0, key = 0;
    double weight = 0.0;
    ASSERT_TRUE(fields >> layer >> head >> query >> key >> weight) << line;
    if (key > query) {
      EXPECT_EQ(weight, 0.0) << "causal: " << line;
    }
    sums[{layer, head, query}] += weight;
    ++rows;
  }
  EXPECT_EQ(rows, 16u * 13u * 13u) << "4 layers x 4 heads x 13 x 13 positions";
  for (const auto& [where, sum] : sums) EXPECT_NEAR(sum, 1.0, 1e-3);  // 5 decimals a weight
}

TEST(CheckVerseFaults, NothingToCheckIsAnError) {
  // check_verse - exited 0 with empty or closed stdin, or a directory
  const std::string folder = (scratch() / "a_folder").string();
  fs::create_directories(folder);
  for (const std::string& input : std::vector<std::string>{"</dev/null", "<&-", "<" + folder}) {
    const Outcome r = sh(subshell(quote(TANG_CHECK_VERSE) + " - " + input));
    expect_one_error_line(r, "stdin");
    EXPECT_EQ(r.out, "") << input;
  }
}

TEST(CheckVerseFaults, EachPoemThatIsNotRegularVerseIsNamedForItsCause) {
  // Latin letters or emoji "passed"; ？, a BOM, a space or one line a row were all
  // "its lines are not all of the same length"
  const std::string poem = "床前明月光，疑是地上霜。举头望明月，低头思故乡。";
  const std::pair<std::string, std::string> cases[] = {
      {"abcde，fghij。klmno，pqrst。", "'a' in line 1 is not a Chinese character"},
      {"😀😀😀😀😀，😀😀😀😀😀。😀😀😀😀😀，😀😀😀😀😀。", "is not a Chinese character"},
      {"床前明月光？疑是地上霜。举头望明月，低头思故乡。",
       "'？' in line 1: the lines of regular verse end in ，or 。 only"},
      {"\xEF\xBB\xBF" + poem, "byte-order mark"},
      {"床前明月光， 疑是地上霜。举头望明月，低头思故乡。", "a space in line 2"},
      {"床前明月光，疑是地上霜。举头望明月，低头思故乡乡。",
       "line 4 has 6 characters and line 1 has 5"},
  };
  for (const auto& [text, needle] : cases) {
    const Outcome r = run(TANG_CHECK_VERSE, {text});
    EXPECT_EQ(r.status, 1) << text;
    EXPECT_EQ(r.out.rfind("not regular verse: ", 0), 0u) << r.out << r.err;
    EXPECT_NE(r.out.find(needle), std::string::npos) << r.out;
  }
  std::ofstream(scratch() / "rows.txt") << "床前明月光，\n疑是地上霜。\n";
  const Outcome rows =
      sh(subshell(quote(TANG_CHECK_VERSE) + " - <" + quote(scratch() / "rows.txt")));
  EXPECT_NE(rows.out.find("1 line of 5 characters"), std::string::npos) << rows.out;
  EXPECT_NE(rows.out.find("reads one whole poem a row"), std::string::npos) << rows.out;
}

TEST(CheckVerseFaults, ARowThatIsNotUtf8IsNamedAndTheRestIsChecked) {
  // an invalid UTF-8 row gave no row number and stopped the check there
  std::ofstream(scratch() / "bad_row.txt", std::ios::binary)
      << "ab\xff\n白日依山尽，黄河入海流。欲穷千里目，更上一层楼。\n";
  const Outcome r =
      sh(subshell(quote(TANG_CHECK_VERSE) + " - <" + quote(scratch() / "bad_row.txt")));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("not checked (stdin row 1): invalid UTF-8 at byte 2"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("-> 五绝"), std::string::npos) << "row 2 is still checked: " << r.out;
}

TEST(CheckVerseFaults, ARowWithoutEndIsRefusedInBoundedMemory) {
  // a 60 MB single line took 2 GB; /dev/zero was read until 4 GB
  std::string limit;
#ifndef TANG_SANITIZED           // the sanitizer reserves terabytes of address space up front
  limit = "ulimit -v 400000; ";  // 400 MB of address space: 300 MB of input cannot fit
#endif
  const Outcome r =
      sh(subshell(limit + "head -c 300000000 /dev/zero | " + quote(TANG_CHECK_VERSE) + " -"));
  expect_one_error_line(r, "stdin row 1 is longer than 65536 bytes");
}

TEST(CorpusFaults, EveryProgramChecksItsCorpusBeforeItPrints) {
  // a corpus of random bytes or CR line ends failed in section 7 or 8 after seconds of
  // output without naming the file; --section 1 exited 0 with "0 of 0 times";
  // measure_settings on one 60 MB line ran for minutes without a word
  REQUIRE_MODEL();
  const fs::path dir = scratch() / "bad_corpora";
  fs::create_directories(dir);
  const std::pair<std::string, std::string> files[] = {
      {"cr.txt", "床前明月光，疑是地上霜。举头望明月，低头思故乡。\r\n"},
      {"bytes.txt", std::string("\x81\xfe\x00\x7f\xc3\n", 6)},
      {"long.txt", std::string(70000, 'a')},
      {"blank.txt", "\n\n\n"},
  };
  const std::string needles[] = {"ends in CR", "invalid UTF-8", "longer than 65536 bytes",
                                 "has no poem"};
  const std::pair<std::string, std::vector<std::string>> programs[] = {
      {TANG_LESSON_01, {"--section", "1"}},      {TANG_LESSON_07, {}},
      {TANG_MEASURE_SETTINGS, {"--poems", "1"}}, {TANG_MEASURE_VERSE, {"--poems", "1"}},
      {TANG_MEASURE_WEIGHTS, {"--poems", "1"}},  {TANG_CHECK_VERSE, {}},
  };
  for (std::size_t i = 0; i < std::size(files); ++i) {
    const std::string corpus = (dir / files[i].first).string();
    std::ofstream(corpus, std::ios::binary) << files[i].second;
    for (const auto& [exe, args] : programs) {
      std::vector<std::string> with = args;
      with.insert(with.end(), {"--corpus", corpus});
      const Outcome r = run(exe, with);
      EXPECT_EQ(r.status, 2) << exe << " " << corpus << ": " << r.err;
      expect_one_error_line(r, "--corpus " + corpus);
      EXPECT_NE(r.err.find(needles[i]), std::string::npos) << r.err;
      EXPECT_EQ(r.out, "") << "nothing printed before the refusal";
    }
  }
}

}  // namespace
