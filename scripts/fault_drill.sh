#!/usr/bin/env bash
# fault_drill.sh: kill the trainer at random moments and check that nothing is lost.
#
# Trains a tiny model on the first 400 poems once without interruption (the
# reference), then trains it again from scratch while killing it ROUNDS times
# (default 20) at random moments with SIGINT, SIGTERM, SIGHUP, SIGKILL or a
# closed pipe (SIGPIPE), resuming with --resume after each. After every kill it
# checks that the CSV log has only whole rows, each step once and in order;
# at the end, that the final model is byte for byte the reference's. Run as
# root, it also fills a small disk under the log and the state (a tmpfs with
# room for one training state and a half: the state saved at step 0 fits, the
# next save does not): the run must stop with an error and keep whole rows and
# its last saved state.
#
#   scripts/fault_drill.sh            # 20 rounds, under a minute
#   ROUNDS=5 scripts/fault_drill.sh
#   STEPS=2000 scripts/fault_drill.sh # a shorter run (default 6000 steps), for slow builds
#
# Needs a release build (scripts/test.sh or cmake --build --preset release).
set -euo pipefail
cd "$(dirname "$0")/.."
trainer=${TRAINER:-build/release/lessons/00_train/lesson_00_train}
[[ -x $trainer ]] || { echo "fault_drill.sh: build first: cmake --build --preset release" >&2; exit 1; }
rounds=${ROUNDS:-20}
steps=${STEPS:-6000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
head -n 400 data/tang_poems.txt > "$work/poems.txt"
tiny=(--data "$work/poems.txt" --layers 1 --heads 2 --dims 16 --batch 4 --block-size 16
      --steps "$steps" --warmup 10 --eval-every 500 --save-every 7 --print-every 1 --threads 1)

echo "== reference run (uninterrupted)"
"$trainer" "${tiny[@]}" --out "$work/ref.safetensors" --state "$work/ref_state.safetensors" \
  --log "$work/ref.csv" > /dev/null

run=(--out "$work/model.safetensors" --state "$work/state.safetensors" --log "$work/log.csv")
check_log() {  # whole rows, steps 1..n once each, in order
  python3 - "$work/log.csv" "$work/state.safetensors" <<'PY'
import os, sys
if not os.path.exists(sys.argv[1]):  # killed while starting: nothing written yet, so none may be
    assert not os.path.exists(sys.argv[2]), "a saved state but no log"
    print("  log: none yet (stopped before the run began), and no state")
    sys.exit(0)
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
assert lines[0] == "step,lr,train_loss,heldout_loss,grad_norm,tokens_per_s,elapsed_s", "bad header"
rows = [l for l in lines[1:] if l]
assert lines[-1] == "", "the last row is cut off"
for i, row in enumerate(rows, 1):
    assert row.count(",") == 6, f"row {i} has {row.count(',') + 1} fields: {row!r}"
    assert int(row.split(",")[0]) == i, f"row {i} is step {row.split(',')[0]}"
print(f"  log: {len(rows)} whole rows, steps 1..{len(rows)} once each")
PY
}

signals=(INT TERM HUP KILL PIPE)
for ((round = 1; round <= rounds; round++)); do
  signal=${signals[RANDOM % ${#signals[@]}]}
  delay=$(awk -v r=$RANDOM 'BEGIN { printf "%.2f", 0.1 + (r % 50) / 100 }')
  resume=(); [[ -f $work/state.safetensors ]] && resume=(--resume)
  if [[ $signal == PIPE ]]; then
    # the reader goes away after a few lines, as `| tee` does on Ctrl-C
    lines=$((5 + RANDOM % 30))
    status=0
    "$trainer" "${tiny[@]}" "${run[@]}" "${resume[@]}" 2>/dev/null | head -n "$lines" > /dev/null || status=$?
    echo "round $round: closed pipe after $lines lines"
  else
    "$trainer" "${tiny[@]}" "${run[@]}" "${resume[@]}" > /dev/null 2>&1 &
    pid=$!
    sleep "$delay"
    kill -s "$signal" "$pid" 2>/dev/null || true
    wait "$pid" || true
    echo "round $round: SIG$signal after ${delay}s"
  fi
  check_log
done

echo "== finishing the interrupted run"
"$trainer" "${tiny[@]}" "${run[@]}" --resume > /dev/null
check_log
same=1
cmp -s "$work/model.safetensors" "$work/ref.safetensors" || same=0

state_kb=$(( $(stat -c %s "$work/ref_state.safetensors") / 1024 ))
if [[ $(id -u) -eq 0 ]] && mkdir -p "$work/small" &&
   mount -t tmpfs -o size=$(( state_kb * 3 / 2 ))k tmpfs "$work/small" 2>/dev/null; then
  echo "== a full disk under the log and the state"
  full=(--out "$work/small_model.safetensors" --state "$work/small/state.safetensors" --log "$work/small/log.csv")
  status=0
  "$trainer" "${tiny[@]}" "${full[@]}" > /dev/null 2> "$work/full.err" || status=$?
  cp "$work/small/log.csv" "$work/log.csv"
  umount "$work/small"
  if [[ $status -eq 0 ]] || ! grep -q "error:" "$work/full.err"; then
    echo "fault drill FAILED: a full disk did not stop the run with an error" >&2; exit 1
  fi
  echo "  stopped with: $(cat "$work/full.err")"
  check_log
else
  echo "== (not root: the full-disk stage is skipped)"
fi

echo "== outputs: never replaced unasked, never an input, never shared"
refused() {  # refused <what> <needle> <trainer args...>: exit 1 with one error line, nothing left behind
  local what=$1 needle=$2; shift 2
  local before; before=$(ls -A "$work" data | sha1sum)
  local status=0
  "$trainer" "$@" > "$work/refused.out" 2> "$work/refused.err" || status=$?
  if [[ $status -eq 0 ]] || ! grep -q "^error: .*$needle" "$work/refused.err" || [[ -s $work/refused.out ]]; then
    echo "fault drill FAILED: $what was not refused with '$needle': $(cat "$work/refused.err")" >&2; exit 1
  fi
  rm -f "$work/refused.out" "$work/refused.err"
  if [[ ${RUNNING:-0} -eq 0 && $(ls -A "$work" data | sha1sum) != "$before" ]]; then
    echo "fault drill FAILED: refusing $what left files behind" >&2; exit 1
  fi
  echo "  $what: $(head -c 110 <<< "${needle}") ... refused, nothing changed"
}
echo "keep me" > "$work/theirs.safetensors"
refused "an existing --out this run did not write" "did not write it" "${tiny[@]}" \
  --out "$work/theirs.safetensors" --state "$work/new/state.safetensors" --log "$work/new/log.csv"
refused "--out naming the corpus" "is the corpus this run reads" "${tiny[@]}" \
  --out "$work/poems.txt" --state "$work/new/state.safetensors" --log "$work/new/log.csv"
refused "--state inside data/" "in the course's data folder" "${tiny[@]}" \
  --out "$work/new/m.safetensors" --state data/rhymes.tsv --log "$work/new/log.csv"
[[ $(cat "$work/theirs.safetensors") == "keep me" ]] || { echo "fault drill FAILED: --out was replaced" >&2; exit 1; }
# two runs with their own states but one --out and --log: the second is refused while the first runs
shared=(--out "$work/shared.safetensors" --log "$work/shared.csv")
"$trainer" "${tiny[@]}" "${shared[@]}" --state "$work/first_state.safetensors" > /dev/null 2>&1 &
first=$!
for _ in $(seq 100); do [[ -e $work/shared.safetensors.lock ]] && break; sleep 0.05; done
# (the first run writes meanwhile: only the second run's own files are looked for)
RUNNING=1 refused "a second run writing the same --out and --log" "another lesson_00_train is writing --out" \
  "${tiny[@]}" "${shared[@]}" --state "$work/second_state.safetensors"
ls "$work"/second_state* > /dev/null 2>&1 && { echo "fault drill FAILED: the refused run left its state" >&2; exit 1; }
kill -INT "$first"; wait "$first" || true
[[ ! -e $work/shared.safetensors.lock ]] || { echo "fault drill FAILED: the lock file stayed" >&2; exit 1; }

if [[ $same -eq 1 ]]; then
  echo "fault drill passed: after $rounds interruptions the final model equals the uninterrupted one"
else
  echo "fault drill FAILED: the final model differs from the uninterrupted run's" >&2
  exit 1
fi
