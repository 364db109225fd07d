#!/usr/bin/env bash
# Runs every lesson's benchmark with fixed settings, then the PyTorch peer, and
# prints ONE comparison table across the lessons (docs/benchmarks.md explains it):
# every row, then each lesson-path ("plain") row next to its tuned twin, then the goals.
#
#   scripts/run_benchmarks.sh                 the full run (12 and a half minutes on 2 cores,
#                                             without the PyTorch peer: docs/benchmarks.md)
#   scripts/run_benchmarks.sh --quick         the same table from one timing of each
#                                             row (0.2 s), no spread: for a first look
#   scripts/run_benchmarks.sh --smoke         a quick pass to see that everything
#                                             works; its numbers mean little
#   scripts/run_benchmarks.sh --note "TEXT"   TEXT goes above the table and into the chart
#   scripts/run_benchmarks.sh --no-build      use the programs already built
#   scripts/run_benchmarks.sh --build-dir DIR the build folder to use (default build/release,
#                                             configured with `cmake --preset release`)
#
# Writes build/bench/: bench_NN_*.json (Google Benchmark), reference.json (our logits
# for the peer), torch_peer.json (PyTorch on the same OpenBLAS kernels as ours) and
# torch_peer_installed.json (PyTorch as Debian installs it, OpenBLAS choosing its
# kernels itself), table.md, cache_chart.dat / .gp / .svg, batch_chart.dat / .gp / .svg,
# and (full run only) renders docs/benchmarks-cache.svg and docs/benchmarks-batch.svg
# (lesson 08's page shows the second). Leave the machine otherwise idle.
#
# Settings: OpenBLAS and OpenMP with ONE thread for every decoding benchmark, TWO for
# the training step (lesson 00); 3 repetitions of each benchmark, the median counts;
# at least 0.5 s per repetition. The PyTorch peer uses the same thread counts.
set -euo pipefail
cd "$(dirname "$0")/.."

smoke=0
quick=0
build=1
build_dir=build/release
note=""
while (($#)); do
  case "$1" in
    --smoke) smoke=1 ;;
    --quick) quick=1 ;;
    --no-build) build=0 ;;
    --build-dir) build_dir="${2:?--build-dir needs a folder}"; shift ;;
    --note) note="${2:?--note needs a text}"; shift ;;
    -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 0 ;;
    *) echo "error: unknown argument $1 (try --help)" >&2; exit 2 ;;
  esac
  shift
done

out=build/bench
python=/usr/bin/python3  # Debian's: the one python3-torch and python3-numpy install into
repetitions=3
min_time=0.5
if ((smoke)); then
  repetitions=1
  min_time=0.05
  [[ -n "$note" ]] || note="smoke run: numbers not meaningful"
elif ((quick)); then
  repetitions=1
  min_time=0.2
  [[ -n "$note" ]] || note="quick run: one timing of each row, no spread"
fi

if ((build)); then
  if [[ "$build_dir" == build/release ]]; then
    cmake --preset release >/dev/null
  else
    cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  fi
  cmake --build "$build_dir" --target benchmarks
fi
bin=$build_dir/benchmarks
for program in bench_00_train_step bench_01_probabilities bench_02_temperature bench_03_topk_topp \
               bench_04_continuation bench_05_acrostic bench_06_kvcache bench_07_verse \
               bench_08_many_poems bench_09_inside bench_10_cache_size bench_11_server \
               bench_12_speculative bench_13_cache_budget bench_dump_logits; do
  [[ -x "$bin/$program" ]] || { echo "error: $bin/$program not built (drop --no-build)" >&2; exit 1; }
done
load_before=$(cut -d' ' -f1 /proc/loadavg)
echo "== load before the run: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min); leave the machine idle"
mkdir -p "$out"
rm -f "$out"/bench_*.json "$out"/torch_peer*.json

# Every program's repetitions alternate between its rows (random interleaving): run in
# order, every repetition of a row back to back, a plain row and its tuned twin met other
# states of the machine. Lesson 08's GPT-2-shaped step (340 MB from main memory a step)
# came out 10 to 15% behind at two rows in two such runs and led when they alternated, and
# lesson 13's tuned steps came out 10 to 16% behind in order and 1.18x and 1.44x ahead
# (fp32, int8-channel) when they alternated.
run() {  # run <program> <threads> [extra flags]
  local name=$1 threads=$2
  shift 2
  echo "== $name ($threads thread(s))"
  OPENBLAS_NUM_THREADS=$threads OMP_NUM_THREADS=$threads "$bin/$name" --threads="$threads" \
    --benchmark_repetitions="$repetitions" --benchmark_min_time="$min_time" \
    --benchmark_enable_random_interleaving=true \
    --benchmark_display_aggregates_only=true \
    --benchmark_out="$out/$name.json" --benchmark_out_format=json "$@"
}

run bench_00_train_step 2
run bench_01_probabilities 1
run bench_02_temperature 1
run bench_03_topk_topp 1
run bench_04_continuation 1
run bench_05_acrostic 1
if ((smoke || quick)); then  # the context-512 runs without the cache take seconds per repetition
  run bench_06_kvcache 1 --benchmark_filter='floor|write_chars|decode_step|step_|block512/[a-z]+/(32|500)/cache:1|block512/[a-z]+/32/'
else
  run bench_06_kvcache 1
fi
run bench_07_verse 1
run bench_08_many_poems 1
run bench_09_inside 1
run bench_10_cache_size 1
run bench_11_server 1
run bench_12_speculative 1
run bench_13_cache_budget 1

"$bin/bench_dump_logits" "$out/reference.json"
peer_status=0
if "$python" -c 'import torch, numpy' 2>/dev/null; then
  echo "== PyTorch peer"
  peer_flags=()
  ((smoke || quick)) && peer_flags=(--smoke)
  "$python" benchmarks/peers/torch_peer.py --reference "$out/reference.json" \
    --out "$out/torch_peer.json" --repeats "$repetitions" "${peer_flags[@]}" || peer_status=$?
  echo "== PyTorch peer, OpenBLAS as installed"
  "$python" benchmarks/peers/torch_peer.py --reference "$out/reference.json" --blas-as-installed \
    --out "$out/torch_peer_installed.json" --repeats "$repetitions" "${peer_flags[@]}" ||
    peer_status=$?
else
  echo "== PyTorch peer skipped: $python cannot import torch and numpy" \
       "(apt-get install python3-torch, or scripts/install_deps.sh --extras)"
fi

load_after=$(cut -d' ' -f1 /proc/loadavg)
echo "== load after the run: $(cut -d' ' -f1-3 /proc/loadavg)"
settings="$repetitions repetitions (median), min time ${min_time} s each; decoding 1 thread, training 2;"
settings+=" load average (1 min) $load_before before the run, $load_after after it"
echo
"$python" benchmarks/compare.py "$out" --note "$note" --settings "$settings" --build-dir "$build_dir"

render() {  # render <chart> <lesson>: build/bench/<chart>.svg, and docs/benchmarks-<...>.svg
  local chart=$1 lesson=$2 doc="docs/benchmarks-${1%_chart}.svg"
  if [[ ! -f "$out/$chart.gp" ]]; then
    echo "no lesson $lesson results: no $chart"
  elif ! command -v gnuplot >/dev/null; then
    echo "gnuplot not found: no $chart (apt-get install gnuplot-nox)"
  else
    (cd "$out" && gnuplot -e "out='$chart.svg'" "$chart.gp")
    if ((!smoke && !quick)); then
      cp "$out/$chart.svg" "$doc"
      echo "chart: $doc"
    else
      echo "chart: $out/$chart.svg (a short run: docs/ left alone)"
    fi
  fi
}
render cache_chart 06
render batch_chart 08
echo "table: $out/table.md"
if ((peer_status != 0)); then
  echo "error: the PyTorch peer does not match the C++ model (see its output above)" >&2
  exit 1
fi
