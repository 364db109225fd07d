#!/usr/bin/env bash
# Rebuilds data/tones.tsv and data/rhymes.tsv (the data of lesson 07, regular verse):
#   1. fetch the chinese-poetry package (scripts/fetch_corpus.sh),
#   2. unpack Unihan_Readings.txt from Debian's unicode-data (scripts/install_deps.sh
#      installs it) into a temporary folder,
#   3. build prepare_tones and prepare_rhymes in a CMake build folder (default build/release),
#   4. run them on the shipped data/tang_poems.txt and print the SHA-256 of both outputs
#      (compare with data/README.md, "Tones and rhyme groups").
# Usage: scripts/rebuild_verse_data.sh [build-dir]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build/release}"
unihan_dir=/usr/share/unicode

package="$("$root/scripts/fetch_corpus.sh")"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [[ -f "$unihan_dir/Unihan_Readings.txt" ]]; then
  cp "$unihan_dir/Unihan_Readings.txt" "$work/"
elif [[ -f "$unihan_dir/Unihan_Readings.txt.bz2" ]]; then
  bzcat "$unihan_dir/Unihan_Readings.txt.bz2" > "$work/Unihan_Readings.txt"
else
  echo "rebuild_verse_data.sh: error: $unihan_dir/Unihan_Readings.txt.bz2 not found" \
       "(apt-get install unicode-data, or scripts/install_deps.sh)" >&2
  exit 1
fi

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  if [[ "$build" == "$root/build/release" ]]; then
    (cd "$root" && cmake --preset release)
  else
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
  fi
fi
cmake --build "$build" --target prepare_tones prepare_rhymes -j 2

find_exe() {
  local exe
  exe="$(find "$build" -type f -name "$1" -perm -u+x | head -n 1)"
  [[ -n "$exe" ]] || { echo "rebuild_verse_data.sh: error: $1 not found in $build" >&2; exit 1; }
  echo "$exe"
}
tones_exe="$(find_exe prepare_tones)"
rhymes_exe="$(find_exe prepare_rhymes)"

"$tones_exe" --corpus "$root/data/tang_poems.txt" --package-dir "$package" \
  --unihan "$work/Unihan_Readings.txt" --out "$root/data/tones.tsv"
"$rhymes_exe" --corpus "$root/data/tang_poems.txt" --tones "$root/data/tones.tsv" \
  --out "$root/data/rhymes.tsv"
sha256sum "$root/data/tones.tsv" "$root/data/rhymes.tsv"
