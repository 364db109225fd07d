#!/usr/bin/env python3
"""Checks four tables of docs/robustness.md against the programs that print them.

  "Bad checkpoint": each row is what `checkpoint_errors_test --gtest_filter=*PrintTable`
      prints, with the damaged file's temporary path shortened to model.safetensors.
  "Bad command line or prompt": each row's arguments (the first `...` of its first
      cell) are given to lesson_06_kvcache, or to the lesson a "(lesson NN" note names;
      the row is its exit status, the bytes on stdout and the line on stderr.
  "Bad requests" (completions, then chat): each row is what
      `poem_server_test --gtest_filter=*PrintTheRobustnessTables` prints: the bodies
      of its tests of bad requests, as poem_server answers them.

    python3 scripts/check_robustness_tables.py [BUILD_DIR]           # check (a ctest)
    python3 scripts/check_robustness_tables.py [BUILD_DIR] --write   # rewrite the tables

BUILD_DIR defaults to build/release. A check names the first row that differs and
the command that rewrites it, and exits 1.
"""
import functools
import pathlib
import re
import shlex
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parent.parent
page = root / "docs/robustness.md"
args = [a for a in sys.argv[1:] if a != "--write"]
write = "--write" in sys.argv[1:]
build = pathlib.Path(args[0]) if args else root / "build/release"


def run(command):
    done = subprocess.run(command, capture_output=True, timeout=120)
    return done.returncode, done.stdout, done.stderr.decode().strip()


def checkpoint_rows(_rows):
    """The rows the test prints, in its order."""
    _, out, _ = run([str(build / "tests/checkpoint_errors_test"), "--gtest_filter=*PrintTable"])
    printed = [line for line in out.decode().splitlines() if line.startswith("| ")]
    return [re.sub(r"checkpoint \S*/[^/ ]+\.safetensors", "checkpoint model.safetensors", line)
            for line in printed]


def lesson(note):
    """The lesson program a row's note names ("(lesson 07)"), lesson 06 without one."""
    number = re.search(r"\(lesson (\d\d)", note)
    folder = next((build / "lessons").glob(f"{number.group(1) if number else '06'}_*"))
    return folder / f"lesson_{folder.name}"


def command_line_rows(rows):
    """Each row run again: its first cell kept, the rest as the program answers now."""
    fresh = []
    for row in rows:
        first = row.split(" | ")[0][2:]  # "`--seed -1` (lesson 08 ...)"
        status, out, err = run([str(lesson(first))] + shlex.split(first.split("`")[1]))
        fresh.append(f"| {first} | {status} | {len(out)} | {err} |")
    return fresh


@functools.cache
def server_tables():
    """The rows the server test prints, by route (one run serves both tables)."""
    _, out, _ = run([str(build / "tests/poem_server_test"),
                     "--gtest_filter=*PrintTheRobustnessTables"])
    printed, current = {}, None
    for line in out.decode().splitlines():
        if line.startswith("route "):
            current = printed.setdefault(line[len("route "):], [])
        elif line.startswith("| ") and current is not None:
            current.append(line)
    return printed


def request_rows(route):
    """The rows the server test prints for `route`."""
    return lambda _rows: server_tables().get(route, [])


# (the section's heading, which of its tables, where the rows come from)
TABLES = [("## Bad checkpoint", 0, checkpoint_rows),
          ("## Bad command line or prompt", 0, command_line_rows),
          ("## Bad requests", 0, request_rows("/v1/completions")),
          ("## Bad requests", 1, request_rows("/v1/chat/completions"))]

text = page.read_text()
lines = text.splitlines()
differs = []
for heading, nth, fresh_rows in TABLES:
    start = next(i for i, line in enumerate(lines) if line.startswith(heading))
    rules = (i for i in range(start, len(lines)) if lines[i].startswith("|---"))
    first = [next(rules) for _ in range(nth + 1)][-1] + 1
    end = next(i for i in range(first, len(lines)) if not lines[i].startswith("|"))
    rows = lines[first:end]
    fresh = fresh_rows(rows)
    if fresh != rows:
        differs.append(heading)
        old, new = next(((o, n) for o, n in zip(rows + [""] * len(fresh), fresh + [""] * len(rows))
                         if o != n))
        print(f"{page.name}, {heading[3:]}: the page says\n  {old}\nthe program now prints\n  {new}")
    lines[first:end] = fresh

if write:
    page.write_text("\n".join(lines) + "\n")
    print(f"{page.name}: " + (f"rewrote {', '.join(h[3:] for h in differs)}" if differs
                              else "the tables already match the programs"))
elif differs:
    print("rewrite them with: python3 scripts/check_robustness_tables.py --write")
    sys.exit(1)
else:
    print(f"{page.name}: the tables match what the programs print")
