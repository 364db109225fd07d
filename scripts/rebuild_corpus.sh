#!/usr/bin/env bash
# Rebuilds data/tang_poems.txt from scratch:
#   1. fetch the chinese-poetry package (scripts/fetch_corpus.sh),
#   2. build prepare_corpus in a CMake build folder (default build/release),
#   3. run it and print the SHA-256 of the result (compare with data/README.md).
# Usage: scripts/rebuild_corpus.sh [build-dir]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build/release}"

package="$("$root/scripts/fetch_corpus.sh")"

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  if [[ "$build" == "$root/build/release" ]]; then
    (cd "$root" && cmake --preset release)
  else
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
  fi
fi
cmake --build "$build" --target prepare_corpus -j 2

exe="$(find "$build" -type f -name prepare_corpus -perm -u+x | head -n 1)"
[[ -n "$exe" ]] || { echo "rebuild_corpus.sh: error: prepare_corpus not found in $build" >&2; exit 1; }

"$exe" --package-dir "$package" --out "$root/data/tang_poems.txt"
sha256sum "$root/data/tang_poems.txt"
