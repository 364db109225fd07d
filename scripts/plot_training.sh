#!/usr/bin/env bash
# Draws the loss curve of a training log (CSV from lesson_00_train) as SVG.
#   scripts/plot_training.sh [data/tang_gpt_training.csv] [docs/training-loss.svg]
set -euo pipefail
cd "$(dirname "$0")/.."
log="${1:-data/tang_gpt_training.csv}"
out="${2:-docs/training-loss.svg}"
command -v gnuplot >/dev/null || { echo "error: gnuplot is missing: scripts/install_deps.sh --extras"; exit 1; }
heldout=$(mktemp)
awk -F, 'NR > 1 && $4 != "" { print $1 "," $4 }' "$log" > "$heldout"
gnuplot <<GP
set terminal svg size 800,480 dynamic font "sans,12"
set output "$out"
set datafile separator ","
set title "lesson_00_train: cross-entropy (nats per character)"
set xlabel "optimizer step (32 x 128 tokens each)"
set ylabel "loss"
set yrange [3.5:9]
set grid
set key top right
plot "$log" every ::1 using 1:3 with lines lc rgb "#9ab" title "training batch", \
     "$heldout" using 1:2 with linespoints lw 2 pt 7 lc rgb "#c33" title "held-out (every 20th poem)"
GP
rm -f "$heldout"
echo "wrote $out"
