#!/usr/bin/env python3
"""Runs serve_bench once and puts that one run everywhere it is quoted.

    python3 scripts/record_serve_bench.py [--requests N]

Its table goes between <!-- serve-bench --> and <!-- /serve-bench --> in
lessons/11_server/serving/README.md and docs/benchmarks.md, its rows into
lessons/11_server/serving/serve_bench.tsv, and they become lessons/11_server/serving/serve_bench.svg
(scripts/plot_serve_bench.sh). Build first (cmake --build --preset release) and run it on
an otherwise idle machine.
"""
import pathlib
import re
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parent.parent
bench = root / "build/release/lessons/11_server/serve_bench"
if not bench.exists():
    sys.exit("serve_bench is not built: cmake --build --preset release")
args = sys.argv[1:]
tsv = root / "lessons/11_server/serving/serve_bench.tsv"
out = subprocess.run([str(bench), *args, "--tsv", str(tsv)], check=True, capture_output=True,
                     text=True).stdout
subprocess.run([str(root / "scripts/plot_serve_bench.sh"), str(tsv),
                str(root / "lessons/11_server/serving/serve_bench.svg")], check=True)
shown = " ".join(["build/release/lessons/11_server/serve_bench", *args])
block = f"<!-- serve-bench -->\n```text\n$ {shown}\n{out.rstrip()}\n```\n<!-- /serve-bench -->"
for page in ["lessons/11_server/serving/README.md", "docs/benchmarks.md"]:
    path = root / page
    text = path.read_text(encoding="utf-8")
    new = re.sub(r"<!-- serve-bench -->.*?<!-- /serve-bench -->", lambda _: block, text, flags=re.S)
    if new == text and "<!-- serve-bench -->" not in text:
        sys.exit(f"{page} has no <!-- serve-bench --> block")
    path.write_text(new, encoding="utf-8")
    print(f"updated {page}")
