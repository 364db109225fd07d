#!/usr/bin/env bash
# Runs every lesson's benchmark with fixed settings, then the PyTorch and llama.cpp peers,
# and prints ONE comparison table across the lessons (docs/benchmarks.md explains it):
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
#   scripts/run_benchmarks.sh --llama-cpp-only  only the llama.cpp peer's rounds and our rows
#                                             beside them, and only their table (about 4
#                                             minutes here; --quick or --smoke: one round)
#
# Writes build/bench/: bench_NN_*.json (Google Benchmark), reference.json (our logits
# for the peer), torch_peer.json (PyTorch on the same OpenBLAS kernels as ours) and
# torch_peer_installed.json (PyTorch as Debian installs it, OpenBLAS choosing its
# kernels itself), llama_cpp/ (the llama.cpp peer: the GGUF files it runs, and each
# round's peer_rN.json beside our rows' bench_06_rN.json and bench_08_rN.json), table.md,
# cache_chart.dat / .gp / .svg, batch_chart.dat / .gp / .svg,
# and (full run only) renders docs/benchmarks-cache.svg and docs/benchmarks-batch.svg
# (lesson 08's page shows the second). Leave the machine otherwise idle.
#
# Settings: OpenBLAS and OpenMP with ONE thread for every decoding benchmark, TWO for
# the training step (lesson 00); 3 repetitions of each benchmark, the median counts;
# at least 0.5 s per repetition. The PyTorch peer uses the same thread counts.
#
# The llama.cpp peer (benchmarks/peers/llama_cpp_peer.mjs, one thread) runs in 3 rounds
# (--quick, --smoke: 1), each beside one repetition of our rows that do the same work
# (lesson06/write_chars/*/120/cache:1, lesson08/step/*/fp32/B:16, lesson08/big/*/B:1 and
# B:16), the peer first in odd rounds and ours first in even ones. It needs Node and
# node-llama-cpp (scripts/install_deps.sh --client); without them it is skipped with a line.
set -euo pipefail
cd "$(dirname "$0")/.."

smoke=0
quick=0
build=1
build_dir=build/release
note=""
llama_cpp_only=0
while (($#)); do
  case "$1" in
    --smoke) smoke=1 ;;
    --quick) quick=1 ;;
    --no-build) build=0 ;;
    --build-dir) build_dir="${2:?--build-dir needs a folder}"; shift ;;
    --note) note="${2:?--note needs a text}"; shift ;;
    --llama-cpp-only) llama_cpp_only=1 ;;
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
  if ((llama_cpp_only)); then
    cmake --build "$build_dir" --target bench_06_kvcache bench_08_many_poems export_gguf
  else
    cmake --build "$build_dir" --target benchmarks export_gguf
  fi
fi
bin=$build_dir/benchmarks
programs=(bench_00_train_step bench_01_probabilities bench_02_temperature bench_03_topk_topp
          bench_04_continuation bench_05_acrostic bench_06_kvcache bench_07_verse
          bench_08_many_poems bench_09_inside bench_10_cache_size bench_11_server
          bench_12_speculative bench_13_cache_budget bench_dump_logits)
((llama_cpp_only)) && programs=(bench_06_kvcache bench_08_many_poems)
for program in "${programs[@]}"; do
  [[ -x "$bin/$program" ]] || { echo "error: $bin/$program not built (drop --no-build)" >&2; exit 1; }
done
export_gguf=$build_dir/lessons/08_many_poems/export_gguf
load_before=$(cut -d' ' -f1 /proc/loadavg)
echo "== load before the run: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min); leave the machine idle"
mkdir -p "$out"
((llama_cpp_only)) || rm -f "$out"/bench_*.json "$out"/torch_peer*.json
rm -rf "$out/llama_cpp"

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

run_ours() {  # every program, then the PyTorch peer
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
}

# The llama.cpp peer: our model and lesson 08's large model exported as GGUF, run in
# llama.cpp (benchmarks/peers/llama_cpp_peer.mjs) in rounds, each beside one repetition of
# our rows that do the same work; the peer first in odd rounds, ours first in even ones.
llama_rows='^lesson08/(step/(plain|tuned)/fp32/B:16|big/plain/(fp32|int8)/B:(1|16)|big/tuned/fp32/B:(1|16))/'
run_llama_cpp_peer() {
  local llama_dir=$out/llama_cpp rounds=3 peer_flags=()
  if ! command -v node >/dev/null; then
    echo "== llama.cpp peer skipped: Node is not installed (scripts/install_deps.sh --client)"
    return
  fi
  if [[ ! -f tests/llama_cpp/node_modules/node-llama-cpp/package.json ]]; then
    echo "== llama.cpp peer skipped: node-llama-cpp is not in tests/llama_cpp/node_modules" \
         "(scripts/install_deps.sh --client)"
    return
  fi
  ((smoke || quick)) && rounds=1
  ((smoke)) && peer_flags=(--chars 16)
  mkdir -p "$llama_dir"
  echo "== llama.cpp peer: exporting the GGUF files"
  "$export_gguf" --out "$llama_dir/tang-f32.gguf" >/dev/null
  "$export_gguf" --out "$llama_dir/gpt2-small-shaped-f32.gguf" --gpt2-small-shaped >/dev/null
  "$export_gguf" --out "$llama_dir/gpt2-small-shaped-q8_0.gguf" --gpt2-small-shaped \
    --type q8_0 >/dev/null
  local round
  for ((round = 1; round <= rounds; ++round)); do
    local peer=(node benchmarks/peers/llama_cpp_peer.mjs --out "$llama_dir/peer_r$round.json"
                --model "ours/f32=$llama_dir/tang-f32.gguf"
                --model "big/f32=$llama_dir/gpt2-small-shaped-f32.gguf"
                --model "big/q8_0=$llama_dir/gpt2-small-shaped-q8_0.gguf" "${peer_flags[@]}")
    local ours=(run_one_repetition "$llama_dir" "$round")
    echo "== llama.cpp peer, round $round of $rounds"
    if ((round % 2)); then
      "${peer[@]}" || llama_status=$?
      "${ours[@]}"
    else
      "${ours[@]}"
      "${peer[@]}" || llama_status=$?
    fi
  done
  rm -f "$llama_dir"/*.gguf  # 0.5 GB; export_gguf writes them again in a second
}

run_one_repetition() {  # run_one_repetition <folder> <round>: our rows beside the peer's
  local folder=$1 round=$2 name
  for name in bench_06_kvcache bench_08_many_poems; do
    local filter='^lesson06/write_chars/(plain|tuned)/120/cache:1/'
    [[ $name == bench_08_many_poems ]] && filter=$llama_rows
    local log=$folder/${name%%_[a-z]*}_r$round.log  # Google Benchmark's console output
    echo "$name (its rows beside the peer's, one repetition)"
    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 "$bin/$name" --threads=1 --benchmark_filter="$filter" \
      --benchmark_min_time="$min_time" --benchmark_enable_random_interleaving=true \
      --benchmark_out="$folder/${name%%_[a-z]*}_r$round.json" --benchmark_out_format=json \
      >"$log" 2>&1 || { cat "$log" >&2; return 1; }
  done
}

peer_status=0
llama_status=0
((llama_cpp_only)) || run_ours
run_llama_cpp_peer
if ((llama_cpp_only)) && ! compgen -G "$out/llama_cpp/peer_r*.json" >/dev/null; then
  exit "$llama_status"  # skipped (its line above says why) or failed: no table to print
fi

load_after=$(cut -d' ' -f1 /proc/loadavg)
echo "== load after the run: $(cut -d' ' -f1-3 /proc/loadavg)"
settings="$repetitions repetitions (median), min time ${min_time} s each; decoding 1 thread, training 2;"
((llama_cpp_only)) && settings="our rows: one repetition a round, min time ${min_time} s, 1 thread;"
settings+=" load average (1 min) $load_before before the run, $load_after after it"
echo
compare_flags=()
((llama_cpp_only)) && compare_flags=(--llama-cpp-only)
"$python" benchmarks/compare.py "$out" --note "$note" --settings "$settings" --build-dir "$build_dir" \
  "${compare_flags[@]}"
if ((llama_status != 0)); then
  echo "error: the llama.cpp peer failed (see its output above)" >&2
  exit 1
fi
((llama_cpp_only)) && { echo "table: $out/llama_cpp/table.md"; exit 0; }

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
