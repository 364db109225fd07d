#!/usr/bin/env bash
# Fetches the source of the corpus, the npm package chinese-poetry@2.0.1 (MIT licence),
# into data/.npm-cache/ (git-ignored) and unpacks it there. Idempotent: does nothing
# when the package is already unpacked. Prints the unpacked folder on stdout.
set -euo pipefail

version="2.0.1"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="$root/data/.npm-cache"
package="$cache/package"
tarball="$cache/chinese-poetry-$version.tgz"

# Already unpacked (and of the right version)?
if [[ -f "$package/package.json" ]] &&
   grep -q "\"version\": \"$version\"" "$package/package.json" &&
   compgen -G "$package/dist/quantangshi/poet.tang.*.json" >/dev/null; then
  echo "$package"
  exit 0
fi

command -v npm >/dev/null || { echo "fetch_corpus.sh: error: npm not found (apt-get install npm)" >&2; exit 1; }
mkdir -p "$cache"
if [[ ! -f "$tarball" ]]; then
  echo "downloading chinese-poetry@$version (about 85 MB) ..." >&2
  (cd "$cache" && npm pack --silent "chinese-poetry@$version" >/dev/null)
fi
rm -rf "$package"
tar -xzf "$tarball" -C "$cache"
echo "$package"
