#!/usr/bin/env bash
# train_variants.sh: lesson 10's five models, one after another, with one recipe.
#
# Multi-head attention twice (seeds 1337 and 2, to measure how far two runs of
# the same recipe land apart), then grouped-query (2 key/value heads),
# multi-query (1) and latent attention (d_c = 32), each for the same number of
# steps on the same corpus. The models, their logs and training states (to
# resume) go to runs/variants/ (runs/variants-<steps>/ for another number of
# steps); stopped, it goes on where it stopped when started again. The course
# ships the five models and logs of the default run in data/variants/, which
# lesson_10_cache_size reads; --variants picks another folder.
#
#   scripts/train_variants.sh [steps] [threads]     defaults: 2000 steps, 1 thread
#
# About 20 minutes a model with one thread (0.6 s a step of 32 x 128 characters).
set -euo pipefail
cd "$(dirname "$0")/.."
steps="${1:-2000}"
threads="${2:-1}"
trainer=build/release/lessons/00_train/lesson_00_train
if [[ ! -x "$trainer" ]]; then
  echo "error: $trainer not found: build first (cmake --preset release && cmake --build --preset release)" >&2
  exit 1
fi
out=runs/variants
[[ "$steps" == 2000 ]] || out="runs/variants-$steps"
mkdir -p "$out"
# A copy of the trainer: rebuilding the project meanwhile does not change a run.
cp "$trainer" "$out/lesson_00_train.new"
mv "$out/lesson_00_train.new" "$out/lesson_00_train"

train() {  # name, then the trainer's own flags for the variant
  local name="$1"
  shift
  if [[ -f "$out/$name.done" ]]; then
    echo "== $name: done already ($out/$name.safetensors)"
    return
  fi
  echo "== $name: $*"
  "$out/lesson_00_train" --steps "$steps" --warmup 100 --eval-every 500 --save-every 100 \
    --print-every 50 --threads "$threads" --resume \
    --out "$out/$name.safetensors" --log "$out/$name.csv" \
    --state "$out/$name.state.safetensors" "$@"
  touch "$out/$name.done"
}

train multi_head --seed 1337
train multi_head_seed2 --seed 2
train grouped_query --seed 1337 --kv-heads 2
train multi_query --seed 1337 --kv-heads 1
train latent --seed 1337 --kv-latent 32
echo "== all five trained: lesson_10_cache_size --variants $out"
