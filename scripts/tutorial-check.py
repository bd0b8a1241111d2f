#!/usr/bin/env python3
"""Keeps docs/tutorial/ true: every command it shows is run, every piece of kernel code it quotes is in the kernel.

  tutorial-check.py TESSERA ROOT [--update]

In each ROOT/docs/tutorial/*.md page:
  - a ```console block holds commands, each a line `$ tessera ARGS...` followed by what it prints. Each command is
    run as `TESSERA ARGS...` (from ROOT) and must print exactly that (stdout, then stderr, with ROOT's absolute
    path taken out of source places) and exit 0, unless the line ends in `# exits N`;
  - a ```cpp block whose first line is `// FILE` (a path under ROOT) quotes FILE: its other lines must be
    consecutive lines of FILE, less a common indentation.
With --update the commands' outputs are written into the pages instead of compared (review the diff: the prose
around them quotes their numbers). Exit 1 when a page is out of date, with what differs.
"""
import difflib
import pathlib
import re
import shlex
import subprocess
import sys

EXITS = re.compile(r"\s+# exits (\d+)$")


def run(tessera, root, command):
    expected_exit = 0
    m = EXITS.search(command)
    if m:
        expected_exit = int(m.group(1))
        command = command[: m.start()]
    args = shlex.split(command)
    assert args[0] == "tessera", command
    done = subprocess.run([tessera] + args[1:], cwd=root, capture_output=True, text=True)
    if done.returncode != expected_exit:
        raise RuntimeError(f"`{command}` exited {done.returncode}, not {expected_exit}:\n{done.stdout}{done.stderr}")
    # Source places are absolute paths of this checkout: shown relative to it, so the pages hold on any machine.
    text = (done.stdout + done.stderr).replace(str(root.resolve()) + "/", "")
    return text.rstrip("\n").split("\n")


def check_quote(root, page, lines):
    path = lines[0][len("// "):].strip()
    body = lines[1:]
    source = (root / path).read_text().split("\n")
    indent = min((len(l) - len(l.lstrip()) for l in body if l.strip()), default=0)
    for start in range(len(source) - len(body) + 1):
        window = source[start:start + len(body)]
        shift = None
        ok = True
        for quoted, actual in zip(body, window):
            if not quoted.strip():
                ok = not actual.strip()
            else:
                extra = len(actual) - len(actual.lstrip()) - (len(quoted) - len(quoted.lstrip()))
                shift = extra if shift is None else shift
                ok = extra == shift and actual.strip() == quoted.strip()
            if not ok:
                break
        if ok:
            return []
    return [f"{page.name}: a quote of {path} ({len(body)} lines from `{body[0].strip()}`) is not in {path}"]


def process(tessera, root, page, update):
    text = page.read_text().split("\n")
    out, problems, i = [], [], 0
    while i < len(text):
        line = text[i]
        out.append(line)
        i += 1
        if line.strip() not in ("```console", "```cpp"):
            continue
        kind = line.strip()[3:]
        block = []
        while i < len(text) and text[i].strip() != "```":
            block.append(text[i])
            i += 1
        if kind == "cpp":
            if block and block[0].startswith("// ") and block[0].split()[1].count("/"):
                problems += check_quote(root, page, block)
            out += block
            continue
        # console: commands and their outputs
        j = 0
        while j < len(block):
            if not block[j].startswith("$ "):
                problems.append(f"{page.name}: a console block line is not after a command: {block[j]}")
                j += 1
                continue
            command = block[j][2:]
            shown = []
            j += 1
            while j < len(block) and not block[j].startswith("$ "):
                shown.append(block[j])
                j += 1
            actual = run(tessera, root, command)
            if actual != shown and not update:
                diff = "\n".join(difflib.unified_diff(shown, actual, "page", "now", lineterm=""))
                problems.append(f"{page.name}: `{command}` prints something else now:\n{diff}")
            out.append("$ " + command)
            out += actual if update else shown
    if update and out != text:
        page.write_text("\n".join(out))
        print(f"tutorial-check: updated {page}")
    return problems


def main():
    args = sys.argv[1:]
    if len(args) not in (2, 3) or (len(args) == 3 and args[2] != "--update"):
        sys.exit(__doc__)
    tessera, root, update = args[0], pathlib.Path(args[1]), len(args) == 3
    pages = sorted((root / "docs" / "tutorial").glob("*.md"))
    if not pages:
        sys.exit(f"tutorial-check: no pages in {root / 'docs' / 'tutorial'}")
    problems = []
    for page in pages:
        problems += process(tessera, root, page, update)
    for p in problems:
        print(p)
    if problems:
        print(f"tutorial-check: {len(problems)} problem(s); after checking the prose, "
              f"`scripts/tutorial-check.py {tessera} {root} --update` rewrites the outputs")
        return 1
    print(f"tutorial-check: {len(pages)} pages up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
