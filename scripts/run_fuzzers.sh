#!/usr/bin/env bash
# run_fuzzers.sh [SECONDS]: build the libFuzzer targets with clang in build/fuzz
# and run each for SECONDS (default 30) on a copy of its seed corpus (fuzz/corpus/,
# which stays as it is). Exits non-zero on any finding: a crash, a sanitizer
# report, an exception other than tang::UserError, a multi-line error, a timeout
# or running out of memory. The input that caused it is kept in build/fuzz/findings/;
# rerun it with  build/fuzz/fuzz/<fuzzer> <file>.
#
# Needs clang and libclang-rt-dev (scripts/install_deps.sh installs the rest).
# JOBS=n sets build parallelism (default: all cores); FUZZ_ARGS adds libFuzzer flags.
set -euo pipefail

seconds="${1:-30}"
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build/fuzz"
jobs="${JOBS:-$(nproc)}"

command -v clang++ >/dev/null || { echo "run_fuzzers.sh: clang++ not found: apt-get install clang libclang-rt-dev" >&2; exit 2; }

echo "== configuring $build (clang, TANG_BUILD_FUZZERS=ON)"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ \
      -DTANG_BUILD_FUZZERS=ON >/dev/null
echo "== building the fuzzers"
cmake --build "$build" --target fuzz_checkpoint_loader fuzz_utf8_tokenizer fuzz_completion_request fuzz_stop_strings -j "$jobs"

status=0
# run FUZZER CORPUS [libFuzzer flags...]
run() {
  local name="$1" corpus="$2"
  shift 2
  local work findings log
  work="$(mktemp -d)"
  findings="$build/findings/$name"
  log="$build/$name.log"
  mkdir -p "$findings"
  cp "$root/fuzz/corpus/$corpus/." "$work/" -r
  echo "== $name: ${seconds} s on $(ls "$work" | wc -l) seed files (log: $log)"
  # shellcheck disable=SC2086  # FUZZ_ARGS is a list of flags
  if "$build/fuzz/$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$findings/" "$@" ${FUZZ_ARGS:-} "$work" >"$log" 2>&1; then
    grep -E "DONE|stat::number_of_executed_units|stat::peak_rss_mb" "$log" | sed 's/^/   /'
    echo "   $name: no findings ($(ls "$work" | wc -l) inputs in the working corpus)"
  else
    echo "   $name: FINDING (saved in $findings/):"
    grep -E "FINDING|ERROR|SUMMARY|runtime error|uncaught|Test unit written" "$log" | head -20 | sed 's/^/   /'
    status=1
  fi
  rm -rf "$work"
}

run fuzz_checkpoint_loader checkpoint -dict="$root/fuzz/checkpoint.dict"
run fuzz_utf8_tokenizer utf8
run fuzz_completion_request request
run fuzz_stop_strings stops

if [ "$status" -ne 0 ]; then
  echo "run_fuzzers.sh: findings above" >&2
fi
exit "$status"
