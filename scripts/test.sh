#!/usr/bin/env bash
# The second README command: install what is missing, build (Release), and run
# the whole test suite with ctest. Extra arguments go to ctest (e.g. -L exercise_03).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j"$(nproc)"
ctest --preset release -j"$(nproc)" "$@"
