#!/usr/bin/env bash
# Draws every head's attention over one poem as 16 small heat maps (4 layers x 4
# heads; row = the position attending, column = the position attended to):
# docs/attention-heads.svg (lesson 09's page).
# Needs gnuplot (Debian gnuplot-nox) and a font with the Chinese characters
# (Debian fonts-wqy-microhei): scripts/install_deps.sh --extras installs both.
#   scripts/plot_attention.sh [build-dir] [output.svg] [poem]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/release}"
out="${2:-docs/attention-heads.svg}"
poem="${3:-白日依山尽，黄河入海流。欲穷千里目，更上一层楼。}"
command -v gnuplot >/dev/null || { echo "error: gnuplot is missing: scripts/install_deps.sh --extras"; exit 1; }
fc-list | grep -qi "wqy" || { echo "error: the font WenQuanYi Micro Hei is missing: scripts/install_deps.sh --extras"; exit 1; }
table_program="$build/lessons/09_inside/attention_table"
[[ -x "$table_program" ]] || { echo "error: $table_program not built: cmake --build --preset release"; exit 1; }
table=$(mktemp) blocks=$(mktemp)
trap 'rm -f "$table" "$blocks"' EXIT
"$table_program" --text "$poem" >"$table"
# gnuplot's tics: ("⏎" 0, "白" 1, ...), from the first line
tics=$(head -1 "$table" | awk -F'\t' '{ for (i = 2; i <= NF; i++) printf "%s\"%s\" %d", (i > 2 ? ", " : ""), $i, i - 2 }')
T=$(head -1 "$table" | awk -F'\t' '{ print NF - 1 }')
# one block per head (gnuplot's "index"), in layer order: key, query, weight
awk -F'\t' 'NR > 2 { block = ($1 - 1) * 4 + ($2 - 1); if (block != last && NR > 3) printf "\n\n"; last = block; print $4 "\t" $3 "\t" $5 }' "$table" >"$blocks"
heads=$(awk -F'\t' 'NR > 2 { print $2 }' "$table" | sort -n | tail -1)
layers=$(awk -F'\t' 'NR > 2 { print $1 }' "$table" | sort -n | tail -1)
{
  echo "set terminal svg size 1200,1260 dynamic font 'WenQuanYi Micro Hei,9'"
  echo "set output '$out'"
  echo "set datafile separator '\t'"
  echo "set multiplot layout $layers,$heads title \"Attention of every head over 「$poem」\\nrow: the position attending; column: the position attended to; darker: more weight\" font ',12'"
  echo "unset key; unset colorbox"
  echo "set palette defined (0 'white', 1 '#08306b')"
  echo "set cbrange [0:1]"
  echo "set xrange [-0.5:$T - 0.5]; set yrange [$T - 0.5:-0.5]"
  echo "set xtics ($tics) font ',7' scale 0; set ytics ($tics) font ',7' scale 0"
  echo "set size ratio 1"
  for ((l = 1; l <= layers; l++)); do
    for ((h = 1; h <= heads; h++)); do
      echo "set title 'layer $l, head $h'"
      echo "plot '$blocks' index $(((l - 1) * heads + h - 1)) using 1:2:3 with image"
    done
  done
  echo "unset multiplot"
} | gnuplot
echo "wrote $out"
