#!/usr/bin/env python3
"""Checks that docs/dsl.md documents the DSL's whole public API, and nothing the headers do not declare.

Usage: check-dsl-docs.py [--root DIR] [--doc FILE] [--headers DIR] [--list]

  --root DIR     the repository (default: the folder above this script); paths are shown relative to it
  --doc FILE     the document (default: ROOT/docs/dsl.md)
  --headers DIR  the DSL's public headers (default: ROOT/nki-like-dsl/include/tessera/dsl), every *.h under it
  --list         print every public name found, one per line, with where it is declared, and exit 0

The public names are what the headers declare in namespace tsr and its sub-namespaces (tsr::isa, tsr::op, ...),
written relative to tsr (`isa::nc_matmul`, `Tile::slice`): functions (operator overloads at namespace scope as
`operator+`), classes, structs, enums and their values, type aliases and using-declarations (`using
tessera::isa::DType;` declares `DType`), constants and variables, and the public members of classes and structs
(member functions and data members). Not names of their own: constructors, destructors, member operators and
deleted functions (they belong to their class); anything private or protected; namespaces called detail or
internal; and a declaration whose comment holds `\\internal`.

A name is documented when it appears in backticks in a heading, a table row or a list item (with its indented
continuation lines) of the document, outside code blocks:
  - a name at namespace scope as its path, with or without `tsr::`: `tsr::load` or `load(src)`, `isa::iota`,
    `act::exp` (`activation` documents tsr::activation, not tsr::isa::activation);
  - a member (or enum value) as `Class::member` (the class's namespace may be left out: `OpKind::Load` for
    tsr::graph::OpKind::Load), or as `member` / `.member` in an entry that also names its class in backticks, or
    under a heading that names it: `Hbm::dim`, or a row "`tsr::Hbm` ... `dim(d)`", or `.bias` in the row of
    `tsr::ActivationOptions`.

It fails (exit 1, one FILE:LINE: line per problem) when
  (a) a public name is not documented (reported at its header's line);
  (b) the document names in backticks a tsr:: name no header declares publicly: a path that starts with `tsr::`,
      with a sub-namespace of tsr (`isa::`, `act::`, ...) or with a class of tsr (`Tile::`, `OpKind::`), anywhere
      in the text outside code blocks;
  (c) a ```cpp block uses a `tsr::`, `act::`, `isa::`, `op::`, `buffer::`, `tile_size::` or `graph::` path that no
      header declares.
A path through an alias (`DType::BF16`, `Loc::current`: types the headers re-export) is not checked further.
Exit 2 on bad usage or a missing file. Python 3, standard library only.
"""

import argparse
import os
import re
import sys

# Namespaces whose contents are not public.
HIDDEN_NAMESPACES = {"detail", "internal"}
# Keywords that may precede a declaration and say nothing of its name.
SPECIFIERS = {"inline", "constexpr", "consteval", "constinit", "static", "explicit", "virtual", "extern", "typename",
              "mutable", "thread_local"}
OPERATOR_SYMBOLS = ("+=", "-=", "*=", "/=", "==", "!=", "<=", ">=", "&&", "||", "++", "--", "->", "+", "-", "*", "/",
                    "%", "<", ">", "=", "!", "&", "|", "^", "~", "[", "]", "(", ")")
TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.']*|::|\.\.\.|\+=|-=|\*=|/=|==|!=|<=|>=|&&|\|\||\+\+|--|->|\S")
# A path in the document: identifiers joined by ::, the last one possibly an operator.
PATH = re.compile(r"(?<![\w:])((?:[A-Za-z_]\w*::)*)(operator(?:\+=|-=|\*=|/=|%=|[-+*/%])|[A-Za-z_]\w*)")
CODE_SPAN = re.compile(r"`([^`\n]+)`")
FENCED_PREFIXES = ("tsr", "act", "isa", "op", "buffer", "tile_size", "graph")


class Name:
    """One public name: its path relative to tsr, what it is, and where it is declared."""

    def __init__(self, path, kind, file, line):
        self.path, self.kind, self.file, self.line = path, kind, file, line


class Api:
    """What the headers declare."""

    def __init__(self):
        self.names = {}           # path -> Name (the first declaration seen)
        self.namespaces = set()   # paths of tsr's sub-namespaces ("" is tsr itself)
        self.reexports = set()    # paths of aliases and using-declarations of types declared elsewhere
        self.classes = set()      # paths of classes, structs and enums

    def add(self, path, kind, file, line):
        if path not in self.names:
            self.names[path] = Name(path, kind, file, line)

    def resolves(self, path):
        """Whether `path` (relative to tsr) is declared, or goes through a re-exported type."""
        if path in self.names or path in self.namespaces:
            return True
        parts = path.split("::")
        return any("::".join(parts[:i]) in self.reexports for i in range(1, len(parts)))


def tokenize(text):
    """Tokens (text, line) of C++ source without comments, strings or preprocessor lines; and the lines whose
    comments hold \\internal, and the lines that are only a comment."""
    tokens, internal, comment_only = [], set(), set()
    i, line, n = 0, 1, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
            at_line_start = True
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if at_line_start and c == "#":  # a preprocessor line, with its continuations
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    line += 1
                    i += 1
                i += 1
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            if "\\internal" in text[i:end] or "@internal" in text[i:end]:
                internal.add(line)
            if at_line_start:
                comment_only.add(line)
            i = end
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            body = text[i:end]
            if "\\internal" in body or "@internal" in body:
                internal.update(range(line, line + body.count("\n") + 1))
            if at_line_start:
                comment_only.update(range(line, line + body.count("\n") + 1))
            line += body.count("\n")
            i = end
            continue
        at_line_start = False
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            line += text[i:j].count("\n")
            tokens.append(('""', line))
            i = j + 1
            continue
        m = TOKEN.match(text, i)
        tokens.append((m.group(0), line))
        i = m.end()
    return tokens, internal, comment_only


class HeaderParser:
    """Walks one header's tokens, scope by scope, and records its public declarations in an Api."""

    def __init__(self, api, file, text):
        self.api, self.file = api, file
        self.toks, self.internal, self.comment_only = tokenize(text)

    def is_internal(self, line):
        if line in self.internal:
            return True
        k = line - 1
        while k in self.comment_only:
            if k in self.internal:
                return True
            k -= 1
        return False

    def skip_braces(self, i):
        """From the `{` at i, the index after its matching `}`."""
        depth = 0
        while i < len(self.toks):
            t = self.toks[i][0]
            depth += t == "{"
            depth -= t == "}"
            i += 1
            if depth == 0:
                return i
        return i

    def statement(self, i):
        """The tokens from i up to a `;`, `{` or `}` outside parentheses and brackets; and that token's index."""
        depth, start = 0, i
        while i < len(self.toks):
            t = self.toks[i][0]
            if t in "([":
                depth += 1
            elif t in ")]":
                depth -= 1
            elif t == "{" and depth > 0:  # a braced default argument: `= {}`
                i = self.skip_braces(i)
                continue
            elif depth == 0 and t in (";", "{", "}"):
                return self.toks[start:i], i
            i += 1
        return self.toks[start:i], i

    def parse(self):
        self.scope(0, ns=None, cls=[], access="public", kind="namespace")

    def scope(self, i, ns, cls, access, kind):
        """Parses declarations from i to the end of the scope; returns the index after its `}`. `ns` is the
        namespace path relative to tsr (None outside tsr or inside a hidden namespace), `cls` the classes."""
        while i < len(self.toks):
            t = self.toks[i][0]
            if t == "}":
                return i + 1
            if kind == "class" and t in ("public", "private", "protected") and i + 1 < len(self.toks) \
                    and self.toks[i + 1][0] == ":":
                access = t
                i += 2
                continue
            head, j = self.statement(i)
            end = self.toks[j][0] if j < len(self.toks) else ";"
            if end == "}":  # a scope ends without a final `;`
                if head:
                    self.declare(head, ns, cls, access, kind)
                return j + 1
            if end == ";":
                if head:
                    self.declare(head, ns, cls, access, kind)
                i = j + 1
                continue
            i = self.block(head, j, ns, cls, access, kind)
        return i

    def block(self, head, j, ns, cls, access, kind):
        """A statement `head {`: a namespace, a class, an enum, a function body or a braced initialiser."""
        words = strip_prefix([t for t, _ in head])
        line = head[0][1] if head else self.toks[j][1]
        if "namespace" in words[:2]:
            names = [w for w in words[words.index("namespace") + 1:] if w != "::" and w != "inline"]
            inner = ns
            if inner is None and names[:1] == ["tsr"] and kind == "namespace":
                inner, names = "", names[1:]
            if inner is not None:
                for name in names:
                    if name in HIDDEN_NAMESPACES:
                        return self.skip_braces(j)
                    inner = join(inner, name)
                    self.api.namespaces.add(inner)
            return self.scope(j + 1, inner, [], "public", "namespace")
        visible = ns is not None and access == "public" and not self.is_internal(line)
        if words and words[0] == "enum":
            name = next(w for w in words[1:] if w not in ("class", "struct") and ident(w))
            path = join(ns, "::".join(cls + [name])) if ns is not None else None
            if visible:
                self.api.add(path, "enum", self.file, line)
                self.api.classes.add(path)
            return self.enumerators(j + 1, path if visible else None)
        if words and words[0] in ("class", "struct", "union") and "(" not in words:
            name = next(w for w in words[1:] if ident(w) and w not in ("final", "alignas"))
            path = join(ns, "::".join(cls + [name])) if ns is not None else None
            if visible:
                self.api.add(path, "class", self.file, line)
                self.api.classes.add(path)
            i = self.scope(j + 1, ns if visible else None, cls + [name],
                           "private" if words[0] == "class" else "public", "class")
            _, k = self.statement(i)  # the declarators after the class body, if any, and its `;`
            return k + 1
        # A function's body, or a variable's braced initialiser: declare what the head names, skip the braces.
        if head:
            if is_function(words):
                self.declare(head, ns, cls, access, kind)
                return self.skip_braces(j)
            rest, k = self.statement(self.skip_braces(j))
            self.declare(head + rest, ns, cls, access, kind)
            return k + 1
        return self.skip_braces(j)

    def enumerators(self, i, path):
        """The values of an enum from i (after its `{`); returns the index after its `;`."""
        start = i
        depth = 0
        while i < len(self.toks) and not (self.toks[i][0] == "}" and depth == 0):
            depth += self.toks[i][0] in "({"
            depth -= self.toks[i][0] in ")}"
            i += 1
        if path is not None:
            expect_name = True
            for t, line in self.toks[start:i]:
                if expect_name and ident(t):
                    self.api.add(path + "::" + t, "enum value", self.file, line)
                    expect_name = False
                elif t == ",":
                    expect_name = True
        _, k = self.statement(i + 1)
        return k + 1

    def declare(self, head, ns, cls, access, kind):
        """Records what one declaration statement declares."""
        if ns is None:
            return
        line = head[0][1]
        words = [t for t, _ in head]
        friend = "friend" in words[:3]
        words = strip_prefix(words)
        if not words or self.is_internal(line):
            return
        if not friend and access != "public":
            return
        scope = "::".join(cls)
        if words[0] == "static_assert":
            return
        if words[0] == "typedef":
            words = ["using", [w for w in words if ident(w)][-1]]
        if words[0] == "using":
            if len(words) > 1 and words[1] == "namespace":
                return
            if "=" in words:
                name = words[words.index("=") - 1]
            else:
                name = words[-1]
            path = join(ns, join(scope, name))
            self.api.add(path, "alias", self.file, line)
            self.api.reexports.add(path)
            return
        if words[0] in ("class", "struct", "union", "enum") and "(" not in words:
            return  # a forward declaration
        if words[-2:] == ["=", "delete"]:
            return
        if is_function(words):
            qualifiers, name = function_name(words)
            if name is None or name.startswith("~"):
                return
            if friend:  # a function of the enclosing namespace
                self.api.add(join(ns, "::".join(qualifiers + [name])), "function", self.file, line)
                return
            if cls and (name == cls[-1] or name.startswith("operator")):
                return  # a constructor or a member operator: part of its class
            self.api.add(join(ns, join(scope, name)), "function", self.file, line)
            return
        if friend:
            return
        for name in declarators(words):
            self.api.add(join(ns, join(scope, name)), "member" if cls else "constant", self.file, line)


def ident(w):
    return re.fullmatch(r"[A-Za-z_]\w*", w) is not None


def join(a, b):
    return b if not a else a + "::" + b if b else a


def past_angles(words, k):
    """The index just past the `<...>` (nested ones included) that starts at words[k]."""
    depth = 0
    while k < len(words):
        depth += words[k] == "<"
        depth -= words[k] == ">"
        k += 1
        if depth == 0:
            break
    return k


def strip_prefix(words):
    """`words` without a leading template header, requires clause, attributes and specifiers."""
    words = list(words)
    changed = True
    while changed and words:
        changed = False
        if words[0] == "template" and len(words) > 1 and words[1] == "<":
            words, changed = words[past_angles(words, 1):], True
        elif words[0] == "requires":  # a qualified name with template arguments, joined by && or ||
            k = 1
            while k < len(words):
                while k + 1 < len(words) and ident(words[k]) and words[k + 1] == "::":
                    k += 2
                k += 1
                if k < len(words) and words[k] == "<":
                    k = past_angles(words, k)
                if k < len(words) and words[k] in ("&&", "||"):
                    k += 1
                    continue
                break
            words, changed = words[k:], True
        elif words[:2] == ["[", "["]:
            k = words.index("]") + 2 if "]" in words else len(words)
            words, changed = words[k:], True
        elif words[0] in SPECIFIERS or words[0] == "friend":
            words, changed = words[1:], True
    # attributes elsewhere in the head: class [[nodiscard]] X
    out, k = [], 0
    while k < len(words):
        if words[k:k + 2] == ["[", "["]:
            while k < len(words) and words[k:k + 2] != ["]", "]"]:
                k += 1
            k += 2
            continue
        out.append(words[k])
        k += 1
    return out


def first_paren(words):
    """The index of the first `(` outside template arguments, or -1."""
    depth = 0
    for k, w in enumerate(words):
        if w == "operator":
            return words.index("(", k + 2) if words[k + 1:k + 2] == ["("] else (
                words.index("(", k + 1) if "(" in words[k + 1:] else -1)
        if w == "<" and k > 0 and (ident(words[k - 1]) or words[k - 1] == ">"):
            depth += 1
        elif w == ">" and depth > 0:
            depth -= 1
        elif w == "(" and depth == 0:
            return k
        elif w in ("=", "{"):
            return -1
    return -1


def is_function(words):
    k = first_paren(words)
    if k <= 0:
        return False
    before = words[k - 1]
    return ident(before) or before in OPERATOR_SYMBOLS or "operator" in words[:k]


def function_name(words):
    """(qualifiers, name) of a function declaration: (["isa"], "nc_matmul"), ([], "operator+="); name None for a
    conversion operator."""
    k = first_paren(words)
    if "operator" in words[:k]:
        o = words.index("operator")
        symbol = "".join(words[o + 1:k])
        if not symbol or ident(words[o + 1]):
            return [], None  # operator T(): a conversion
        name, start = "operator" + symbol, o
    else:
        name, start = words[k - 1], k - 1
    if start > 0 and words[start - 1] == "~":
        return [], "~" + name
    qualifiers = []
    while start >= 2 and words[start - 1] == "::" and ident(words[start - 2]):
        qualifiers.insert(0, words[start - 2])
        start -= 2
    return qualifiers, name


def declarators(words):
    """The names a variable declaration declares: `int64_t partition = 0, free = 0;` gives partition and free."""
    parts, depth, current = [], 0, []
    for k, w in enumerate(words):
        if w in "([{" or (w == "<" and k > 0 and ident(words[k - 1])):
            depth += 1
        elif w in ")]}" or (w == ">" and depth > 0):
            depth -= 1
        if w == "," and depth == 0:
            parts.append(current)
            current = []
        else:
            current.append(w)
    parts.append(current)
    names = []
    for part in parts:
        for stop in ("=", "{", "[", ":"):
            if stop in part:
                part = part[:part.index(stop)]
        ids = [w for w in part if ident(w)]
        if ids:
            names.append(ids[-1])
    return names


def read_api(headers, root):
    api = Api()
    files = []
    for folder, _, names in os.walk(headers):
        files += [os.path.join(folder, n) for n in names if n.endswith(".h")]
    for path in sorted(files):
        with open(path, encoding="utf-8") as f:
            HeaderParser(api, shown(path, root), f.read()).parse()
    return api


def shown(path, root):
    rel = os.path.relpath(path, root)
    return path if rel.startswith("..") else rel


class Entry:
    """A heading, table row or list item of the document: its first line and its backtick spans' paths."""

    def __init__(self, line, paths, heading):
        self.line, self.paths, self.heading = line, paths, heading


def relative(prefix, name):
    """A document path, relative to tsr: `tsr::isa::iota` -> `isa::iota`."""
    path = prefix + name
    return path[len("tsr::"):] if path.startswith("tsr::") else path


def paths_in(text):
    return [(m.group(1), m.group(2)) for span in CODE_SPAN.findall(text) for m in PATH.finditer(span)]


def read_doc(lines):
    """The entries of the document, every backtick path outside code blocks with its line, and the ```cpp blocks'
    paths with their lines."""
    entries, spans, fenced = [], [], []
    fence, heading, k = None, None, 0
    while k < len(lines):
        text = lines[k]
        stripped = text.strip()
        if stripped.startswith("```"):
            fence = None if fence is not None else stripped[3:].strip().lower()
            k += 1
            continue
        if fence is not None:
            if fence in ("cpp", "c++"):
                for m in PATH.finditer(re.sub(r"//.*", "", text)):
                    fenced.append((k + 1, m.group(1), m.group(2)))
            k += 1
            continue
        spans += [(k + 1, p, n) for p, n in paths_in(text)]
        item = re.match(r"\s*([-*+]|\d+\.)\s", text)
        if stripped.startswith("#"):
            heading = Entry(k + 1, {relative(p, n) for p, n in paths_in(text)}, None)
            entries.append(heading)
        elif stripped.startswith("|") and not re.fullmatch(r"\|[\s:|-]*", stripped):
            entries.append(Entry(k + 1, {relative(p, n) for p, n in paths_in(text)}, heading))
        elif item:
            body, j = text, k + 1
            while j < len(lines) and lines[j].strip() and lines[j][:1] in " \t" \
                    and not re.match(r"\s*([-*+]|\d+\.)\s", lines[j]) and not lines[j].strip().startswith("```"):
                spans += [(j + 1, p, n) for p, n in paths_in(lines[j])]
                body += " " + lines[j]
                j += 1
            entries.append(Entry(k + 1, {relative(p, n) for p, n in paths_in(body)}, heading))
            k = j
            continue
        k += 1
    return entries, spans, fenced


def documented(name, entries, api):
    """Whether some entry documents `name` (the rule in this file's docstring)."""
    path = name.path
    owner, _, member = path.rpartition("::")
    is_member = owner in api.classes
    for e in entries:
        if path in e.paths:
            return True
        if is_member and any("::" in p and path.endswith("::" + p) for p in e.paths):
            return True  # Class::member with the class's namespace left out: `OpKind::Load`
        if is_member and member in e.paths:
            if owner in e.paths or (e.heading is not None and owner in e.heading.paths):
                return True
    return False


def resolve(path, api):
    """Whether a document's path names a declaration: as written (relative to tsr), or with the namespace of the
    class it starts with left out (`OpKind::Load` for graph::OpKind::Load)."""
    if api.resolves(path):
        return True
    first = path.split("::")[0]
    return any(c.rpartition("::")[2] == first and api.resolves(c.rpartition("::")[0] + "::" + path)
               for c in api.classes if "::" in c)


def check(api, doc_lines, doc_shown):
    problems = []
    entries, spans, fenced = read_doc(doc_lines)
    for name in sorted(api.names.values(), key=lambda n: (n.file, n.line, n.path)):
        if not documented(name, entries, api):
            problems.append(f"{name.file}:{name.line}: tsr::{name.path} ({name.kind}) is not documented in "
                            f"{doc_shown}")
    top = {p.split("::")[0] for p in api.namespaces if p} | {p.rpartition("::")[2] for p in api.classes}
    seen = set()
    for line, prefix, name in spans:
        first = (prefix or name).split("::")[0]
        if not (prefix.startswith("tsr::") or (prefix and first in top)):
            continue
        path = relative(prefix, name)
        if not resolve(path, api) and (line, path) not in seen:
            seen.add((line, path))
            problems.append(f"{doc_shown}:{line}: `tsr::{path}` is not a public name of the DSL's headers")
    for line, prefix, name in fenced:
        if not prefix or prefix.split("::")[0] not in FENCED_PREFIXES:
            continue
        path = relative(prefix, name)
        if not resolve(path, api) and (line, path) not in seen:
            seen.add((line, path))
            problems.append(f"{doc_shown}:{line}: `{prefix}{name}` in a cpp example is not a public name of the "
                            f"DSL's headers")
    return problems


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.dirname(here))
    parser.add_argument("--doc")
    parser.add_argument("--headers")
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    doc = args.doc or os.path.join(root, "docs", "dsl.md")
    headers = args.headers or os.path.join(root, "nki-like-dsl", "include", "tessera", "dsl")
    if not os.path.isdir(headers):
        print(f"check-dsl-docs: {headers}: no such folder", file=sys.stderr)
        return 2
    api = read_api(headers, root)
    if args.list:
        for name in sorted(api.names.values(), key=lambda n: (n.file, n.line, n.path)):
            print(f"{name.file}:{name.line}: tsr::{name.path} ({name.kind})")
        print(f"{len(api.names)} public names")
        return 0
    if not os.path.isfile(doc):
        print(f"check-dsl-docs: {doc}: no such file", file=sys.stderr)
        return 2
    with open(doc, encoding="utf-8") as f:
        lines = f.read().splitlines()
    problems = check(api, lines, shown(doc, root))
    for p in problems:
        print(p)
    if problems:
        print(f"check-dsl-docs: {len(problems)} problem(s) in {shown(doc, root)} against {len(api.names)} public "
              f"names")
        return 1
    print(f"check-dsl-docs: {shown(doc, root)} documents all {len(api.names)} public names of the DSL, and no other")
    return 0


if __name__ == "__main__":
    sys.exit(main())
