#!/usr/bin/env python3
"""Writes the example notes of docs/exercises.md from real runs.

A lesson started with --yours runs the learner's exercise code and the reference
solution beside it, and at the first difference prints one note on stderr
(common/exercise_code.hpp). This script shows what those notes look like for
typical mistakes: for each case below it puts the reference solution, with one
mistake (or one harmless change) made to it, in place of the exercise's stub,
rebuilds the lesson (one file and the links, seconds), runs it with --yours and
keeps the notes. Then it puts the stub back, rebuilds, and fills the blocks

    <!-- note:NAME --> ... <!-- /note -->

of docs/exercises.md with the command and the notes it printed.

    python3 scripts/exercise_notes.py     (after scripts/test.sh or a release build)

It only replaces a stub that is untouched (still "not implemented yet"): your own
work in lessons/*/exercise/ is never overwritten; with an exercise done, the
script says which and stops before changing anything.
"""
import pathlib
import re
import signal
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parent.parent
build = root / "build/release"

# name, exercise, file, the change to the solution (old, new), program, its flags
CASES = [
    ("02-double-sum", "02", "lessons/02_temperature/%s/sample_with_temperature.cpp",
     ("  float total = 0.0f;", "  double total = 0.0;"),
     "02_temperature/lesson_02_temperature", ["--section", "2"]),
    ("02-times-t", "02", "lessons/02_temperature/%s/sample_with_temperature.cpp",
     ("z = (z - max) / temperature;", "z = (z - max) * temperature;"),
     "02_temperature/lesson_02_temperature", ["--section", "2"]),
    ("03-float-sum", "03", "lessons/03_topk_topp/%s/top_p.cpp",
     ("  double total = 0.0;", "  float total = 0.0f;"),
     "03_topk_topp/lesson_03_topk_topp", ["--section", "3"]),
    ("06a-position", "06a", "lessons/06_kvcache/%s/attention_with_cache.cpp",
     ("wpe + (start + t) * C;", "wpe + t * C;"),
     "06_kvcache/lesson_06_kvcache", ["--section", "6"]),
    ("07b-no-beam-score", "07b", "lessons/07_verse/%s/beam_step.cpp",
     ("const double score = scores[b] + ", "const double score = "),
     "07_verse/lesson_07_verse", ["--section", "7"]),
    ("08b-truncate", "08b", "lessons/08_many_poems/%s/bf16_row.cpp",
     ("(bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16", "bits >> 16"),
     "08_many_poems/lesson_08_many_poems",
     ["--section", "8", "--weights", "bf16", "--no-big-model"]),
]

stubs = {}  # path -> the stub's text, to put back whatever happens


def restore(*_):
    for path, text in stubs.items():
        path.write_text(text)
    if _:  # a signal: the stub is back; end as the signal asks
        sys.exit(128 + _[0])


def build_target(program):
    target = program.split("/")[1]
    built = subprocess.run(["cmake", "--build", str(build), "--target", target],
                           stdout=subprocess.DEVNULL)
    if built.returncode != 0:
        raise SystemExit(f"exercise_notes.py: building {target} failed (exit {built.returncode})")


def note_for(name, exercise, pattern, change, program, flags):
    stub = root / (pattern % "exercise")
    solution = (root / (pattern % "solution")).read_text()
    if "not implemented yet" not in stub.read_text():
        raise SystemExit(f"exercise_notes.py: {stub.relative_to(root)} is not the untouched stub "
                         "(your work?): it is left alone; run this on a fresh clone")
    old, new = change
    if old not in solution:
        raise SystemExit(f"exercise_notes.py: case {name}: the solution no longer contains {old!r}")
    stubs.setdefault(stub, stub.read_text())
    stub.write_text(solution.replace(old, new).replace("namespace tang::reference",
                                                       "namespace tang::mine"))
    build_target(program)
    command = [str(build / "lessons" / program), "--yours", exercise] + flags
    run = subprocess.run(command, capture_output=True, text=True)
    stub.write_text(stubs[stub])
    notes = [line for line in run.stderr.splitlines() if line.startswith("note: ")]
    if run.returncode != 0 or not notes:
        raise SystemExit(f"exercise_notes.py: case {name}: exit {run.returncode}, no note:\n"
                         + run.stderr)
    shown = " ".join(["build/release/lessons/" + program, "--yours", exercise] + flags)
    return f"$ {shown}\n" + "\n".join(notes[:3])


def main():
    if not (build / "build.ninja").exists():
        raise SystemExit("exercise_notes.py: build/release is not built: run scripts/test.sh "
                         "(or cmake --preset release && cmake --build --preset release) first")
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, restore)
    page = root / "docs/exercises.md"
    text = page.read_text()
    try:
        for case in CASES:
            name = case[0]
            if f"<!-- note:{name} -->" not in text:
                continue
            body = note_for(*case)
            print(body)
            text = re.sub(rf"<!-- note:{re.escape(name)} -->.*?<!-- /note -->",
                          lambda _: f"<!-- note:{name} -->\n```text\n{body}\n```\n<!-- /note -->",
                          text, flags=re.S)
    finally:
        restore()
        for program in sorted({case[4] for case in CASES}):
            build_target(program)  # the lessons run the stubs again
    page.write_text(text)


if __name__ == "__main__":
    main()
