#!/usr/bin/env python3
"""Pastes what the lessons print into their READMEs, so the docs quote real output.

Runs build/release/lessons/06_kvcache/lesson_06_kvcache (all six sections) with the
default flags, cuts its output at the "== N." headings, and replaces the text between
  <!-- output:section-N -->  and  <!-- /output -->
in lessons/0N_*/README.md with section N, inside a code block.

    python3 scripts/update_lesson_readmes.py [path/to/lesson_06_kvcache]
"""
import pathlib
import re
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parent.parent
binary = sys.argv[1] if len(sys.argv) > 1 else root / "build/release/lessons/06_kvcache/lesson_06_kvcache"
output = subprocess.run([str(binary)], check=True, capture_output=True, text=True).stdout

sections = {}
current = None
for line in output.splitlines():
    m = re.match(r"== (\d)\. ", line)
    if m:
        current = int(m.group(1))
        sections[current] = []
    if current is not None:
        sections[current].append(line)

for readme in sorted(root.glob("lessons/0[1-6]_*/README.md")):
    text = readme.read_text()
    def fill(match):
        n = int(match.group(1))
        body = "\n".join(sections[n]).rstrip()
        return f"<!-- output:section-{n} -->\n```text\n{body}\n```\n<!-- /output -->"
    new = re.sub(r"<!-- output:section-(\d) -->.*?<!-- /output -->", fill, text, flags=re.S)
    if new != text:
        readme.write_text(new)
        print(f"updated {readme.relative_to(root)}")
