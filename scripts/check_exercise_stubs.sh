#!/usr/bin/env bash
# check_exercise_stubs.sh: proves that no exercise test can pass vacuously.
#
# Builds the exercise tests under the `learner` preset (build/learner, where
# they link the learner's stubs lessons/*/exercise/*.cpp instead of the
# reference solutions), runs each exercise's label on its own and requires
# EVERY test of every exercise to FAIL against the untouched stubs. (The same
# tests pass against the solutions: `ctest --preset release -L exercise_`.)
# Prints a table; exits 1 when a label has no tests or a test passes.
#
#   scripts/check_exercise_stubs.sh           all exercises
#   JOBS=1 scripts/check_exercise_stubs.sh    build with one job (default: all cores)
#
# Run it on untouched stubs (a fresh clone, CI): once you have done an
# exercise, its tests pass and this script says so.
set -euo pipefail
cd "$(dirname "$0")/.."

labels=(exercise_02 exercise_03 exercise_03b exercise_05 exercise_06a exercise_06b exercise_06c
        exercise_07a exercise_07b exercise_08a exercise_08b)
build=build/learner
jobs="${JOBS:-$(nproc)}"

if git rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
   ! git diff --quiet HEAD -- 'lessons/*/exercise/*.cpp' 2>/dev/null; then
  echo "check_exercise_stubs.sh: note: lessons/*/exercise/*.cpp differ from the last commit;" \
       "this check is meant for the untouched stubs" >&2
fi

echo "== configuring $build (preset learner: TANG_EXERCISES_USE_SOLUTIONS=OFF)"
cmake --preset learner >/dev/null
echo "== building the exercise tests against the stubs"
cmake --build --preset learner --target exercise_tests -j "$jobs"

status=0
logs="$build/exercise_stub_check"
mkdir -p "$logs"
printf '\n%-14s %6s %7s %7s  %s\n' exercise tests failed passed verdict
for label in "${labels[@]}"; do
  log="$logs/$label.log"
  # ctest -L takes a regular expression: anchor it so that it names one label
  ctest --test-dir "$build" -L "^${label}\$" -j "$jobs" >"$log" 2>&1 || true
  total=$(ctest --test-dir "$build" -N -L "^${label}\$" | sed -n 's/^Total Tests: *//p')
  total=${total:-0}
  passed=$(grep -cE 'Test +#[0-9]+: .* Passed' "$log" || true)
  failed=$((total - passed))
  if [[ "$total" -eq 0 ]]; then
    verdict="FAIL: no tests carry this label"
    status=1
  elif [[ "$passed" -gt 0 ]]; then
    verdict="FAIL: passes against the untouched stub: $(grep -E 'Test +#[0-9]+: .* Passed' "$log" |
              sed -E 's/.*Test +#[0-9]+: ([^ ]+).*/\1/' | paste -sd' ' -)"
    status=1
  else
    verdict="ok: every test fails against the stub"
  fi
  printf '%-14s %6s %7s %7s  %s\n' "$label" "$total" "$failed" "$passed" "$verdict"
done
echo
if [[ $status -ne 0 ]]; then
  echo "check_exercise_stubs.sh: some exercise test can pass without the learner's code (logs: $logs/)" >&2
else
  echo "check_exercise_stubs.sh: every exercise test fails against the stubs (logs: $logs/)"
fi
exit $status
