#!/usr/bin/env bash
# The first README command: install what is missing, build (Release) the lesson's
# programs and what they link, nothing else (no tests, no benchmarks, no other
# lesson), and run the whole lesson on the shipped model. Extra arguments go to the
# lesson, e.g. scripts/run_lesson.sh --seed 7, or pick another lesson with
# LESSON=03_topk_topp. (scripts/test.sh builds everything.)
set -euo pipefail
cd "$(dirname "$0")/.."
lesson="${LESSON:-06_kvcache}"
if [[ ! -f "lessons/${lesson}/CMakeLists.txt" ]]; then
  echo "error: LESSON=${lesson}: no such lesson; pick one of: $(cd lessons && ls -d [0-9][0-9]_* | tr '\n' ' ')" >&2
  exit 2
fi
scripts/install_deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j"$(nproc)" --target "programs_${lesson}"  # lessons/CMakeLists.txt
exec "build/release/lessons/${lesson}/lesson_${lesson}" "$@"
