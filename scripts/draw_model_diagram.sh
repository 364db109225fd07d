#!/usr/bin/env bash
# Draws docs/model-diagram.dot (the model and the generation loop, with the
# lessons marked) into docs/model-diagram.svg, the picture that opens
# docs/README.md. Needs Graphviz's dot and a font with the Chinese characters:
# scripts/install_deps.sh --extras installs both.
#   scripts/draw_model_diagram.sh [source.dot] [output.svg]
set -euo pipefail
cd "$(dirname "$0")/.."
source="${1:-docs/model-diagram.dot}"
out="${2:-docs/model-diagram.svg}"
command -v dot >/dev/null || { echo "error: Graphviz's dot is missing: scripts/install_deps.sh --extras"; exit 1; }
fc-list | grep -qi "wqy" || { echo "error: the font WenQuanYi Micro Hei is missing: scripts/install_deps.sh --extras"; exit 1; }
[[ -f "$source" ]] || { echo "error: $source does not exist"; exit 1; }
tmp=$(mktemp "$out.XXXXXX")
trap 'rm -f "$tmp"' EXIT
dot -Tsvg "$source" -o "$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "wrote $out"
