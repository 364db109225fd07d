#!/usr/bin/env bash
# check_sanitizers.sh: the whole suite again under AddressSanitizer (with leak
# checks) and UndefinedBehaviorSanitizer, in build/debug-asan (clang; the
# debug-asan preset leaves out two tests too slow there). About 8 minutes to
# build and 6 to test on 2 cores: run it before a change lands; CI builds once
# and runs the release suite, the stub check and the fuzzers.
#
#   scripts/check_sanitizers.sh            the whole suite
#   scripts/check_sanitizers.sh -R Poem    extra arguments go to ctest
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh --fuzz
cmake --preset debug-asan >/dev/null
cmake --build --preset debug-asan -j"$(nproc)"
ASAN_OPTIONS=detect_leaks=1 ctest --preset debug-asan -j"$(nproc)" "$@"
