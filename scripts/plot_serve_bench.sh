#!/usr/bin/env bash
# Draws serve_bench's rows (its --tsv file) as SVG: characters a second and the
# p95 latencies against the number of clients, mixed openings.
#   build/release/lessons/11_server/serve_bench --tsv /tmp/serve.tsv
#   scripts/plot_serve_bench.sh /tmp/serve.tsv lessons/11_server/serve_bench.svg
set -euo pipefail
cd "$(dirname "$0")/.."
tsv="${1:?usage: scripts/plot_serve_bench.sh SERVE_BENCH.tsv [OUT.svg]}"
out="${2:-lessons/11_server/serve_bench.svg}"
command -v gnuplot >/dev/null || { echo "error: gnuplot is missing: scripts/install_deps.sh --extras"; exit 1; }
mixed=$(mktemp)
trap 'rm -f "$mixed"' EXIT
awk -F'\t' 'NR > 1 && $2 == "mixed"' "$tsv" > "$mixed"
gnuplot <<GP
set terminal svg size 960,400 dynamic font "sans,12"
set output "$out"
set datafile separator "\t"
set multiplot layout 1,2 title "poem_server under load (serve_bench, mixed openings)"
set logscale x 2
set xtics (1, 4, 16, 64)
set xlabel "clients, each sending its next request when the last ends"
set grid
set key top left
set ylabel "characters a second"
set yrange [0:*]
plot "$mixed" using 1:3 with linespoints lw 2 pt 7 lc rgb "#c33" title "continuous batching", \
     "$mixed" using 1:4 with linespoints dt 2 pt 6 lc rgb "#c33" title "its cost-model prediction", \
     "$mixed" using 1:5 with linespoints lw 2 pt 5 lc rgb "#36a" title "one request at a time"
set ylabel "p95, ms"
set logscale y 10
set yrange [*:*]
plot "$mixed" using 1:7 with linespoints lw 2 pt 7 lc rgb "#393" title "time to the first character", \
     "$mixed" using 1:9 with linespoints lw 2 pt 5 lc rgb "#963" title "time per character"
unset multiplot
GP
echo "wrote $out"
