#!/usr/bin/env bash
# Draws the 30 most likely next characters after one context at T = 0.3, 1 and
# 1.5 as grouped bars: docs/temperature-distribution.svg (lesson 02's page).
# Needs gnuplot (Debian gnuplot-nox) and a font with the Chinese characters
# (Debian fonts-wqy-microhei): scripts/install_deps.sh --extras installs both.
#   scripts/plot_distribution.sh [build-dir] [output.svg] [context]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/release}"
out="${2:-docs/temperature-distribution.svg}"
context="${3:-床前明月光，疑是地上}"
command -v gnuplot >/dev/null || { echo "error: gnuplot is missing: scripts/install_deps.sh --extras"; exit 1; }
fc-list | grep -qi "wqy" || { echo "error: the font WenQuanYi Micro Hei is missing: scripts/install_deps.sh --extras"; exit 1; }
table_program="$build/lessons/02_temperature/distribution_table"
[[ -x "$table_program" ]] || { echo "error: $table_program not built: cmake --build --preset release"; exit 1; }
data=$(mktemp)
trap 'rm -f "$data"' EXIT
"$table_program" --context "$context" --count 30 >"$data"
gnuplot <<GP
set terminal svg size 960,420 dynamic font "WenQuanYi Micro Hei,12"
set output "$out"
set datafile separator "\t"
set title "After 「$context」: the 30 most likely next characters (ranked at T = 1)"
set ylabel "probability (log scale)"
set logscale y
set format y "%g"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set grid ytics
set key top right
set yrange [0.0005:1]
plot "$data" using 3:xtic(2) title "T = 0.3", '' using 4 title "T = 1.0", '' using 5 title "T = 1.5"
GP
echo "wrote $out"
