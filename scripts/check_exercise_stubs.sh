#!/usr/bin/env bash
# check_exercise_stubs.sh: proves that no exercise test can pass vacuously.
#
# In the one release build (build/release) every exercise test runs twice: against
# the reference solution (label exercise_NN, in the README's test command) and
# against the learner's file lessons/*/exercise/*.cpp (label yours_NN). This
# script builds the exercise tests, runs each yours_NN label on its own and
# requires EVERY test of every exercise to FAIL against the untouched stubs (the
# same tests pass against the solutions: `ctest --preset release -L exercise_`).
# Prints a table; exits 1 when a label has no tests or a test passes.
#
#   scripts/check_exercise_stubs.sh           all exercises
#   JOBS=1 scripts/check_exercise_stubs.sh    build with one job (default: all cores)
#
# Run it on untouched stubs (a fresh clone, CI): once you have done an
# exercise, its tests pass and this script says so.
set -euo pipefail
cd "$(dirname "$0")/.."

labels=(yours_02 yours_03 yours_03b yours_05 yours_06a yours_06b yours_06c yours_06d
        yours_07a yours_07b yours_08a yours_08b yours_09a yours_09b
        yours_10a yours_10b yours_11a yours_11b yours_12 yours_13)
build=build/release
jobs="${JOBS:-$(nproc)}"

if git rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
   ! git diff --quiet HEAD -- 'lessons/*/exercise/*.cpp' 2>/dev/null; then
  echo "check_exercise_stubs.sh: note: lessons/*/exercise/*.cpp differ from the last commit;" \
       "this check is meant for the untouched stubs" >&2
fi

echo "== configuring $build (preset release)"
cmake --preset release >/dev/null
echo "== building the exercise tests (each holds the stub and the solution)"
cmake --build --preset release --target exercise_tests -j "$jobs"

status=0
logs="$build/exercise_stub_check"
mkdir -p "$logs"
printf '\n%-14s %6s %7s %7s  %s\n' exercise tests failed passed verdict
for label in "${labels[@]}"; do
  log="$logs/$label.log"
  # ctest -L takes a regular expression: anchor it so that it names one label; -FA leaves
  # out the suite's fixtures (learner_profile's checks pass whatever the stubs do)
  ctest --test-dir "$build" -L "^${label}\$" -FA '.*' -j "$jobs" >"$log" 2>&1 || true
  total=$(ctest --test-dir "$build" -N -L "^${label}\$" -FA '.*' | sed -n 's/^Total Tests: *//p')
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
