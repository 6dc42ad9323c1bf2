#!/usr/bin/env python3
"""The docs check: what a reader sees stays a reference, not a diary.

It reads every Markdown file (README.md, docs/, each family's DESIGN.md, every README.md), the Markdown
cells of the notebooks, and the comments of the sources (.cu .cuh .cpp .hpp .h .py .sh, CMake files and
shell scripts without an extension, such as .ci/run; Python docstrings count as comments), and fails on:

  diary        words that date a text to one sitting of work rather than to the code (RULES below)
  numbering    the tracker's own numbers for work items, targets and ideas, and their short forms
  branch       branch names
  ignored      folders git ignores, which a reader does not have
  code_id      a 16-hex code_id
  length       README.md over 200 lines
  generated    a generated block that differs from its regeneration (scripts/readme_results.py --check,
               scripts/results_report.py --check, scripts/answers_figures.py --check)

A Markdown block between <!-- name:begin --> and <!-- name:end --> is written by a project script from
results/ and is not scanned (its generator's --check covers it); neither are notebook outputs, results/*.json
or tuning/*.txt (data, with their provenance). This file names the patterns, so it is not scanned either.

  scripts/check_docs.py                      everything; a summary per file, exit 1 on any finding
  scripts/check_docs.py --report             every offending line, grouped by file
  scripts/check_docs.py README.md docs/      only these files and folders (the generated check still runs)
  scripts/check_docs.py --skip-generated     without the generators' --check (no pandas needed)
"""
from __future__ import annotations

import argparse
import io
import json
import re
import subprocess
import sys
import tokenize
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SELF = Path(__file__).resolve()
README_LIMIT = 200
C_LIKE = {".cu", ".cuh", ".cpp", ".hpp", ".h", ".c", ".cc"}
HASH_COMMENTS = {".sh", ".cmake", ".bash"}
GENERATORS = ("scripts/readme_results.py", "scripts/results_report.py", "scripts/answers_figures.py")

_ORDINALS = ("third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth fifteenth "
             "sixteenth seventeenth eighteenth nineteenth twentieth thirtieth fortieth").split()
_UNITS = "first second third fourth fifth sixth seventh eighth ninth".split()
ORDINAL = "|".join(_ORDINALS + [f"{tens}-{unit}" for tens in ("twenty", "thirty") for unit in _UNITS])

# (rule, pattern, where): where is "all" or "prose" (Markdown and notebook cells only).
RULES = [
    ("diary", re.compile(r"\bsessions?\b", re.I), "all"),
    ("diary", re.compile(r"\bthis run\b(?!s)|\b(?:previous|earlier) runs?\b", re.I), "all"),
    ("diary", re.compile(rf"\b(?:{ORDINAL}|\d+(?:st|nd|rd|th))\s+runs?\b", re.I), "all"),
    # A numbered work item, one or several; not the verb ("an SM issues 4 instructions"), nor "16-byte".
    ("numbering", re.compile(r"\bissue\s*#?\d+(?![\d.-])|\bissues\s+\d+(?:\s*(?:,|and|to|–|-)\s*\d+)+", re.I), "all"),
    ("numbering", re.compile(r"\btargets?[\s-]+\d+", re.I), "all"),
    ("numbering", re.compile(r"\bideas?\s+\d+", re.I), "all"),
    # Target shorthand "T1".."T12" in prose; T4 is left out, as it names a GPU.
    ("numbering", re.compile(r"\bT(?:[1-35-9]|1[0-2])\b"), "prose"),
    ("branch", re.compile(r"(?<![\w./-])(?:next|exp|wip)/[\w.-]+"), "all"),
    ("ignored", re.compile(r"(?<![\w.])\.(?:deps|whl|cccl35)/"), "all"),
    ("ignored", re.compile(r"(?<![\w./-])build-[a-z][\w-]*"), "all"),
    ("code_id", re.compile(r"(?<![0-9A-Za-z_])[0-9a-f]{16}(?:-dirty)?(?![0-9A-Za-z_])"), "all"),
]
# A numbered item of an upstream tracker (CCCL's, NCCL's, ...) is a citation, not the project's numbering.
UPSTREAM = re.compile(r"(?:CCCL|CUB|Thrust|NCCL|CUDA|GoogleTest|benchmark|nvbench|PyTorch)[\s/#-]*$", re.I)
BLOCK_BEGIN = re.compile(r"<!--\s*([\w.-]+):begin\s*-->")
BLOCK_END = "<!-- {}:end -->"


@dataclass
class Finding:
    path: str
    where: str  # "12" (line) or "cell 3, line 4"
    rule: str
    match: str
    text: str


# What each kind of file shows a reader -----------------------------------------------------------------

def markdown_lines(text: str) -> list[tuple[str, str]]:
    """(line number, line) outside generated blocks."""
    out, block = [], None
    for number, line in enumerate(text.splitlines(), 1):
        if block is None:
            m = BLOCK_BEGIN.search(line)
            if m:
                block = m.group(1)
                continue
            out.append((str(number), line))
        elif BLOCK_END.format(block) in line:
            block = None
    return out


def notebook_lines(text: str) -> list[tuple[str, str]]:
    """The Markdown cells' lines, generated blocks left out."""
    cells = json.loads(text).get("cells", [])
    out = []
    for index, cell in enumerate(cells):
        if cell.get("cell_type") != "markdown":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source
        out += [(f"cell {index}, line {n}", line) for n, line in markdown_lines(source)]
    return out


def c_comments(text: str) -> list[tuple[str, str]]:
    """The comments of C, C++ and CUDA source: // to the end of the line, /* ... */; strings skipped."""
    out, i, line, n = [], 0, 1, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append((str(line), text[i + 2:end]))
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end
            for k, part in enumerate(text[i + 2:end].split("\n")):
                out.append((str(line + k), part))
            line += text.count("\n", i, end)
            i = end + 2
        elif c in "\"'":
            # A string or character literal, to its closing quote (escapes honoured, never past the line).
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1 if j < n and text[j] == c else j
        else:
            i += 1
    return out


def python_comments(text: str) -> list[tuple[str, str]]:
    """# comments and triple-quoted strings (docstrings and other prose)."""
    out = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return hash_comments(text)
    for tok in tokens:
        if tok.type == tokenize.COMMENT:
            out.append((str(tok.start[0]), tok.string[1:]))
        elif tok.type == tokenize.STRING and re.match(r"^[rRbBuU]{0,2}(\"\"\"|''')", tok.string):
            for k, part in enumerate(tok.string.split("\n")):
                out.append((str(tok.start[0] + k), part))
    return out


def hash_comments(text: str) -> list[tuple[str, str]]:
    """# comments of shell and CMake: a # at the start of a word, outside quotes ($# and ${#x} are not)."""
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if number == 1 and line.startswith("#!"):
            continue
        quote = None
        for k, c in enumerate(line):
            if quote:
                if c == quote and line[k - 1] != "\\":
                    quote = None
            elif c in "\"'":
                quote = c
            elif c == "#" and (k == 0 or line[k - 1] in " \t;("):
                out.append((str(number), line[k + 1:]))
                break
    return out


def kind_of(path: Path) -> str | None:
    name, suffix = path.name, path.suffix
    if suffix == ".md":
        return "markdown"
    if suffix == ".ipynb":
        return "notebook"
    if suffix in C_LIKE:
        return "c"
    if suffix == ".py":
        return "python"
    if suffix in HASH_COMMENTS or name == "CMakeLists.txt":
        return "hash"
    if suffix == "" and path.is_file():
        try:
            first = path.open("rb").readline()
        except OSError:
            return None
        if first.startswith(b"#!") and (b"sh" in first or b"bash" in first):
            return "hash"
        if first.startswith(b"#!") and b"python" in first:
            return "python"
    return None


READERS = {"markdown": markdown_lines, "notebook": notebook_lines, "c": c_comments, "python": python_comments,
           "hash": hash_comments}


def scan(path: Path) -> list[Finding]:
    kind = kind_of(path)
    if kind is None or path.resolve() == SELF:
        return []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    prose = kind in ("markdown", "notebook")
    rel = path.resolve().relative_to(ROOT).as_posix()
    found = []
    for where, line in READERS[kind](text):
        for rule, pattern, scope in RULES:
            if scope == "prose" and not prose:
                continue
            for m in pattern.finditer(line):
                if rule == "numbering" and UPSTREAM.search(line[:m.start()]):
                    continue
                found.append(Finding(rel, where, rule, m.group(0), line.strip()))
    return found


def project_files() -> list[Path]:
    """Tracked files and new files git does not ignore (results/*.json and tuning/ are data, not read)."""
    listed = subprocess.run(["git", "-c", "safe.directory=*", "ls-files", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout.splitlines()
    return [ROOT / p for p in sorted(set(listed))
            if not p.startswith(("results/", "tuning/")) or p.endswith(".md")]


def selected(paths: list[str]) -> list[Path]:
    files = project_files()
    if not paths:
        return files
    wanted = [(ROOT / p).resolve() if not Path(p).is_absolute() else Path(p).resolve() for p in paths]
    return [f for f in files if any(f.resolve() == w or w in f.resolve().parents for w in wanted)]


# The checks that are not patterns ----------------------------------------------------------------------

def readme_length() -> str | None:
    lines = len((ROOT / "README.md").read_text().splitlines())
    return f"README.md has {lines} lines, over the front page's limit of {README_LIMIT}" if lines > README_LIMIT else None


def generated_blocks() -> list[str]:
    failures = []
    for script in GENERATORS:
        run = subprocess.run([sys.executable, str(ROOT / script), "--check"], cwd=ROOT, capture_output=True, text=True)
        if run.returncode != 0:
            why = (run.stderr.strip() or run.stdout.strip()).splitlines()
            failures.append(f"{script} --check failed: {why[-1] if why else 'no output'}")
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*", help="files or folders to scan (default: the whole project)")
    parser.add_argument("--report", action="store_true", help="list every offending line, grouped by file")
    parser.add_argument("--skip-generated", action="store_true", help="leave out the generators' --check")
    args = parser.parse_args()

    findings = [f for path in selected(args.paths) for f in scan(path)]
    by_file: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        by_file[f.path].append(f)
    problems = []
    if not args.paths or any(Path(p).name == "README.md" and Path(p).parent in (Path("."), ROOT) for p in args.paths):
        length = readme_length()
        if length:
            problems.append(length)
    if not args.skip_generated:
        problems += generated_blocks()

    for path, items in by_file.items():
        rules = Counter(f.rule for f in items)
        print(f"{path}: {len(items)} finding{'s' * (len(items) != 1)} ("
              + ", ".join(f"{rule} {count}" for rule, count in rules.most_common()) + ")")
        if args.report:
            for f in items:
                text = f.text if len(f.text) <= 140 else f.text[:137] + "..."
                print(f"  {f.where}: [{f.rule}] {f.match!r}: {text}")
    for p in problems:
        print(p)
    if findings or problems:
        print(f"check_docs: FAILED: {len(findings)} findings in {len(by_file)} files, {len(problems)} other problems"
              + ("" if args.report else " (--report lists every line)"))
        return 1
    print("check_docs: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
