#!/usr/bin/env bash
# The first README command: install what is missing, build (Release), and run
# the whole lesson on the shipped model. Extra arguments go to the lesson,
# e.g. scripts/run_lesson.sh --seed 7, or pick another lesson with LESSON=03_topk_topp.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j"$(nproc)"
lesson="${LESSON:-06_kvcache}"
exec "build/release/lessons/${lesson}/lesson_${lesson}" "$@"
