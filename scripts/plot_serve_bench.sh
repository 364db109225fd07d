#!/usr/bin/env bash
# Draws serve_bench's rows (its --tsv file) as SVG: characters a second and the
# p95 latencies against the number of clients, mixed openings.
#   scripts/plot_serve_bench.sh lessons/11_server/serving/serve_bench.tsv lessons/11_server/serving/serve_bench.svg
# (scripts/record_serve_bench.py runs serve_bench and writes both.)
set -euo pipefail
cd "$(dirname "$0")/.."
tsv="${1:-lessons/11_server/serving/serve_bench.tsv}"
out="${2:-lessons/11_server/serving/serve_bench.svg}"
command -v gnuplot >/dev/null || { echo "error: gnuplot is missing: scripts/install_deps.sh --extras"; exit 1; }
mixed=$(mktemp)
trap 'rm -f "$mixed"' EXIT
awk -F'\t' 'NR > 1 && $2 == "mixed"' "$tsv" > "$mixed"
gnuplot <<GP
set terminal svg size 960,400 dynamic font "sans,12"
set output "$out"
set datafile separator "\t"
set termoption noenhanced
set multiplot layout 1,2 title "poem_server under load (serve_bench, mixed openings)"
set logscale x 2
set xrange [0.8:80]
set xtics (1, 4, 16, 64)
set xlabel "clients, each sending its next request when the last ends"
set grid
set key top left
set ylabel "characters a second"
set yrange [0:*]
set offsets 0, 0, graph 0.3, 0  # room above the lines for the key
plot "$mixed" using 1:3 with linespoints lw 2 pt 7 lc rgb "#cc3333" title "continuous batching", \
     "$mixed" using 1:4 with linespoints dt 2 pt 6 lc rgb "#cc3333" title "its cost-model prediction", \
     "$mixed" using 1:5 with linespoints lw 2 pt 5 lc rgb "#3366aa" title "one request at a time"
set key top left
set ylabel "p95, ms"
set logscale y 10
set yrange [*:*]
plot "$mixed" using 1:7 with linespoints lw 2 pt 7 lc rgb "#339933" title "time to the first character", \
     "$mixed" using 1:9 with linespoints lw 2 pt 5 lc rgb "#996633" title "time per character"
unset multiplot
GP
echo "wrote $out"
