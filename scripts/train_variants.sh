#!/usr/bin/env bash
# train_variants.sh: lesson 10's models, three initialisation seeds of each variant.
#
# Multi-head attention, grouped-query (2 key/value heads), multi-query (1) and
# latent attention (d_c = 32), each trained with initialisation seeds 1, 2 and 3
# for the same number of steps on the same corpus, and all twelve on one batch
# order (--data-seed 1337): the run of a variant with seed s and the multi-head
# run with seed s differ only in the variant, so their held-out losses can be
# compared pair by pair. The runs go seed by seed (all four variants of seed 1
# first), so a part of the work already gives whole pairs.
#
# The models, their logs (<name>.csv, and the trainer's own lines in <name>.txt)
# and training states (to resume) go to runs/variants/ (runs/variants-<steps>/
# for another number of steps); stopped, it goes on where it stopped when
# started again. The course ships the models and logs of the default run in
# data/variants/, which lesson_10_cache_size reads; --variants picks another folder.
#
#   scripts/train_variants.sh [steps] [threads] [jobs]   defaults: 2000 steps, 1 thread, 1 job
#
# About 20 minutes a model with one thread (0.6 s a step of 32 x 128 characters);
# jobs 2 trains two models at once (one thread each uses both cores of a
# two-core machine).
set -euo pipefail
cd "$(dirname "$0")/.."
steps="${1:-2000}"
threads="${2:-1}"
jobs="${3:-1}"
trainer=build/release/lessons/00_train/lesson_00_train
if [[ ! -x "$trainer" ]]; then
  echo "error: $trainer not found: build first (cmake --preset release && cmake --build --preset release)" >&2
  exit 1
fi
if ! [[ "$steps" =~ ^[0-9]+$ && "$threads" =~ ^[1-9][0-9]*$ && "$jobs" =~ ^[1-9][0-9]*$ ]]; then
  echo "error: steps, threads and jobs are whole numbers (got '$steps' '$threads' '$jobs')" >&2
  exit 1
fi
out=runs/variants
[[ "$steps" == 2000 ]] || out="runs/variants-$steps"
mkdir -p "$out"
# A copy of the trainer: rebuilding the project meanwhile does not change a run.
cp "$trainer" "$out/lesson_00_train.new"
mv "$out/lesson_00_train.new" "$out/lesson_00_train"

data_seed=1337
train() {  # name, then the trainer's own flags for the variant
  local name="$1"
  shift
  if [[ -f "$out/$name.done" ]]; then
    echo "== $name: done already ($out/$name.safetensors)"
    return
  fi
  echo "== $name: $*"
  "$out/lesson_00_train" --steps "$steps" --warmup 100 --eval-every 500 --save-every 100 \
    --print-every 50 --threads "$threads" --resume --data-seed "$data_seed" \
    --out "$out/$name.safetensors" --log "$out/$name.csv" \
    --state "$out/$name.state.safetensors" "$@" >> "$out/$name.txt"
  touch "$out/$name.done"
  echo "== $name: done"
}

failed=0
for seed in 1 2 3; do
  for variant in multi_head grouped_query multi_query latent; do
    case "$variant" in
      multi_head) flags=() ;;
      grouped_query) flags=(--kv-heads 2) ;;
      multi_query) flags=(--kv-heads 1) ;;
      latent) flags=(--kv-latent 32) ;;
    esac
    while (( $(jobs -rp | wc -l) >= jobs )); do wait -n || failed=1; done
    train "${variant}_seed$seed" --seed "$seed" "${flags[@]}" &
  done
done
while (( $(jobs -rp | wc -l) > 0 )); do wait -n || failed=1; done
if (( failed )); then
  echo "error: a run failed (its lines are in $out/<name>.txt); start the script again to resume" >&2
  exit 1
fi
echo "== all twelve trained: lesson_10_cache_size --variants $out"
