#!/usr/bin/env python3
"""One comparison table across the lessons, from one run of scripts/run_benchmarks.sh.

  python3 benchmarks/compare.py build/bench [--note TEXT] [--settings TEXT]

Reads, from that folder (Python standard library only):
  bench_*.json       Google Benchmark output, one file per lesson program; with
                     repetitions, the median aggregate of each benchmark is used
  torch_peer.json    the PyTorch peer's results, on the same OpenBLAS kernels as
                     the C++ (optional)
  torch_peer_installed.json   the same with OpenBLAS as Debian installs it, choosing
                     its kernels itself (optional)
  llama_cpp/         the llama.cpp peer's rounds (optional): peer_rN.json from
                     benchmarks/peers/llama_cpp_peer.mjs, and our matching rows of the same
                     round, bench_06_rN.json and bench_08_rN.json
Prints the table and writes:
  table.md           the same table in Markdown, with machine, compiler and settings
  cache_chart.dat    time versus length, with and without the cache (gnuplot data)
  cache_chart.gp     the gnuplot script that renders it (only when lesson 06 ran):
                     cd FOLDER && gnuplot -e "out='x.svg'" cache_chart.gp
  batch_chart.dat    lesson 08: chars/s against B, measured and predicted, per model
                     and weight format (gnuplot data)
  batch_chart.gp     the script that renders it (only when lesson 08 ran)

"x floor" divides a step's time by the floor measured IN THE SAME PROGRAM (the
benchmark floor/gemv_all_weights: one cblas_sgemv per weight matrix, one thread).
Rows named .../plain/... run the lesson path (the code the lessons run), .../tuned/...
the same work under the hood (common/fast/); a second table puts each pair side by side,
and a third compares cached decoding with its goals (lesson path at most 1.5x the floor,
tuned at most 1.25x).
Lesson 07's rows get a table of their own: a constrained step over the plain one, and a
whole 七绝 at beam 1, 4 and 8 over the form-only 七绝 (the lesson's claim for beam 4 is
printed beside it, not checked).
Lesson 08's rows get one too: 32 poems at B = 1 .. 32 in flight (chars/s over B = 1),
cached decoding with fp32, bf16 and int8 weights (fp32 over each), the 17 matrix products of
a step per format on 1 and 16 rows, and a shared opening prefilled once against once per
poem; the lesson's goals stand beside the measured ratios, not checked. When the PyTorch peer
wrote its batched timing (the same 32 poems at B = 1 .. 32, one forward per step for the whole
batch), the B rows get PyTorch's chars/s, its speed-up over its own B = 1, and ours over it;
and a row gives int8 cached decoding (ours, 8 poems at B = 1) over PyTorch's cached decoding
of 8 poems at B = 1, in chars/s, beside the goal of at least 10x.
"vs" is how many times faster the C++ is than the peer, measured in the same run: against
PyTorch on the same BLAS kernels, and against PyTorch as installed.
When the llama.cpp peer ran, a last table puts each of its rows (our model and GPT-2 small's
shape, 1 text and 16) beside our plain and tuned rows of the same rounds and the cost model's
prediction: chars/s as the median of the rounds with their range, and each ratio as the median
of the rounds' ratios with their range; a second one splits llama.cpp's time per character into
its own decode calls and the rest of the call. --llama-cpp-only prints just those two tables
(and writes them to llama_cpp/table.md).
"""

import argparse
import glob
import json
import os
import platform
import re
import statistics
import subprocess
import sys

UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
RATE_NAMES = {"chars_per_s": "chars/s", "tokens_per_s": "tokens/s", "samples_per_s": "samples/s",
              "calls_per_s": "calls/s", "steps_per_s": "steps/s", "rows_per_s": "rows/s",
              "poems_per_s": "poems/s"}
FLOOR = "floor/gemv_all_weights"


def load_program(path):
    """{benchmark name: {"time_s": per iteration, counters...}} and the context."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    medians, iterations, order = {}, {}, []
    for b in data.get("benchmarks", []):
        name = b.get("run_name", b["name"]).replace("/real_time", "").replace("/manual_time", "")
        if name not in order:
            order.append(name)
        entry = {k: v for k, v in b.items() if isinstance(v, (int, float))}
        entry["time_s"] = b["real_time"] * UNIT_SECONDS[b.get("time_unit", "ns")]
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                medians[name] = entry
        else:
            iterations.setdefault(name, []).append(entry)
    # rows in the order of their names, numbers by value: with the repetitions interleaved
    # the file lists them in the order they happened to run
    order.sort(key=lambda n: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", n)])
    runs = {}
    for name in order:
        if name in medians:
            runs[name] = medians[name]
        elif name in iterations:  # no repetitions: median of what is there
            keys = set.intersection(*(set(e) for e in iterations[name]))
            runs[name] = {k: statistics.median(e[k] for e in iterations[name]) for k in keys}
        if name in runs and len(iterations.get(name, [])) > 1:  # the repetitions' extremes
            times = [e["time_s"] for e in iterations[name]]
            runs[name]["range_s"] = (min(times), max(times))
    return runs, order, data.get("context", {})


def steps_of(r):
    """Steps (characters, tokens, calls) per iteration: the "steps" counter of StepClock."""
    if "steps" in r:
        return r["steps"]
    if r.get("step_us"):  # older files: from the clock's own time per step
        return max(1, round(r["time_s"] * 1e6 / r["step_us"]))
    return 1


def fmt_time(us):
    if us >= 1e6:
        return f"{us / 1e6:.2f} s"
    if us >= 1e3:
        return f"{us / 1e3:.2f} ms"
    return f"{us:.1f} us" if us >= 10 else f"{us:.2f} us"


def fmt_rate(value):
    if value >= 1e6:
        return f"{value / 1e6:.2f} M"
    if value >= 1e4:
        return f"{value / 1e3:.1f} k"
    return f"{value:.0f}" if value >= 100 else f"{value:.1f}"


def compiler_line(build_dir):
    cache = os.path.join(build_dir, "CMakeCache.txt")
    compiler = "c++"
    try:
        with open(cache, encoding="utf-8") as f:
            for line in f:
                if line.startswith("CMAKE_CXX_COMPILER:"):
                    compiler = line.split("=", 1)[1].strip()
    except OSError:
        pass
    try:
        out = subprocess.run([compiler, "--version"], capture_output=True, text=True, check=False)
        return out.stdout.splitlines()[0]
    except (OSError, IndexError):
        return compiler


def cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


class Table:
    def __init__(self, header):
        self.header, self.rows = header, []

    def add(self, *cells):
        self.rows.append([str(c) for c in cells])

    def markdown(self):
        widths = [max(len(r[i]) for r in [self.header] + self.rows) for i in range(len(self.header))]
        def line(cells):
            return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"
        out = [line(self.header), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
        return "\n".join(out + [line(r) for r in self.rows])



def repository_path(path):
    """A file of this repository as a path inside it (data/tang_gpt.safetensors), not as
    the absolute path of the machine that ran the benchmarks; other paths as given."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    absolute = os.path.abspath(path)
    return os.path.relpath(absolute, root) if absolute.startswith(root + os.sep) else path

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", help="where run_benchmarks.sh put the JSON files")
    parser.add_argument("--note", default="", help="printed above the table (e.g. smoke run)")
    parser.add_argument("--settings", default="", help="the benchmark settings, for the record")
    parser.add_argument("--build-dir", default="build/release")
    parser.add_argument("--llama-cpp-only", action="store_true",
                        help="only the llama.cpp peer's tables (FOLDER/llama_cpp/table.md)")
    args = parser.parse_args()

    if args.llama_cpp_only:
        lines = llama_cpp_section(args.folder)
        if not lines:
            sys.exit(f"compare.py: no llama.cpp rounds in {args.folder}/llama_cpp")
        head = [f"**{args.note}**", ""] if args.note else []
        head += [f"- machine: {cpu_model()}, {os.cpu_count()} cores, {platform.system()} "
                 f"{platform.release()}", f"- compiler: {compiler_line(args.build_dir)}"]
        head += [f"- settings: {args.settings}", ""] if args.settings else [""]
        output = "\n".join(head + lines)
        print(output)
        with open(os.path.join(args.folder, "llama_cpp", "table.md"), "w", encoding="utf-8") as f:
            f.write(output)
        return 0

    files = sorted(glob.glob(os.path.join(args.folder, "bench_[0-9][0-9]_*.json")))
    if not files:
        sys.exit(f"compare.py: no bench_NN_*.json in {args.folder}: run scripts/run_benchmarks.sh")
    programs = {}
    context = {}
    for path in files:
        runs, order, ctx = load_program(path)
        programs[os.path.basename(path)[:-5]] = (runs, order)
        context = context or ctx
    peers = {}  # "same": same BLAS kernels as ours, "installed": OpenBLAS as installed
    for kind, name in (("same", "torch_peer.json"), ("installed", "torch_peer_installed.json")):
        path = os.path.join(args.folder, name)
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                peers[kind] = json.load(f)

    # everything by name, with the floor of its own program
    all_runs, floors = {}, {}
    for program, (runs, order) in programs.items():
        floor = runs[FLOOR]["time_s"] * 1e6 if FLOOR in runs else None
        floors[program] = floor
        for name in order:
            if name != FLOOR and name in runs:
                all_runs[name] = (program, runs[name], floor)

    def step_us(name):  # Google Benchmark's median real time per iteration / steps per iteration
        if name not in all_runs:
            return None
        r = all_runs[name][1]
        return r["time_s"] * 1e6 / steps_of(r)

    # PyTorch counterparts: the peer's time for the same work as one iteration, in us
    def peer_iteration_us(name, kind="same"):
        peer = peers.get(kind)
        if not peer:
            return None
        m = re.fullmatch(r"lesson06/write_chars/(?:plain|tuned)/(\d+)/cache:([01])", name)
        if m and m.group(1) in peer.get("generate", {}):
            return 1000.0 * peer["generate"][m.group(1)]["cache_ms" if m.group(2) == "1" else "no_cache_ms"]
        if name == "lesson00/train_step/32" and "train_step" in peer:
            return 1e6 * peer["train_step"]["seconds"]
        return None

    def peer_step_us(name, kind="same"):  # per character / token
        theirs = peer_iteration_us(name, kind)
        if theirs is None:
            return None
        return theirs / steps_of(all_runs[name][1])

    def x_floor_of(name):
        us, floor = step_us(name), all_runs.get(name, (None, None, None))[2]
        return us / floor if us and floor else None

    header = ["lesson", "benchmark", "time", "per char/token/call", "rate", "x floor"]
    if peers:  # no PyTorch columns when the peer did not run
        header += ["PyTorch, same BLAS", "vs", "PyTorch as installed", "vs"]
    table = Table(header)
    for program, (runs, order) in programs.items():
        lesson = program[len("bench_"):]
        for name in order:
            if name == FLOOR or name not in runs:
                continue
            r = runs[name]
            us = step_us(name)
            rate_key = next((k for k in RATE_NAMES if k in r), None)
            rate = f"{fmt_rate(1e6 / us)} {RATE_NAMES[rate_key]}" if rate_key else ""
            floor = floors[program]
            x_floor = f"{us / floor:.2f}" if ("x_floor" in r and floor) else ""
            peer_cells = []
            for kind in ("same", "installed"):
                theirs = peer_iteration_us(name, kind)
                peer_cells += [fmt_time(theirs), f"{theirs / (r['time_s'] * 1e6):.1f}x"] if theirs else ["", ""]
            table.add(lesson, name.split("/", 1)[1], fmt_time(r["time_s"] * 1e6), fmt_time(us), rate,
                      x_floor, *(peer_cells if peers else []))

    # plain (the lesson path) next to tuned (under the hood): every pair of rows whose names
    # differ only in that part
    # "behind" where the tuned median is slower: "beyond the spread" when even the tuned
    # row's fastest repetition was slower than the plain row's slowest
    pairs = Table(["benchmark", "plain", "tuned", "plain / tuned", "x floor, plain", "x floor, tuned",
                   "tuned behind"])
    behind, beyond = [], []
    for name in all_runs:
        parts = name.split("/")
        if "plain" not in parts:
            continue
        i = parts.index("plain")
        tuned = "/".join(parts[:i] + ["tuned"] + parts[i + 1:])
        if tuned not in all_runs:
            continue
        plain_us, tuned_us = step_us(name), step_us(tuned)
        with_floor = "x_floor" in all_runs[name][1]
        cells = [f"{x:.2f}" if (x is not None and with_floor) else ""
                 for x in (x_floor_of(name), x_floor_of(tuned))]
        verdict = ""
        if tuned_us > plain_us:
            behind.append(name)
            plain_range, tuned_range = (all_runs[n][1].get("range_s") for n in (name, tuned))
            if not (plain_range and tuned_range):
                verdict = "one timing: no spread"
            elif tuned_range[0] > plain_range[1]:
                verdict = "beyond the spread"
                beyond.append(name)
            else:
                verdict = "within the spread"
        pairs.add("/".join(parts[:i] + parts[i + 1:]), fmt_time(plain_us), fmt_time(tuned_us),
                  f"{plain_us / tuned_us:.2f}x", *cells, verdict)

    floor_cells = ", ".join(f"{p[6:8]}: {fmt_time(f)}" for p, f in floors.items() if f)
    weight_mb = next((runs[FLOOR].get("weight_MB") for runs, _ in programs.values() if FLOOR in runs), None)

    # the cost model: every row with a predicted_<rate> counter, beside its measured <rate>
    predicted = Table(["benchmark", "measured", "predicted", "measured / predicted"])
    for name, (program, r, _) in all_runs.items():
        for key in [k for k in r if k.startswith("predicted_")]:
            rate_key = key[len("predicted_"):]
            if r.get(rate_key) and r[key]:
                unit = RATE_NAMES.get(rate_key, rate_key)
                predicted.add(name, f"{fmt_rate(r[rate_key])} {unit}", f"{fmt_rate(r[key])} {unit}",
                              f"{r[rate_key] / r[key]:.2f}")

    # the goals: measured against them in this run
    goals = Table(["what", "measured", "goal", "within"])
    for path, limit in (("plain", 1.5), ("tuned", 1.25)):
        who = "lesson path (plain)" if path == "plain" else "tuned path"
        for n in (120,):
            name = f"lesson06/write_chars/{path}/{n}/cache:1"
            x = x_floor_of(name)
            if x:
                goals.add(f"cached decoding, {n} chars, {who}: time per char / floor",
                          f"{x:.2f}x ({1e6 / step_us(name):.0f} chars/s)", f"<= {limit}x",
                          "yes" if x <= limit else "NO")
    peer_names = {"same": "PyTorch on the same BLAS kernels", "installed": "PyTorch as installed"}
    for kind, who in peer_names.items():
        for n in (32, 64, 120):
            theirs = peer_step_us(f"lesson06/write_chars/tuned/{n}/cache:1", kind)
            ours = step_us(f"lesson06/write_chars/tuned/{n}/cache:1")
            if theirs and ours:
                goals.add(f"cached decoding, {n} chars: tuned C++ vs {who} (1 thread each)",
                          f"{theirs / ours:.1f}x", ">= 10x", "yes" if theirs / ours >= 10 else "NO")
    ours_train = all_runs.get("lesson00/train_step/32", (None, {}, None))[1].get("tokens_per_s")
    for kind, who in peer_names.items():
        peer_train = peers.get(kind, {}).get("train_step")
        if ours_train and peer_train:
            ratio = ours_train / peer_train["tokens_per_s"]  # both: B*T tokens / median step time
            goals.add(f"training step 32 x 128: C++ vs {who}, tokens/s (2 threads each)",
                      f"{ratio:.1f}x", ">= 2x", "yes" if ratio >= 2 else "NO")
    # other ratios worth watching (no goal)
    ratios = Table(["ratio", "measured"])
    for path in ("plain", "tuned"):
        top_p, step = step_us(f"lesson03/top_p/{path}"), step_us(f"lesson06/write_chars/{path}/120/cache:1")
        if top_p and step:
            ratios.add(f"top-p ({path}) on the full vocabulary / one cached step ({path}, 120 chars)",
                       f"{100 * top_p / step:.1f}%")
    for path in ("plain", "tuned"):
        for n, prefix in ((32, "lesson06/write_chars"), (64, "lesson06/write_chars"),
                          (120, "lesson06/write_chars"), (500, "lesson06/block512")):
            slow = step_us(f"{prefix}/{path}/{n}/cache:0")
            fast = step_us(f"{prefix}/{path}/{n}/cache:1")
            if slow and fast:
                where = "context-512 model" if "block512" in prefix else "course model"
                ratios.add(f"without / with cache, {n} chars ({where}, {path})", f"{slow / fast:.1f}x")

    # lesson 07 (bench_07_verse): what the constraint adds to one step, and what the beams cost
    # next to the unconstrained 七绝. The lesson says its default, beam 4, costs at most 10x a
    # form-only 七绝: shown next to the ratio, not checked.
    verse = Table(["ratio", "measured", "lesson 07 says"])
    for where, label in (("mid_line", "mid-line position"), ("rhyme", "rhyme position")):
        plain = step_us(f"lesson07/step/plain/unconstrained/{where}")
        constrained = step_us(f"lesson07/step/plain/constrained/{where}")
        if plain and constrained:
            verse.add(f"constrained step / plain step, 七绝 tones and rhyme, {label}",
                      f"{constrained / plain:.2f}x", "")
    form_only = all_runs.get("lesson07/write_verse/plain/form_only/beam:1", (None, {}, None))[1]
    for width in (1, 4, 8):
        beams = all_runs.get(f"lesson07/write_verse/plain/tones_rhyme/beam:{width}", (None, {}, None))[1]
        if form_only and beams:  # whole poems of the same 33 characters: time over time
            verse.add(f"七绝, tones, rhyme, no repeats, beam {width} / form-only 七绝 (beam 1)",
                      f"{beams['time_s'] / form_only['time_s']:.2f}x", "at most 10x" if width == 4 else "")

    # lesson 08 (bench_08_many_poems): the same 32 poems at B = 1 .. 32 in flight, the weight
    # formats at B = 1 and on the matrix products alone, and a shared opening. The lesson's
    # goals are B = 16 at least 5x the chars/s of B = 1, and int8 decoding at least 1.8x
    # faster than fp32 and below the fp32 floor: printed beside the ratios, not checked.
    # With the peer's batched timing (torch_peer.py, "batched"), the B rows get PyTorch's
    # chars/s at the same B, its speed-up over its own B = 1, and ours over PyTorch's.
    peer_batched = {kind: peer["batched"] for kind, peer in peers.items()
                    if isinstance(peer.get("batched"), dict)}
    peer_by_batch = peer_batched.get("same", {}).get("by_batch", {})
    peer_columns = ["PyTorch, same BLAS", "PyTorch x its B = 1", "ours / PyTorch"] if peer_by_batch else []
    many = Table(["lesson 08", "per char/row/poem", "rate", "x floor", "ratio", "lesson 08 asks"]
                 + peer_columns)

    def many_row(name, what, ratio="", asks="", peer_cells=()):
        us = step_us(name)
        if not us:
            return
        r = all_runs[name][1]
        rate_key = next((k for k in RATE_NAMES if k in r), None)
        rate = f"{fmt_rate(1e6 / us)} {RATE_NAMES[rate_key]}" if rate_key else ""
        x = x_floor_of(name) if "x_floor" in r else None
        cells = (list(peer_cells) + [""] * len(peer_columns))[:len(peer_columns)]
        many.add(what, fmt_time(us), rate, f"{x:.2f}" if x else "", ratio, asks, *cells)

    def peer_batch_cells(b, name):  # PyTorch at B = b: chars/s, over its B = 1, ours over it
        theirs = peer_by_batch.get(str(b), {}).get("chars_per_s")
        if not theirs:
            return ()
        one = peer_by_batch.get("1", {}).get("chars_per_s")
        ours = step_us(name)
        return (f"{fmt_rate(theirs)} chars/s", f"{theirs / one:.2f}x" if one else "",
                f"{1e6 / ours / theirs:.1f}x" if ours else "")

    def over(slow, fast, label):  # "label: slow / fast" as a speed-up, or "" when one is missing
        a, b = step_us(slow), step_us(fast)
        return f"{label}: {a / b:.2f}x" if a and b else ""

    batch_one = "lesson08/batched/plain/fp32/B:1"
    for b in (1, 2, 4, 8, 16, 32):
        name = f"lesson08/batched/plain/fp32/B:{b}"
        many_row(name, f"32 poems, B = {b} in flight, fp32", over(batch_one, name, "chars/s over B = 1"),
                 "at least 5x the chars/s of B = 1" if b == 16 else "", peer_batch_cells(b, name))
    for fmt in ("fp32", "bf16", "int8"):
        name = f"lesson08/decode/plain/{fmt}"
        many_row(name, f"cached decoding, 8 poems at B = 1, {fmt}",
                 over("lesson08/decode/plain/fp32", name, f"fp32 / {fmt}") if fmt != "fp32" else "",
                 "at least 1.8x faster than fp32 (fp32 / int8), x floor below 1" if fmt == "int8" else "")
    int8_us = step_us("lesson08/decode/plain/int8")
    for kind, who in (("same", "PyTorch, same BLAS"), ("installed", "PyTorch as installed")):
        theirs = peer_batched.get(kind, {}).get("decode", {}).get("chars_per_s")
        if int8_us and theirs:  # both: 8 poems after a newline at B = 1, cached, 1 thread
            many.add(f"{who}: cached decoding, 8 poems at B = 1, fp32", fmt_time(1e6 / theirs),
                     f"{fmt_rate(theirs)} chars/s", "",
                     f"chars/s, int8 (ours) / PyTorch: {1e6 / int8_us / theirs:.1f}x",
                     "int8 at least 10x PyTorch's cached decoding", *[""] * len(peer_columns))
    for n in (1, 16):
        for fmt in ("fp32", "bf16", "int8"):
            name = f"lesson08/step_matmul/plain/{fmt}/N:{n}"
            if fmt != "fp32":
                ratio = over(f"lesson08/step_matmul/plain/fp32/N:{n}", name, f"fp32 / {fmt}")
            elif n == 16:  # what 16 rows save per row on the same fp32 weights
                ratio = over("lesson08/step_matmul/plain/fp32/N:1", name, "per row, 1 row / 16 rows")
            else:
                ratio = ""
            rows = f"{n} row{'s' if n > 1 else ''}"
            many_row(name, f"17 matrix products of a step, {rows}, {fmt} (per row)", ratio)
    many_row("lesson08/shared_opening/prefill_each/B:16",
             "shared opening (19 positions): 16 prefills (per poem)")
    many_row("lesson08/shared_opening/prefill_once/B:16",
             "shared opening: 1 prefill, 16 cache copies (per poem)",
             over("lesson08/shared_opening/prefill_each/B:16", "lesson08/shared_opening/prefill_once/B:16",
                  "each / once"))

    # lesson 08's large model (GPT-2 small's shape, random weights): one batched step, chars/s
    # at every B on the lesson path (three formats) and the tuned path (fp32), each over its
    # own path's fp32 B = 1, and the peer's same step (torch_peer.py, "big") where it ran.
    # The goals are printed beside the ratios, not checked.
    peer_big = peers.get("same", {}).get("big", {}).get("by_batch", {})
    big_columns = ["PyTorch fp32", "PyTorch int8", "tuned / PyTorch fp32"] if peer_big else []
    big = Table(["B", "plain fp32", "plain bf16", "plain int8", "tuned fp32",
                 "tuned predicted", "over the path's own fp32 B = 1", "goal"]
                + big_columns)

    def big_rate(path, fmt, b, counter="chars_per_s"):
        r = all_runs.get(f"lesson08/big/{path}/{fmt}/B:{b}", (None, {}, None))[1]
        return r.get(counter)

    plain_one, tuned_one = big_rate("plain", "fp32", 1), big_rate("tuned", "fp32", 1)
    asks = {1: "int8 at least 2.5x, bf16 at least 1.5x (plain)",
            4: "at least 2.5x plain, 3.5x tuned", 16: "tuned at least 8x (12x the goal)"}
    for b in (1, 2, 4, 8, 16, 32):
        rates = {(path, fmt): big_rate(path, fmt, b) for path, fmt in
                 (("plain", "fp32"), ("plain", "bf16"), ("plain", "int8"), ("tuned", "fp32"))}
        if not any(rates.values()):
            continue
        over_one = []
        if b == 1:
            for fmt in ("bf16", "int8"):
                if rates[("plain", fmt)] and plain_one:
                    over_one.append(f"{fmt} {rates[('plain', fmt)] / plain_one:.2f}x")
        else:
            if rates[("plain", "fp32")] and plain_one:
                over_one.append(f"plain {rates[('plain', 'fp32')] / plain_one:.2f}x")
            if rates[("tuned", "fp32")] and tuned_one:
                over_one.append(f"tuned {rates[('tuned', 'fp32')] / tuned_one:.2f}x")
        cells = [f"{fmt_rate(v)}" if v else "" for v in rates.values()]
        tuned_predicted = big_rate("tuned", "fp32", b, "predicted_chars_per_s")
        cells.append(fmt_rate(tuned_predicted) if tuned_predicted else "")
        peer_cells = []
        if peer_big:
            theirs = peer_big.get(str(b), {})
            fp32, int8 = theirs.get("fp32_chars_per_s"), theirs.get("int8_chars_per_s")
            tuned = rates[("tuned", "fp32")]
            peer_cells = [fmt_rate(fp32) if fp32 else "", fmt_rate(int8) if int8 else "",
                          f"{tuned / fp32:.1f}x" if tuned and fp32 else ""]
        big.add(str(b), *cells, ", ".join(over_one), asks.get(b, ""), *peer_cells)

    # chart data: total milliseconds for n characters
    series = []
    for title, prefix, source in (("C++ plain, context-512 model", "lesson06/block512/plain", "cpp"),
                                  ("C++ tuned, context-512 model", "lesson06/block512/tuned", "cpp"),
                                  ("C++ plain, course model", "lesson06/write_chars/plain", "cpp"),
                                  ("C++ tuned, course model", "lesson06/write_chars/tuned", "cpp"),
                                  ("PyTorch, same BLAS", None, "same"),
                                  ("PyTorch as installed", None, "installed")):
        points = []
        if source == "cpp":
            lengths = sorted({int(m.group(1)) for name in all_runs
                              for m in [re.fullmatch(re.escape(prefix) + r"/(\d+)/cache:[01]", name)] if m})
            for n in lengths:
                slow, fast = step_us(f"{prefix}/{n}/cache:0"), step_us(f"{prefix}/{n}/cache:1")
                if slow and fast:
                    points.append((n, slow * n / 1000, fast * n / 1000))
        elif source in peers:
            for key, v in sorted(peers[source].get("generate", {}).items(), key=lambda kv: int(kv[0])):
                points.append((int(key), v["no_cache_ms"], v["cache_ms"]))
        if points:
            series.append((title, points))
    dat = os.path.join(args.folder, "cache_chart.dat")
    with open(dat, "w", encoding="utf-8") as f:
        for i, (title, points) in enumerate(series):
            if i:
                f.write("\n\n")
            f.write(f"# {title}: characters, ms without cache, ms with cache\n")
            for n, slow, fast in points:
                f.write(f"{n} {slow:.4f} {fast:.4f}\n")
    chart = os.path.join(args.folder, "cache_chart.gp")
    if os.path.exists(chart):
        os.remove(chart)
    if series:
        write_gnuplot(chart, series, args.note)

    write_batch_chart(args.folder, all_runs, args.note)

    context_lines = [
        f"- machine: {cpu_model()}, {context.get('num_cpus', '?')} cores at "
        f"{context.get('mhz_per_cpu', '?')} MHz (as Google Benchmark reports), {platform.system()} "
        f"{platform.release()}",
        f"- compiler: {compiler_line(args.build_dir)}, Release -O3; plain rows: the lesson libraries "
        f"(-march=x86-64-v3 -ffp-contract=off), tuned rows: tang_fast (-march=native); "
        f"OpenBLAS kernels {context.get('blas_core', '?')}",
        f"- model: {context.get('model', '?')}; weights: {repository_path(context.get('checkpoint', '?'))}",
        f"- floor (one cblas_sgemv per weight matrix, {weight_mb:.1f} MB, 1 thread), per program: "
        f"{floor_cells}" if weight_mb else "- floor: not measured",
    ]
    if args.settings:
        context_lines.append(f"- settings: {args.settings}")
    for kind, who in peer_names.items():
        if kind not in peers:
            continue
        peer = peers[kind]
        core = peer.get("openblas_core") or peer.get("openblas_coretype") or "auto"
        context_lines.append(
            f"- {who}: torch {peer.get('torch_version')}, OpenBLAS kernels {core};"
            f" logits vs C++ max |diff| {peer.get('logits_max_abs_diff', float('nan')):.1e}"
            f" ({'match' if peer.get('logits_match') else 'MISMATCH'}), greedy text "
            f"{'identical' if peer.get('greedy_match') else 'DIFFERENT'}")
    if not peers:
        context_lines.append("- PyTorch peer: not run (python3-torch is not installed), no PyTorch columns")

    text = []
    if args.note:
        text += [f"**{args.note}**", ""]
    text += context_lines + ["", table.markdown(), ""]
    if pairs.rows:
        text += ["Plain (the lesson path) against tuned (under the hood), per char/token/call:", "",
                 pairs.markdown(), "",
                 f"Tuned behind plain in {len(behind)} of {len(pairs.rows)} pairs, beyond the "
                 f"spread (every tuned repetition slower than every plain one) in {len(beyond)}"
                 + (": " + ", ".join(beyond) if beyond else "") + "."
                 + (" One timing a row: no spread to judge by." if behind and not any(
                     "range_s" in r for _, r, _ in all_runs.values()) else ""), ""]
    if goals.rows:
        text += ["Goals:", "", goals.markdown(), ""]
    if ratios.rows:
        text += ["Other ratios:", "", ratios.markdown(), ""]
    if verse.rows:
        text += ["Lesson 07, regular verse (the lesson path, 1 thread):", "", verse.markdown(), ""]
    if many.rows:
        text += ["Lesson 08, many poems at once and weights below fp32 (the lesson path, 1 thread;"
                 " x floor per character or row, against the fp32 gemv floor):", "", many.markdown(), ""]
    if big.rows:
        peer_note = (f" PyTorch: {peers['same']['big'].get('int8', '')}." if peer_big else "")
        text += ["Lesson 08's large model (GPT-2 small's shape, random weights; one step of B texts"
                 " whose caches hold 64 positions, 1 thread), chars/s:" + peer_note, "",
                 big.markdown(), ""]
    if predicted.rows:
        text += ["Predicted before it is measured (the lesson path, 1 thread): every row the cost"
                 " model covers (lessons/06_kvcache/step_cost.hpp, from this machine's profile),"
                 " its rate measured and predicted:", "", predicted.markdown(), ""]
    text += llama_cpp_section(args.folder)
    output = "\n".join(text)
    print(output)
    with open(os.path.join(args.folder, "table.md"), "w", encoding="utf-8") as f:
        f.write(output)
    return 0


# --- the llama.cpp peer ------------------------------------------------------------
# Each llama.cpp row (llama_cpp_peer.mjs) and our rows doing the same work: one text
# writing 120 characters with the cache (the whole loop: lesson 06's write_chars), or one
# step of B texts whose caches hold 64 positions (lesson 08's step rows; llama.cpp's texts
# pass positions 1 to 120, 60 on average). None: that path has no such row.
LLAMA_CPP_ROWS = [
    # llama.cpp row, what, (program, our plain row, our tuned row)
    ("ours/f32/B:1", "our model, F32, 1 text",
     ("bench_06", "lesson06/write_chars/plain/120/cache:1", "lesson06/write_chars/tuned/120/cache:1")),
    ("ours/f32/B:16", "our model, F32, 16 texts",
     ("bench_08", "lesson08/step/plain/fp32/B:16", "lesson08/step/tuned/fp32/B:16")),
    ("big/f32/B:1", "GPT-2 small's shape, F32 / fp32, 1 text",
     ("bench_08", "lesson08/big/plain/fp32/B:1", "lesson08/big/tuned/fp32/B:1")),
    ("big/f32/B:16", "GPT-2 small's shape, F32 / fp32, 16 texts",
     ("bench_08", "lesson08/big/plain/fp32/B:16", "lesson08/big/tuned/fp32/B:16")),
    ("big/q8_0/B:1", "GPT-2 small's shape, Q8_0 / int8, 1 text",
     ("bench_08", "lesson08/big/plain/int8/B:1", None)),
    ("big/q8_0/B:16", "GPT-2 small's shape, Q8_0 / int8, 16 texts",
     ("bench_08", "lesson08/big/plain/int8/B:16", None)),
]


def load_llama_cpp_rounds(folder):
    """[(peer JSON, {program: runs by name})] for every round in FOLDER/llama_cpp, in order."""
    rounds = []
    for path in sorted(glob.glob(os.path.join(folder, "llama_cpp", "peer_r*.json")),
                       key=lambda p: int(re.search(r"_r(\d+)\.json$", p).group(1))):
        number = re.search(r"_r(\d+)\.json$", path).group(1)
        with open(path, encoding="utf-8") as f:
            peer = json.load(f)
        ours = {}
        for program in ("bench_06", "bench_08"):
            mine = os.path.join(folder, "llama_cpp", f"{program}_r{number}.json")
            if os.path.exists(mine):
                ours[program] = load_program(mine)[0]
        rounds.append((peer, ours))
    return rounds


def with_range(values, fmt):
    """The median, and the lowest and highest value in brackets when there are several."""
    values = [v for v in values if v is not None]
    if not values:
        return ""
    text = fmt(statistics.median(values))
    return text + (f" ({fmt(min(values))} to {fmt(max(values))})" if len(values) > 1 else "")


def llama_cpp_section(folder):
    """The llama.cpp peer's two tables as Markdown lines, or [] when it did not run."""
    rounds = load_llama_cpp_rounds(folder)
    if not rounds:
        return []
    rate = lambda v: fmt_rate(v)  # noqa: E731
    times = lambda v: f"{v:.2f}x"  # noqa: E731
    share = lambda v: f"{100 * v:.0f}%"  # noqa: E731
    us = lambda v: fmt_time(v)  # noqa: E731

    def peer_row(peer, name):
        return next((r for r in peer.get("rows", []) if r["name"] == f"llama_cpp/{name}"), None)

    def ours(runs_by_program, program, name, counter="chars_per_s"):
        return runs_by_program.get(program, {}).get(name, {}).get(counter) if name else None

    table = Table(["row", "llama.cpp, chars/s", "ours plain", "ours tuned", "predicted plain",
                   "predicted tuned", "plain / llama.cpp", "tuned / llama.cpp"])
    inside = Table(["row", "llama.cpp per char, whole call", "in its decode calls", "the rest",
                    "decode share", "decode calls a step", "tuned / llama.cpp's decode alone"])
    for name, what, (program, plain, tuned) in LLAMA_CPP_ROWS:
        theirs = [peer_row(peer, name) for peer, _ in rounds]
        if not any(theirs):
            continue
        llama = [r["chars_per_s"] if r else None for r in theirs]
        plain_rates = [ours(o, program, plain) for _, o in rounds]
        tuned_rates = [ours(o, program, tuned) for _, o in rounds]

        def ratios(mine, of=llama):
            return [m / t if m and t else None for m, t in zip(mine, of)]

        table.add(what, with_range(llama, rate), with_range(plain_rates, rate),
                  with_range(tuned_rates, rate) if tuned else "no row",
                  with_range([ours(o, program, plain, "predicted_chars_per_s") for _, o in rounds], rate),
                  with_range([ours(o, program, tuned, "predicted_chars_per_s") for _, o in rounds], rate),
                  with_range(ratios(plain_rates), times),
                  with_range(ratios(tuned_rates), times) if tuned else "")
        decode_rates = [1e3 * r["texts"] * r["chars"] / r["decode_ms"] if r and r.get("decode_ms")
                        else None for r in theirs]
        per_char = [r["us_per_char"] if r else None for r in theirs]
        decode_per_char = [1e3 * r["decode_ms"] / (r["texts"] * r["chars"]) if r else None for r in theirs]
        rest = [c - d if c is not None and d is not None else None for c, d in zip(per_char, decode_per_char)]
        best = tuned_rates if tuned else plain_rates
        inside.add(what, with_range(per_char, us), with_range(decode_per_char, us), with_range(rest, us),
                   with_range([r["decode_share"] if r else None for r in theirs], share),
                   with_range([r.get("decode_calls", float("nan")) / r["chars"] if r else None
                               for r in theirs], lambda v: f"{v:.2f}"),
                   with_range(ratios(best, decode_rates), times) + ("" if tuned else " (plain)"))

    # the floor of these rounds (bench_06's rows carry x_floor: their time over it), and
    # llama.cpp's time per character on our model over it
    def floor_us(r):  # a row's time per step over its x_floor
        return 1e6 * r["time_s"] / steps_of(r) / r["x_floor"] if r.get("x_floor") else None

    floors = [floor_us(o.get("bench_06", {}).get(LLAMA_CPP_ROWS[0][2][1], {})) for _, o in rounds]
    one = [peer_row(peer, LLAMA_CPP_ROWS[0][0]) for peer, _ in rounds]
    floor_line = []
    if all(floors) and all(one):
        calls = [r["us_per_char"] / f for r, f in zip(one, floors)]
        decodes = [1e3 * r["decode_ms"] / r["chars"] / f for r, f in zip(one, floors)]
        floor_line = [
            f"The floor in these rounds (one cblas_sgemv per weight matrix of our model, bench_06): "
            f"{with_range(floors, us)}. llama.cpp's time per character on our model, 1 text, is "
            f"{with_range(calls, times)} the floor of its round for the whole call and "
            f"{with_range(decodes, times)} for its decode calls alone.", ""]

    first = rounds[0][0]
    settings = first.get("settings", {})
    lines = [
        f"llama.cpp peer (benchmarks/peers/llama_cpp_peer.mjs): node-llama-cpp "
        f"{first.get('node_llama_cpp', '?')}, llama.cpp {first.get('llama_cpp_release', '?')} "
        f"(prebuilt, CPU: {first.get('cpu_features', '?')}); {len(rounds)} round(s), each its rows "
        f"once beside one repetition of ours; {settings.get('threads', 1)} thread, "
        f"{settings.get('chars', '?')} characters after a newline per text, T "
        f"{settings.get('temperature', '?')}, top-k {settings.get('topK', '?')}, its KV cache "
        f"{settings.get('kv_cache', '?')}. Its B texts are B sequences of one context, one decode "
        f"call of B tokens a step. Ours: 1 text, lesson06/write_chars/*/120/cache:1 (the whole "
        f"120 characters); 16 texts and GPT-2 small's shape, one step of lesson08/step or "
        f"lesson08/big at B texts whose caches hold 64 positions. chars/s: median of the rounds "
        f"(lowest to highest); ratios: median of the rounds' own ratios (lowest to highest), "
        f"above 1 where we are faster.",
        "",
        table.markdown(),
        "",
        "What llama.cpp's time per character is made of: the time inside its decode calls "
        "(llama_perf_context, its own counter) and the rest of the call (the draw, copying logits, "
        "node-llama-cpp's work between calls); the last column puts our fastest row against its "
        "decoding alone:",
        "",
        inside.markdown(),
        "",
    ] + floor_line
    return lines


def write_batch_chart(folder, all_runs, note):
    """Lesson 08: chars/s against B in flight, for our model (32 poems written) and for the
    GPT-2-small-shaped one (one step), in fp32, bf16 and int8: measured as points, the cost
    model's prediction as a line. Writes batch_chart.dat and batch_chart.gp when they ran."""
    models = (("batched", "our model (6.8 MB of fp32 weights): 32 poems written"),
              ("big", "the shape of GPT-2 small (362 MB of fp32 weights): one step"))
    formats = ("fp32", "bf16", "int8")
    blocks = []  # (model title, format, [(B, measured, predicted)])
    for kind, title in models:
        for fmt in formats:
            points = []
            for name, (_, r, _) in all_runs.items():
                m = re.fullmatch(rf"lesson08/{kind}/plain/{fmt}/B:(\d+)", name)
                if m and r.get("chars_per_s") and r.get("predicted_chars_per_s"):
                    points.append((int(m.group(1)), r["chars_per_s"], r["predicted_chars_per_s"]))
            if points:
                blocks.append((title, fmt, sorted(points)))
    chart = os.path.join(folder, "batch_chart.gp")
    if os.path.exists(chart):
        os.remove(chart)
    if not blocks:
        return
    with open(os.path.join(folder, "batch_chart.dat"), "w", encoding="utf-8") as f:
        for i, (title, fmt, points) in enumerate(blocks):
            if i:
                f.write("\n\n")
            f.write(f"# {title}, {fmt}: B, chars/s measured, chars/s predicted\n")
            for b, measured, predicted in points:
                f.write(f"{b} {measured:.2f} {predicted:.2f}\n")
    colors = {"fp32": 1, "bf16": 2, "int8": 4}
    heading = "Lesson 08: characters per second against B, measured and predicted"
    lines = [
        "# written by benchmarks/compare.py; run from this folder:",
        "#   gnuplot -e \"out='chart.svg'\" batch_chart.gp",
        "if (!exists('out')) out = 'batch_chart.svg'",
        "set terminal svg size 1000,440 dynamic font 'sans,11' background rgb 'white'",
        "set output out",
        f"set multiplot layout 1,2 title \"{heading}{f' ({note})' if note else ''}\"",
        "set logscale x 2",
        "set grid",
        "set key bottom right font ',9'",
        "set xlabel 'B, texts in flight (one thread)'",
        "set ylabel 'characters per second'",
        "set yrange [0:*]",
    ]
    for _, title in models:
        parts = []
        for i, (block_title, fmt, _) in enumerate(blocks):
            if block_title != title:
                continue
            c = colors[fmt]
            parts.append(f"'batch_chart.dat' index {i} using 1:3 with lines lc {c} dt 2 "
                         f"title '{fmt} predicted'")
            parts.append(f"'batch_chart.dat' index {i} using 1:2 with points lc {c} pt 7 "
                         f"title '{fmt} measured'")
        if parts:
            lines += [f"set title '{title}'", "plot " + ", \\\n     ".join(parts)]
    lines.append("unset multiplot")
    with open(chart, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def write_gnuplot(path, series, note):
    """Left: C++ on linear axes (the parabola and the line). Right: everything log-log."""
    title = "Writing N characters with and without the KV cache" + (f" ({note})" if note else "")
    styles = {"C++ plain, context-512 model": (1, 7), "C++ tuned, context-512 model": (6, 13),
              "C++ plain, course model": (2, 5), "C++ tuned, course model": (7, 4),
              "PyTorch, same BLAS": (3, 9), "PyTorch as installed": (4, 11)}
    def plots(which):
        parts = []
        for i, (name, _) in enumerate(series):
            if which == "linear" and "context-512" not in name:
                continue
            color, point = styles[name]
            parts.append(f"'{os.path.basename(path)[:-3]}.dat' index {i} using 1:2 with linespoints lc {color} "
                         f"pt {point} dt 2 title '{name}, no cache'")
            parts.append(f"'{os.path.basename(path)[:-3]}.dat' index {i} using 1:3 with linespoints lc {color} "
                         f"pt {point} dt 1 title '{name}, cache'")
        return ", \\\n     ".join(parts)
    lines = [
        "# written by benchmarks/compare.py; run from this folder:",
        "#   gnuplot -e \"out='chart.svg'\" cache_chart.gp",
        "if (!exists('out')) out = 'cache_chart.svg'",
        "set terminal svg size 1000,440 dynamic font 'sans,11' background rgb 'white'",
        "set output out",
        f"set multiplot layout 1,2 title \"{title}\"",
        "set key top left",
        "set grid",
        "set xlabel 'characters written'",
        "set ylabel 'milliseconds'",
        "set title 'one thread, context-512 model: N^2 and more without the cache, N with it'",
    ]
    linear = plots("linear")
    if linear:
        lines.append("plot " + linear)
    lines += [
        "set logscale xy",
        "set key top left font ',9' samplen 2",
        "set offsets graph 0, graph 0, graph 0.25, graph 0  # room for the key above the data",
        "set title 'log-log: slope 2 (to 3) without the cache, 1 with it'",
        "plot " + plots("all"),
        "unset multiplot",
    ]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
