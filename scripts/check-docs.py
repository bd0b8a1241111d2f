#!/usr/bin/env python3
"""Checks what the documentation claims about the repository itself.

1. Every reference to one of the project's own documents resolves: a `*.md` path that starts with a top-level
   folder of the repository (`docs/`, `sim/`...), with `shared/`, or that is a bare upper-case name
   (`README.md`), in any tracked file, names a file that exists (relative to the referring file, to the root or to
   docs/). Documents of other projects are cited by URL, which this check skips.
2. docs/architecture.md's spine table ("| step | file | look at |") lists at most MAX_SPINE files, each exists,
   and each holds the symbol the table says to look at.

  check-docs.py [--root DIR]    exit 0: all hold; 1: a claim failed (each printed as FILE:LINE: why); 2: usage
"""
import argparse
import os
import re
import subprocess
import sys

MAX_SPINE = 12
REFERENCE = re.compile(r"(?<![\w/.:-])((?:[\w.-]+/)*[\w.-]+\.md)\b")
URL_BEFORE = re.compile(r"https?://\S*$")
SPINE_ROW = re.compile(r"^\|\s*(\d+)\s*\|\s*`([^`]+)`\s*\|\s*`([^`]+)`\s*\|")


def tracked_files(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "-co", "--exclude-standard"], capture_output=True,
                         text=True, check=True).stdout
    return [f for f in out.split("\n") if f]


def is_own_document(ref, top_level):
    first = ref.split("/", 1)[0]
    if "/" in ref:
        return first in top_level or first == "shared"
    return re.fullmatch(r"[A-Z][A-Z_-]*\.md", ref) is not None


def check_references(root, files):
    top_level = {f.split("/", 1)[0] for f in files if "/" in f}
    failures = []
    for f in files:
        path = os.path.join(root, f)
        try:
            with open(path, encoding="utf-8") as handle:
                lines = handle.read().split("\n")
        except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
            continue
        for number, line in enumerate(lines, 1):
            for match in REFERENCE.finditer(line):
                ref = match.group(1)
                if URL_BEFORE.search(line[:match.start(1)]) or not is_own_document(ref, top_level):
                    continue
                if ref.startswith("shared/"):
                    failures.append(f"{f}:{number}: {ref} is outside the repository; cite docs/ or the source")
                    continue
                candidates = [os.path.join(root, os.path.dirname(f), ref), os.path.join(root, ref),
                              os.path.join(root, "docs", ref)]
                if not any(os.path.exists(c) for c in candidates):
                    failures.append(f"{f}:{number}: {ref} does not exist")
    return failures


def check_spine(root):
    doc = os.path.join(root, "docs", "architecture.md")
    if not os.path.exists(doc):
        return [f"docs/architecture.md: missing"]
    failures, rows = [], []
    with open(doc, encoding="utf-8") as handle:
        for number, line in enumerate(handle.read().split("\n"), 1):
            match = SPINE_ROW.match(line)
            if match:
                rows.append((number, match.group(2), match.group(3)))
    if not rows:
        return ["docs/architecture.md: no spine table (rows `| N | `file` | `symbol` |`)"]
    files = {path for _, path, _ in rows}
    if len(files) > MAX_SPINE:
        failures.append(f"docs/architecture.md: the spine opens {len(files)} files, more than {MAX_SPINE}")
    for number, path, symbol in rows:
        full = os.path.join(root, path)
        if not os.path.isfile(full):
            failures.append(f"docs/architecture.md:{number}: {path} does not exist")
            continue
        with open(full, encoding="utf-8") as handle:
            if symbol not in handle.read():
                failures.append(f"docs/architecture.md:{number}: {path} has no `{symbol}`")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    args = parser.parse_args()
    try:
        files = tracked_files(args.root)
    except (subprocess.CalledProcessError, FileNotFoundError) as e:
        print(f"check-docs: {args.root} is not a git checkout ({e})", file=sys.stderr)
        return 2
    failures = check_references(args.root, files) + check_spine(args.root)
    for failure in failures:
        print(failure)
    if failures:
        print(f"check-docs: {len(failures)} claim(s) failed", file=sys.stderr)
        return 1
    print(f"check-docs: {len(files)} files' document references resolve; the spine holds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
