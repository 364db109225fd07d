#!/usr/bin/env bash
# The lesson path gives the same bits on other CPUs: runs the lesson programs'
# logits test (tests/lesson_logits_test) and, unless --logits-only, lessons
# 01-05 with their default flags on emulated CPUs, and compares with this
# machine. QEMU's user-mode emulator (Debian's qemu-user, which
# scripts/install_deps.sh installs) runs our x86-64 programs on a CPU model of
# our choosing and reports that CPU's vendor and instruction sets to them:
#   Haswell-v4   an Intel CPU with AVX2 and FMA, without AVX-512
#   EPYC-Rome    an AMD CPU with AVX2 and FMA, without AVX-512
# (QEMU cannot emulate AVX-512, so an AVX-512 CPU is only ever the real one.)
# Emulation is about 60 times slower than the real CPU: the logits test takes
# seconds, the five lessons about 20 minutes in all.
#
#   scripts/check_other_cpus.sh [--logits-only] [--build-dir DIR]
# Exit 0: every run printed exactly what this machine printed; 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/release
logits_only=0
while (($#)); do
  case "$1" in
    --logits-only) logits_only=1 ;;
    --build-dir) build="$2"; shift ;;
    *) echo "check_other_cpus.sh: unknown argument '$1' (try --logits-only or --build-dir DIR)" >&2; exit 2 ;;
  esac
  shift
done
if ! command -v qemu-x86_64 >/dev/null; then
  echo "check_other_cpus.sh: qemu-x86_64 not found: run scripts/install_deps.sh" >&2
  exit 2
fi
test_program="$build/tests/lesson_logits_test"
if [[ ! -x "$test_program" ]]; then
  echo "check_other_cpus.sh: $test_program not built: run scripts/test.sh (or cmake --build --preset release)" >&2
  exit 2
fi
if [[ ! -f data/tang_gpt.safetensors ]]; then
  echo "check_other_cpus.sh: data/tang_gpt.safetensors missing: nothing to compare" >&2
  exit 2
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failed=0
lessons=(01_probabilities 02_temperature 03_topk_topp 04_continuation 05_acrostic)
if ((!logits_only)); then
  for lesson in "${lessons[@]}"; do
    "$build/lessons/$lesson/lesson_$lesson" >"$out/native_$lesson.txt"
  done
fi

for cpu in Haswell-v4 EPYC-Rome; do
  # QEMU warns about host-only CPUID bits it leaves out; they do not matter here.
  if ! qemu-x86_64 -cpu "$cpu" "$test_program" >"$out/logits_$cpu.txt" 2>/dev/null; then
    echo "$cpu: lesson_logits_test FAILED:"; grep -E "FAILED|Failure|differ" "$out/logits_$cpu.txt" | head -20
    failed=1
    continue
  fi
  cpu_line=$(grep -m1 '^cpu:' "$out/logits_$cpu.txt")
  if grep -q SKIPPED "$out/logits_$cpu.txt"; then
    echo "$cpu: lesson_logits_test skipped a test: the comparison did not run"; failed=1; continue
  fi
  case "$cpu:$cpu_line" in
    Haswell-v4:*"vendor intel, avx2 1, fma 1, avx512f 0"*|EPYC-Rome:*"vendor amd, avx2 1, fma 1, avx512f 0"*) ;;
    *) echo "$cpu: the emulator did not present the expected CPU ($cpu_line)"; failed=1; continue ;;
  esac
  echo "$cpu ($cpu_line): logits bit for bit as tests/golden/lesson_logits.bin"
  ((logits_only)) && continue
  for lesson in "${lessons[@]}"; do
    qemu-x86_64 -cpu "$cpu" "$build/lessons/$lesson/lesson_$lesson" >"$out/${cpu}_$lesson.txt" 2>/dev/null
    if cmp -s "$out/native_$lesson.txt" "$out/${cpu}_$lesson.txt"; then
      echo "$cpu: lesson_$lesson prints the same text as this machine"
    else
      echo "$cpu: lesson_$lesson DIFFERS from this machine:"
      diff "$out/native_$lesson.txt" "$out/${cpu}_$lesson.txt" | head -20
      failed=1
    fi
  done
done
exit "$failed"
