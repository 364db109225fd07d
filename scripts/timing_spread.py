#!/usr/bin/env python3
"""timing_spread.py: how far a benchmark's timings move between runs on this machine.

Runs each named program of build/release/benchmarks with Google Benchmark's
repetitions (each repetition is a separate timed run of the row) and prints, per
row, the spread of its real time: (slowest - fastest) / median. Then one line
per program: its rows' median spread and its largest. The pages quote these
lines wherever they give one run's timings (scripts/update_lesson_readmes.py
--check asks for them).

  scripts/timing_spread.py [--repetitions 5] [--min-time 0.2] [--filter REGEX]
                           [--threads 1] bench_06_kvcache [bench_08_many_poems ...]

One thread unless --threads says otherwise (scripts/run_benchmarks.sh runs the
decoding benchmarks on one, the training step on two); the machine should be
otherwise quiet, or the spread is the load's.
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parent.parent


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("programs", nargs="+")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--min-time", type=float, default=0.2)
    parser.add_argument("--filter", default="")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rows", action="store_true", help="print every row, not just the summary")
    args = parser.parse_args()
    if args.repetitions < 2:
        sys.exit("timing_spread.py: --repetitions must be at least 2 (a spread needs two runs)")
    threads = str(args.threads)
    env = dict(os.environ, OPENBLAS_NUM_THREADS=threads, OMP_NUM_THREADS=threads)
    for program in args.programs:
        binary = root / "build/release/benchmarks" / program
        if not binary.exists():
            sys.exit(f"timing_spread.py: {binary.relative_to(root)} is not built: "
                     "cmake --build --preset release first")
        command = [str(binary), f"--threads={threads}", f"--benchmark_repetitions={args.repetitions}",
                   f"--benchmark_min_time={args.min_time}", "--benchmark_format=json"]
        if args.filter:
            command.append(f"--benchmark_filter={args.filter}")
        result = subprocess.run(command, capture_output=True, text=True, env=env)
        if result.returncode != 0:
            sys.exit(f"timing_spread.py: {program} failed: {result.stderr.strip()[-300:]}")
        times = {}
        for row in json.loads(result.stdout)["benchmarks"]:
            if row.get("run_type") == "iteration":
                times.setdefault(row["run_name"], []).append(row["real_time"])
        spreads = {name: (max(t) - min(t)) / statistics.median(t)
                   for name, t in times.items() if len(t) >= 2 and statistics.median(t) > 0}
        if not spreads:
            sys.exit(f"timing_spread.py: {program} gave no repeated rows")
        if args.rows:
            for name, s in sorted(spreads.items(), key=lambda kv: -kv[1]):
                print(f"  {100 * s:6.1f}%  {name}")
        worst = max(spreads, key=spreads.get)
        print(f"{program}: {len(spreads)} rows, {args.repetitions} repetitions: spread median "
              f"{100 * statistics.median(spreads.values()):.1f}%, largest "
              f"{100 * spreads[worst]:.1f}% ({worst})")


if __name__ == "__main__":
    main()
