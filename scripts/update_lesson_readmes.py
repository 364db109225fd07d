#!/usr/bin/env python3
"""Keeps the lesson pages in step with the programs and the code they quote.

Fills seven kinds of marked blocks in lessons/*/README.md (lesson 11's serving/README.md
too), docs/README.md, docs/one-step.md and the top-level README.md:

  <!-- output:section-N --> ... <!-- /output -->
      section N of what build/release/lessons/06_kvcache/lesson_06_kvcache prints
      with the default flags (it runs sections 1-6); section 7 from
      lesson_07_verse --section 7
  <!-- table:PROGRAM ARGS... --> ... <!-- /table -->
      the Markdown table (its lines starting with "|") that
      build/release/lessons/*/PROGRAM prints with ARGS, e.g. measure_verse --markdown
  <!-- excerpt:PATH:TEXT --> ... <!-- /excerpt -->
      from the file PATH, the lines from the first one containing TEXT to the end
      of that definition (the next line that is exactly "}" or "};")
  <!-- diff:kv_cache --> ... <!-- /diff -->
      common/gpt.cpp's forward() next to lessons/06_kvcache/kv_cache.hpp's
      forward_with_cache(), as a diff: what the KV cache adds
  <!-- diff:small_cache --> ... <!-- /diff -->
      lesson 06's KVCache::attend() (without its own "// NEW" marks) next to
      lessons/10_cache_size/small_cache.cpp's SmallCache::attend(), as a diff: all a
      cache that shares keys and values changes of lesson 06's cached forward
  <!-- diff:paged_forward --> ... <!-- /diff -->
      the same next to lessons/11_server/paged_forward.cpp's PagedCache::attend():
      what the block table changes
  <!-- run:PROGRAM ARGS... | FROM | COUNT --> ... <!-- /run -->
      what build/release/lessons/*/PROGRAM prints with ARGS: COUNT lines from the
      first line containing FROM, for example a --trace of one poem
  <!-- reading-path --> ... <!-- /reading-path -->
      the table of files (and their line counts) to read for each lesson
  <!-- step-path --> ... <!-- /step-path -->
      every file one cached decoding step runs through, with its line count
  <!-- measure:settings --> ... <!-- /measure -->
      the table of build/release/lessons/03_topk_topp/measure_settings --markdown
      (100 poems per setting; it runs a minute or two, and only when a page has the
      block), the rows that page talks about: lesson 02 the temperatures, lesson 03
      T = 1.5 and its filters, both the real poems

    python3 scripts/update_lesson_readmes.py [path/to/lesson_06_kvcache] [--pages PAGE ...]
    python3 scripts/update_lesson_readmes.py --from-code [--pages PAGE ...]
    python3 scripts/update_lesson_readmes.py --check

With --pages only those pages are filled (e.g. --pages lessons/09_inside/README.md),
and lesson_06_kvcache runs only when one of them quotes its sections.

--from-code fills only the blocks taken from the code (excerpts, diffs, the two
file tables), so it needs no build. --check changes nothing and runs no program (a ctest, label "pages"): it fails
when a page quotes a reference solution (an excerpt of a solution/ file, or four
lines in a row of one in any code block), or when a block filled from the code
(excerpts, diffs, the two file tables) no longer matches the code, or when a page
breaks the rule for figures: a page that quotes a timing names its one run once
("*One run: MACHINE, DATE. ... how much such figures move ...*"), and compares runs
at most once (ranges over runs live in docs/benchmarks.md); or when a lesson page
puts its "Predict" questions after the output that answers them, or a page is
longer than the course allows (README 80 lines, the index 100, lesson 06 300, any
lesson page 400, lessons 01-06 together 1,300).
"""
import difflib
import pathlib
import re
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parent.parent
args = sys.argv[1:]
check = "--check" in args
static_only = "--from-code" in args
args = [a for a in args if a not in ("--check", "--from-code")]
only = []
if "--pages" in args:
    only = [(root / page).resolve() for page in args[args.index("--pages") + 1:]]
    args = args[:args.index("--pages")]
binary = args[0] if args else root / "build/release/lessons/06_kvcache/lesson_06_kvcache"

sections = {}


def read_lesson_six():
    """Sections 1-6 as lesson_06_kvcache prints them, run once, when a page asks."""
    output = subprocess.run([str(binary)], check=True, capture_output=True, text=True).stdout
    current = None
    for line in output.splitlines():
        m = re.match(r"== (\d+)\. ", line)
        if m:
            current = int(m.group(1))
            sections[current] = []
        if current is not None:
            sections[current].append(line)


def definition(path, start_text):
    """From the first line holding start_text to the brace that closes it: the next line
    that is "}" or "};" at that line's own indentation (a member function ends at its
    class's indentation plus two)."""
    lines = (root / path).read_text().splitlines()
    for i, line in enumerate(lines):
        if start_text in line:
            indent = line[:len(line) - len(line.lstrip())]
            for j in range(i, len(lines)):
                if lines[j] in (indent + "}", indent + "};"):
                    return [l[len(indent):] if l.startswith(indent) else l for l in lines[i:j + 1]]
            break
    raise SystemExit(f"{path}: no definition starting with {start_text!r}")


def program_path(program):
    found = list(root.glob(f"build/release/lessons/*/{program}"))
    if not found:
        raise SystemExit(f"{program} is not built in build/release/lessons")
    return found[0]


def fill_output(match):
    n = int(match.group(1))
    if n <= 6 and n not in sections:
        read_lesson_six()
    if n not in sections:  # section 7 and later: the lesson that adds it, that section alone
        program = {7: "lesson_07_verse", 8: "lesson_08_many_poems", 9: "lesson_09_inside",
                   10: "lesson_10_cache_size", 11: "lesson_11_server",
                   12: "lesson_12_speculative", 13: "lesson_13_cache_budget"}[n]
        lines = subprocess.run([str(program_path(program)), "--section", str(n)], check=True,
                               capture_output=True, text=True).stdout.splitlines()
        sections[n] = lines[next(i for i, line in enumerate(lines) if line.startswith(f"== {n}. ")):]
    body = "\n".join(sections[n]).rstrip()
    return f"<!-- output:section-{n} -->\n```text\n{body}\n```\n<!-- /output -->"


def fill_excerpt(match):
    path, start = match.group(1), match.group(2)
    body = "\n".join(definition(path, start))
    return f"<!-- excerpt:{path}:{start} -->\n```cpp\n{body}\n```\n<!-- /excerpt -->"


CHECKS_LEFT_OUT = "// (the checks of the arguments are left out here)"


def without_argument_checks(lines):
    """A function's lines without the statements that refuse bad arguments (an `if` whose
    statement throws, and a loop that only holds such checks), one comment in their place."""
    out, i, marked = [], 0, False
    while i < len(lines):
        bare = lines[i].lstrip()
        indent = lines[i][:len(lines[i]) - len(bare)]
        end = i
        if bare.startswith("if (") and not bare.rstrip().endswith("{"):
            while not lines[end].rstrip().endswith(";"):
                end += 1
            if "throw " not in " ".join(lines[i:end + 1]):
                end = None
        elif bare.startswith("for (") and bare.rstrip().endswith("{"):
            while lines[end] != indent + "}":
                end += 1
            # a loop whose body is nothing but such checks is one too
            if [l.strip() for l in without_argument_checks(lines[i + 1:end])] != [CHECKS_LEFT_OUT]:
                end = None
        else:
            end = None
        if end is None:
            out.append(lines[i])
            i += 1
            continue
        if not marked:
            out.append(indent + CHECKS_LEFT_OUT)
            marked = True
        i = end + 1
    return out


def fill_diff(match):
    plain = definition("common/gpt.cpp", "View<2> forward(const GPTConfig& cfg")
    # the trainer's dropout lines (`if (dropout) ...`) never run when writing: left out
    plain = [line for line in plain if not line.lstrip().startswith("if (dropout)")]
    cached = definition("lessons/06_kvcache/kv_cache.hpp", "View<2> forward_with_cache(const GPT& model, const Matrices& m")
    plain, cached = without_argument_checks(plain), without_argument_checks(cached)
    diff = difflib.unified_diff(plain, cached, "common/gpt.cpp", "lessons/06_kvcache/kv_cache.hpp",
                                n=100, lineterm="")
    body = "\n".join(list(diff)[2:])  # without the two file-name lines
    return f"<!-- diff:kv_cache -->\n```diff\n{body}\n```\n<!-- /diff -->"


def without_new_marks(lines):
    """Lesson 06's lines without its own "// NEW" marks, which lesson 10 does not repeat."""
    out = []
    for line in lines:
        line = line.replace("// NEW: ", "// ")  # a comment stays, without its mark
        out.append(re.sub(r"\s*// NEW$", "", line))  # a bare mark goes
    return out


def diff_against_lesson_six(name, path, start):
    """A <!-- diff:NAME --> block: lesson 06's KVCache::attend, without its own NEW marks,
    next to the cache's attention step START in PATH: all a cache changes of the step."""
    def fill(match):
        lesson6 = without_new_marks(definition("lessons/06_kvcache/kv_cache.cpp", "void KVCache::attend("))
        diff = difflib.unified_diff(lesson6, definition(path, start), "lessons/06_kvcache/kv_cache.cpp",
                                    path, n=100, lineterm="")
        body = "\n".join(list(diff)[2:])
        return f"<!-- diff:{name} -->\n```diff\n{body}\n```\n<!-- /diff -->"
    return fill


fill_small_cache_diff = diff_against_lesson_six("small_cache", "lessons/10_cache_size/small_cache.cpp",
                                                "void SmallCache::attend(")
fill_paged_diff = diff_against_lesson_six("paged_forward", "lessons/11_server/paged_forward.cpp",
                                          "void PagedCache::attend(")


def fill_run(match):
    command, start, count = (part.strip() for part in match.group(1).split("|"))
    program, *args = command.split()
    found = list(root.glob(f"build/release/lessons/*/{program}"))
    if not found:
        raise SystemExit(f"run block: {program} not built in build/release/lessons")
    # check_verse exits with 1 for a poem that breaks a rule: that is output too
    result = subprocess.run([str(found[0]), *args], capture_output=True, text=True)
    if result.returncode not in (0, 1) or result.stderr:
        raise SystemExit(f"run block: {command!r} failed: {result.stderr.strip()}")
    lines = result.stdout.splitlines()
    first = next((i for i, line in enumerate(lines) if start in line), None)
    if first is None:
        raise SystemExit(f"run block: {command!r} prints no line with {start!r}")
    body = "\n".join(lines[first:first + int(count)]).rstrip()
    shown = " ".join([str(found[0].relative_to(root)), *args])
    skipped = "...\n" if first > 0 else ""  # lines before the ones shown
    return f"<!-- run:{match.group(1)} -->\n```text\n$ {shown}\n{skipped}{body}\n```\n<!-- /run -->"


def fill_table(match):
    program, *args = match.group(1).split()
    lines = subprocess.run([str(program_path(program)), *args], check=True, capture_output=True,
                           text=True).stdout.splitlines()
    body = "\n".join(line for line in lines if line.startswith("|"))
    return f"<!-- table:{match.group(1)} -->\n{body}\n<!-- /table -->"


# The files to read for each lesson, in reading order: the code it teaches and
# the learner's own exercise stubs (the solutions are not on the reading path).
# Each lesson also uses what the lessons before it introduced.
READING = [
    ("01 probabilities", "the forward pass over a window, softmax, the top 8",
     ["common/gpt.cpp", "common/ops.cpp", "common/sampling.cpp", "lessons/01_probabilities/next_char.cpp"]),
    ("02 temperature", "the draw (exercise 02) and the generation loop",
     ["lessons/02_temperature/exercise/sample_with_temperature.cpp", "common/generate.cpp"]),
    ("03 top-k, top-p", "cutting the tail; top-p is exercise 03",
     ["lessons/03_topk_topp/exercise/top_p.cpp",
      "lessons/03_topk_topp/sampler.cpp"]),
    ("04 continuation", "an opening goes into the context first",
     ["lessons/04_continuation/continuation_section.cpp"]),
    ("05 acrostic", "masks; the fixed-form mask is exercise 05",
     ["lessons/05_acrostic/logit_mask.cpp", "lessons/05_acrostic/acrostic.cpp",
      "lessons/05_acrostic/exercise/qiyan_jueju.cpp"]),
    ("06 KV cache", "one cached decoding step, complete",
     ["lessons/06_kvcache/kv_cache.hpp", "lessons/06_kvcache/kv_cache.cpp",
      "lessons/06_kvcache/exercise/attention_with_cache.cpp",
      "common/ops.cpp"]),
    ("07 regular verse", "the rules, the check (exercise 07a), the constraint, beam search (exercise 07b)",
     ["lessons/07_verse/verse_form.cpp", "lessons/07_verse/check_verse.cpp",
      "lessons/07_verse/exercise/line_tones.cpp", "lessons/07_verse/verse_constraint.cpp",
      "lessons/07_verse/beam_search.cpp", "lessons/07_verse/exercise/beam_step.cpp"]),
    ("08 many poems", "the batch (lesson 06's cached forward over B caches), bf16 and int8 rows (exercises 08b, 08a)",
     ["lessons/08_many_poems/batch_writer.cpp", "lessons/08_many_poems/stored_weights.hpp",
      "lessons/08_many_poems/exercise/bf16_row.cpp", "lessons/08_many_poems/exercise/quantize_row.cpp"]),
    ("09 inside", "one forward pass read out, the head table (exercise 09a), the logit lens (exercise 09b), knockouts",
     ["lessons/09_inside/inside_view.hpp", "lessons/09_inside/head_patterns.cpp",
      "lessons/09_inside/exercise/column_attention.cpp", "lessons/09_inside/exercise/logit_lens.cpp",
      "lessons/09_inside/knockout.cpp"]),
    ("10 cache size", "the variants' inputs to attention, the small cache, grouped (exercise 10a) and latent (exercise 10b) steps",
     ["common/attention_inputs.cpp", "lessons/10_cache_size/small_cache.hpp",
      "lessons/10_cache_size/small_cache.cpp",
      "lessons/10_cache_size/exercise/grouped_attention.cpp",
      "lessons/10_cache_size/exercise/latent_attention.cpp",
      "lessons/10_cache_size/variant_step_cost.cpp"]),
    ("11 server", "the block pool, the paged step (exercise 11a), the cached opening (exercise 11b), the engine's loop, a request's writer and queue, what a served step costs, the HTTP layer",
     ["lessons/11_server/block_pool.cpp", "lessons/11_server/paged_forward.hpp",
      "lessons/11_server/paged_forward.cpp",
      "lessons/11_server/exercise/paged_attention.cpp", "lessons/11_server/exercise/cached_prefix.cpp",
      "lessons/11_server/prefix_reuse.cpp", "lessons/11_server/paged_engine.cpp",
      "lessons/11_server/request_writer.cpp", "lessons/11_server/poem_service.cpp",
      "lessons/11_server/step_overhead.cpp",
      "lessons/11_server/serving/poem_http.cpp"]),
    ("12 speculative", "the sampler's distribution, the accept/reject rule (exercise 12), the three drafters, the writer that checks k drafts in one forward pass and cuts its cache back",
     ["lessons/12_speculative/sampling_distribution.cpp", "lessons/12_speculative/exercise/accept_drafts.hpp",
      "lessons/12_speculative/exercise/accept_drafts.cpp", "lessons/12_speculative/ngram_drafter.cpp",
      "lessons/12_speculative/model_drafter.cpp", "lessons/12_speculative/form_drafter.cpp",
      "lessons/12_speculative/speculative_writer.cpp"]),
    ("13 cache budget", "the quantized cache, the dropping cache, the positions it keeps (exercise 13), the scoring against lesson 06's cache",
     ["lessons/13_cache_budget/quantized_cache.hpp", "lessons/13_cache_budget/quantized_cache.cpp",
      "lessons/13_cache_budget/dropping_cache.cpp", "lessons/13_cache_budget/exercise/positions_to_keep.cpp",
      "lessons/13_cache_budget/budget_runs.cpp"]),
]


# Every file one cached decoding step of lesson 06 runs through, from the token to
# the chosen next character: the writing loop, the cached forward and its
# operations, the draw with its filters, each exercise's switch and stub, and
# every header whose structs they use.
STEP_PATH = [
    "common/generate.hpp", "common/generate.cpp",
    "lessons/06_kvcache/kv_cache.hpp", "lessons/06_kvcache/kv_cache.cpp",
    "lessons/06_kvcache/exercise/attention_with_cache.hpp",
    "lessons/06_kvcache/attention_with_cache_switch.cpp",
    "lessons/06_kvcache/exercise/attention_with_cache.cpp",
    "common/gpt.hpp", "common/parameters.hpp", "common/config.hpp", "common/tensor.hpp",
    "common/ops.hpp", "common/ops.cpp",
    "lessons/03_topk_topp/sampler.hpp", "lessons/03_topk_topp/sampler.cpp",
    "common/sampling.hpp", "common/sampling.cpp",
    "lessons/03_topk_topp/exercise/top_p.hpp", "lessons/03_topk_topp/top_p_switch.cpp",
    "lessons/03_topk_topp/exercise/top_p.cpp",
    "lessons/02_temperature/exercise/sample_with_temperature.hpp",
    "lessons/02_temperature/sample_with_temperature_switch.cpp",
    "lessons/02_temperature/exercise/sample_with_temperature.cpp",
    "common/rng.hpp",
]


def fill_step_path(match):
    counts = [(f, len((root / f).read_text().splitlines())) for f in STEP_PATH]
    rows = ["| file | lines |", "|---|---|"] + [f"| `{f}` | {n} |" for f, n in counts]
    rows.append(f"| **{len(counts)} files** | **{sum(n for _, n in counts)} lines** |")
    # what --yours costs the path: each exercise's header, switch and stub
    own = [(f, n) for f, n in counts if "/exercise/" not in f and not f.endswith("_switch.cpp")]
    rows.append(f"| without the exercises' {len(counts) - len(own)} files: {len(own)} files "
                f"| {sum(n for _, n in own)} lines |")
    return "<!-- step-path -->\n" + "\n".join(rows) + "\n<!-- /step-path -->"


def fill_reading_path(match):
    rows = ["| lesson | what you read | files (lines) | total |", "|---|---|---|---|"]
    for lesson, what, files in READING:
        counts = [(f, len((root / f).read_text().splitlines())) for f in files]
        listed = ", ".join(f"`{f}` ({n})" for f, n in counts)
        rows.append(f"| {lesson} | {what} | {listed} | {len(files)} files, {sum(n for _, n in counts)} lines |")
    return "<!-- reading-path -->\n" + "\n".join(rows) + "\n<!-- /reading-path -->"


measure_binary = root / "build/release/lessons/03_topk_topp/measure_settings"
measured = []  # its Markdown lines, once a page asks for them

# The rows of the table each page shows, by the setting in the first cell.
MEASURE_ROWS = {
    "02_temperature": lambda setting: "top-" not in setting,
    "03_topk_topp": lambda setting: setting.startswith(("T 1.5", "corpus")),
}


def fill_measure(page):
    keep = MEASURE_ROWS.get(page.parent.name, lambda setting: True)

    def fill(match):
        if not measured:
            measured.extend(subprocess.run([str(measure_binary), "--markdown"], check=True,
                                           capture_output=True, text=True).stdout.splitlines())
        header, rows = measured[:2], measured[2:]
        body = "\n".join(header + [r for r in rows if keep(r.split("|")[1].strip())])
        return f"<!-- measure:settings -->\n{body}\n<!-- /measure -->"
    return fill


def fill_static(text):
    """The blocks filled from the code alone, without running a program."""
    new = re.sub(r"<!-- excerpt:([^:]+):(.+?) -->.*?<!-- /excerpt -->", fill_excerpt, text, flags=re.S)
    new = re.sub(r"<!-- diff:kv_cache -->.*?<!-- /diff -->", fill_diff, new, flags=re.S)
    new = re.sub(r"<!-- diff:small_cache -->.*?<!-- /diff -->", fill_small_cache_diff, new, flags=re.S)
    new = re.sub(r"<!-- diff:paged_forward -->.*?<!-- /diff -->", fill_paged_diff, new, flags=re.S)
    new = re.sub(r"<!-- reading-path -->.*?<!-- /reading-path -->", fill_reading_path, new, flags=re.S)
    new = re.sub(r"<!-- lines:([^ ]+) -->.*?<!-- /lines -->", fill_line_count, new, flags=re.S)
    return re.sub(r"<!-- step-path -->.*?<!-- /step-path -->", fill_step_path, new, flags=re.S)


def fill_line_count(match):
    """A file's line count quoted in a sentence, e.g. how long docs/one-step.md is."""
    lines = len((root / match.group(1)).read_text().splitlines())
    return f"<!-- lines:{match.group(1)} -->{lines}<!-- /lines -->"


def solution_lines(path):
    """A solution's lines that say something (not braces, blanks, comments or includes)."""
    lines = []
    for line in path.read_text().splitlines():
        bare = line.strip()
        if len(bare) > 3 and not bare.startswith(("//", "#include", "namespace", "}")):
            lines.append(bare)
    return lines


def quoted_solutions(page, text):
    """What of a reference solution the page shows: excerpts of solution/ files, or four
    lines in a row of one inside any code block."""
    found = [f"an excerpt of {m.group(1)}"
             for m in re.finditer(r"<!-- excerpt:([^:]*/solution/[^:]+):", text)]
    blocks = [[line.strip() for line in block.splitlines()]
              for block in re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.S)]
    for solution in sorted(root.glob("lessons/*/solution/*.cpp")):
        lines = solution_lines(solution)
        runs = {tuple(lines[i:i + 4]) for i in range(len(lines) - 3)}
        for block in blocks:
            if any(tuple(block[i:i + 4]) in runs for i in range(len(block) - 3)):
                found.append(f"lines of {solution.relative_to(root)}")
                break
    return found


# The rule for figures: a page quotes one run, named once in a line of this shape
# above its output, with a clause on how much such figures move between runs; the
# ranges over runs and the run histories live in docs/benchmarks.md.
RUN_LINE = re.compile(r"^\*One run: [^*\n]*?\b20\d\d-\d\d-\d\d\b[^*\n]*?\bmove[^*\n]*\*$", re.M)
# A timing: a duration, a speed or a speed-up.
TIMING = re.compile(r"\d[\d,.]*\s*(?:ms|µs|us|ns|s|seconds?|milliseconds?|microseconds?)\b(?!\w)"
                    r"|\d[\d,.]*\s*(?:x|×|times) (?:faster|slower|as fast|the speed|cheaper|longer)"
                    r"|\d[\d,.]*\s*k?\s*(?:characters a second|chars?/s|GB/s|GFLOP/s|steps a second)")
# Phrases that compare runs: they belong in docs/benchmarks.md, at most one on a page.
NUMBER_WORD = r"(?:\d+|two|three|four|five|six|seven|eight|nine|ten|several|many|earlier)"
RUN_HISTORY = re.compile(r"\bin " + NUMBER_WORD + r" (?:\w+ )?runs\b|from run to run|\bin one run\b[^.]*\banother\b"
                         r"|\bbusy(?:ier)? machine|\b2-core machine|\ba later run\b|\bthe latest (?:two|three|four|\d+)\b",
                         re.I)
# How long a page may be, in lines.
PAGE_LIMITS = {"README.md": 80, "docs/README.md": 100, "lessons/06_kvcache/README.md": 300}
LESSON_PAGE_LIMIT = 400
FIRST_SIX_LIMIT = 1300  # lessons 01-06 together


def prose_sentences(text):
    """The page's sentences outside code blocks, tables and HTML comments."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"^\|.*$", "", text, flags=re.M)  # tables print what programs printed
    for paragraph in re.split(r"\n\s*\n|\n(?=- )", text):  # a list item is a paragraph
        yield from re.split(r"(?<=[.!?])\s+(?=[A-Z*(])", " ".join(paragraph.split()))


def is_lesson_page(page):
    return page.relative_to(root).parts[0] == "lessons"


def figure_problems(page, text):
    """Timings quoted without the one named run, a run named twice, run histories."""
    name = page.relative_to(root)
    problems = []
    runs = RUN_LINE.findall(text)
    timed = [s for s in prose_sentences(text) if TIMING.search(s)]
    if timed and not runs and is_lesson_page(page):
        problems.append(f"{name} quotes a timing ({timed[0][:80]!r}) but names no run: put one line "
                        "'*One run: MACHINE, DATE. ... move ...; ranges over runs: [benchmarks](...)*' "
                        "above its output")
    if len(runs) > 1:
        problems.append(f"{name} names {len(runs)} runs: a page quotes one run, named once")
    if is_lesson_page(page) or name.parts[-1] == "README.md":
        history = [m.group(0) for s in prose_sentences(text) for m in RUN_HISTORY.finditer(s)]
        if len(history) > 1:
            problems.append(f"{name} compares runs {len(history)} times ({', '.join(map(repr, history[:4]))}): "
                            "ranges over runs and run histories go to docs/benchmarks.md")
    return problems


def order_problems(page, text):
    """The questions to predict come before the output that answers them."""
    predict = re.search(r"^#+ .*Predict", text, flags=re.M)
    output = re.search(r"<!-- output:section-", text)
    if predict and output and output.start() < predict.start():
        return [f"{page.relative_to(root)}: 'Predict' comes after the output that answers it"]
    return []


def size_problems(pages):
    problems = []
    lengths = {str(p.relative_to(root)): len(p.read_text().splitlines()) for p in pages}
    for name, n in lengths.items():
        limit = PAGE_LIMITS.get(name, LESSON_PAGE_LIMIT if name.startswith("lessons/") else None)
        if limit is not None and n > limit:
            problems.append(f"{name} has {n} lines: at most {limit}")
    first_six = sum(n for name, n in lengths.items() if re.match(r"lessons/0[1-6]_[^/]+/README.md$", name))
    if first_six > FIRST_SIX_LIMIT:
        problems.append(f"lessons 01-06 have {first_six} lines together: at most {FIRST_SIX_LIMIT}")
    readme = (root / "README.md").read_text().splitlines()[:40]
    if not any("IDENTICAL" in line for line in readme):
        problems.append("README.md: lesson 06's IDENTICAL line is not in its first 40 lines")
    return problems


def check_pages(pages):
    problems = []
    for page in pages:
        name = page.relative_to(root)
        text = page.read_text()
        for what in quoted_solutions(page, text):
            problems.append(f"{name} shows {what}: name the file instead, the learner reads it "
                            "after the tests pass")
        if "folded at the end of this page" in text:
            problems.append(f"{name} says a solution is folded on the page: none is; say where "
                            "it is (its path) instead")
        problems += figure_problems(page, text)
        problems += order_problems(page, text)
        filled = fill_static(text)
        if filled != text:
            first = next(d for d in difflib.unified_diff(text.splitlines(), filled.splitlines(),
                                                         lineterm="", n=0)
                         if d.startswith(("-", "+")) and not d.startswith(("---", "+++")))
            problems.append(f"{name}: an excerpt, diff or file table no longer matches the code, "
                            f"first at {first.strip()[:80]!r} (run scripts/update_lesson_readmes.py "
                            f"--pages {name})")
    problems += size_problems(pages)
    for problem in problems:
        print(problem)
    if problems:
        sys.exit(1)
    print(f"{len(pages)} pages checked: no solution shown, every block from the code up to date, "
          "one run named, the pages within their lengths")


# one-step.md before docs/README.md, which quotes its length
pages = (sorted(root.glob("lessons/[01][0-9]_*/README.md"))
         + sorted(root.glob("lessons/[01][0-9]_*/serving/README.md"))  # lesson 11's serving shell
         + [root / "docs/one-step.md", root / "docs/README.md", root / "README.md"])
if only:
    pages = [page for page in pages if page.resolve() in only]
if check:
    others = [root / "README.md"] + sorted(root.glob("docs/*.md"))
    check_pages(pages + [page for page in others if page not in pages])
    sys.exit(0)
for page in pages:
    text = page.read_text()
    if static_only:
        new = fill_static(text)
        if new != text:
            page.write_text(new)
            print(f"updated {page.relative_to(root)}")
        continue
    new = re.sub(r"<!-- output:section-(\d+) -->.*?<!-- /output -->", fill_output, text, flags=re.S)
    new = fill_static(new)
    new = re.sub(r"<!-- run:(.+?) -->.*?<!-- /run -->", fill_run, new, flags=re.S)
    new = re.sub(r"<!-- measure:settings -->.*?<!-- /measure -->", fill_measure(page), new, flags=re.S)
    new = re.sub(r"<!-- table:(.+?) -->.*?<!-- /table -->", fill_table, new, flags=re.S)
    if new != text:
        page.write_text(new)
        print(f"updated {page.relative_to(root)}")
