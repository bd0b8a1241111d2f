#!/usr/bin/env python3
"""Checks the async copies of an emitted Pallas kernel: every copy that starts is waited on, and no statement
touches a copy's bytes while it is in flight.

  check_dma_waits.py MODULE.py...

Pallas' interpret mode does not find a missing `.wait()` (docs/backends.md, "What interpret mode detects"): with
its default dma_execution_mode="on_wait" the copy is simply never done, and with "eager" it is done at .start().
This check reads the kernel function itself (the module's `def _..._kernel(...)`), statement by statement:

- `dN = pltpu.make_async_copy(SRC, DST, SEM)`, `dN.start()`, `dN.wait()`: a copy is in flight from its start to its
  wait; it may not start twice, be waited on when not in flight, or be left in flight at the end of the kernel;
- while a copy is in flight no other statement may read its destination or write its source or destination (a
  read of the destination would see stale data on a TPU; a write races with the copy), and no other copy may
  start on the same semaphore;
- windows are compared by their constant slices (`t9.at[0, 0:128, 35:67]`, `t1[0, 0:128, 0:128]`); a window
  whose bounds are not constants is taken to overlap every window of its buffer.

The manual style's kernels are straight-line code; statements under `pl.when` or loops are checked in order as
written. Errors name the module's file and line and the kernel source line above it (`# matmul.cpp:63`).
Exit status: 0 when every module passes, 1 when one does not, 2 for bad usage.
"""
import ast
import re
import sys

KERNEL_LINE = re.compile(r"#.*?(?:\(|\s)([\w.+-]+\.(?:cpp|cc|cxx|h|hpp)):(\d+)\)?")


class Window:
    """A ref window: a buffer name and, per dimension, a (start, stop) range, or None where not constant."""

    def __init__(self, base, ranges):
        self.base, self.ranges = base, ranges

    def overlaps(self, other):
        if self.base != other.base:
            return False
        if self.ranges is None or other.ranges is None or len(self.ranges) != len(other.ranges):
            return True
        for a, b in zip(self.ranges, other.ranges):
            if a is None or b is None:
                continue
            if a[0] >= b[1] or b[0] >= a[1]:
                return False
        return True

    def __str__(self):
        if self.ranges is None:
            return f"{self.base}[...]"
        dims = [("?" if r is None else (f"{r[0]}" if r[1] == r[0] + 1 else f"{r[0]}:{r[1]}")) for r in self.ranges]
        return f"{self.base}[{', '.join(dims)}]"


def constant(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = constant(node.operand)
        return -inner if inner is not None else None
    return None


def ranges_of(index):
    """The ranges of a subscript's index: [(start, stop) | None, ...], or None for `...` / an unknown form."""
    items = index.elts if isinstance(index, ast.Tuple) else [index]
    ranges = []
    for item in items:
        if isinstance(item, ast.Constant) and item.value is Ellipsis:
            return None
        if isinstance(item, ast.Slice):
            if item.step is not None:
                return None
            start = constant(item.lower) if item.lower is not None else 0
            stop = constant(item.upper) if item.upper is not None else None
            ranges.append((start, stop) if start is not None and stop is not None else None)
        else:
            value = constant(item)
            ranges.append((value, value + 1) if value is not None else None)
    return ranges


def window_of(node):
    """`t.at[...]` or `t[...]` as a Window, or None when `node` is neither."""
    if isinstance(node, ast.Subscript):
        value = node.value
        if isinstance(value, ast.Attribute) and value.attr == "at" and isinstance(value.value, ast.Name):
            return Window(value.value.id, ranges_of(node.slice))
        if isinstance(value, ast.Name):
            return Window(value.id, ranges_of(node.slice))
    return None


def accesses(statement):
    """(reads, writes) of ref windows by a statement that is not a copy's own start/wait/make."""
    reads, writes = [], []
    targets = []
    if isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    for target in targets:
        w = window_of(target)
        if w:
            writes.append(w)
            if isinstance(statement, ast.AugAssign):
                reads.append(w)
    target_ids = {id(t) for t in targets}
    for node in ast.walk(statement):
        if id(node) in target_ids:
            continue
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            w = window_of(node)
            if w:
                reads.append(w)
    return reads, writes


class Copy:
    def __init__(self, name, src, dst, sem, line):
        self.name, self.src, self.dst, self.sem, self.line = name, src, dst, sem, line
        self.started = None


def make_async_copy(call):
    """(src, dst, sem) Windows of a `pltpu.make_async_copy(src, dst, sem)` call, or None."""
    if not isinstance(call, ast.Call):
        return None
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "make_async_copy"):
        return None
    if len(call.args) < 3:
        return None
    return tuple(window_of(a) or Window(ast.unparse(a), None) for a in call.args[:3])


def method_call(statement, method):
    """The name `x` of a statement `x.method()`, or None."""
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        func = statement.value.func
        if isinstance(func, ast.Attribute) and func.attr == method and isinstance(func.value, ast.Name):
            return func.value.id
    return None


def statements(body):
    """The statements of a body in order, those inside `with`, `if` and loops too (checked as written)."""
    for statement in body:
        if isinstance(statement, (ast.With, ast.If, ast.For, ast.While)):
            yield from statements(statement.body)
            yield from statements(getattr(statement, "orelse", []))
        elif isinstance(statement, ast.FunctionDef):  # a pl.when body
            yield from statements(statement.body)
        else:
            yield statement


def check_kernel(function, path, source_lines):
    errors = []

    def where(line):
        for number in range(line, 0, -1):
            found = KERNEL_LINE.search(source_lines[number - 1])
            if found:
                return f" (kernel {found.group(1)}:{found.group(2)})"
        return ""

    reported = set()  # copies already reported: one error each, the first, is enough to find the mistake

    def error(line, message, copy=None):
        if copy is not None:
            if copy in reported:
                return
            reported.add(copy)
        errors.append(f"{path}:{line}: error: {message}{where(line)}")

    copies, in_flight = {}, {}
    for statement in statements(function.body):
        line = statement.lineno
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and \
                isinstance(statement.targets[0], ast.Name):
            made = make_async_copy(statement.value)
            if made:
                name = statement.targets[0].id
                if name in in_flight:
                    error(line, f"{name} is made again while its copy (started at line {in_flight[name].started}) "
                                f"is in flight: it is never waited on")
                    del in_flight[name]
                copies[name] = Copy(name, *made, line)
                continue
        started = method_call(statement, "start")
        if started in copies:
            copy = copies[started]
            if started in in_flight:
                error(line, f"{started}.start() again before {started}.wait()")
            for other in in_flight.values():
                if other.sem.overlaps(copy.sem):
                    error(line, f"{started} starts on semaphore {copy.sem} while {other.name} (started at line "
                                f"{other.started}) still uses it", other.name)
                if other.dst.overlaps(copy.src) or other.dst.overlaps(copy.dst) or other.src.overlaps(copy.dst):
                    error(line, f"{started} ({copy.src} -> {copy.dst}) starts while {other.name} ({other.src} -> "
                                f"{other.dst}, started at line {other.started}) is in flight on the same bytes: "
                                f"no {other.name}.wait() before", other.name)
            copy.started = line
            in_flight[started] = copy
            continue
        waited = method_call(statement, "wait")
        if waited in copies:
            if waited not in in_flight:
                error(line, f"{waited}.wait() with no {waited}.start() in flight")
            in_flight.pop(waited, None)
            continue
        reads, writes = accesses(statement)
        for copy in in_flight.values():
            for r in reads:
                if r.overlaps(copy.dst):
                    error(line, f"reads {r} while {copy.name} (started at line {copy.started}) may still be writing "
                                f"{copy.dst}: no {copy.name}.wait() before", copy.name)
            for w in writes:
                if w.overlaps(copy.dst) or w.overlaps(copy.src):
                    error(line, f"writes {w} while {copy.name} ({copy.src} -> {copy.dst}, started at line "
                                f"{copy.started}) is in flight: no {copy.name}.wait() before", copy.name)
    end = function.body[-1].end_lineno if function.body else function.lineno
    for copy in in_flight.values():
        error(copy.started, f"{copy.name} ({copy.src} -> {copy.dst}) starts here and is never waited on before the "
                            f"kernel ends (line {end})", copy.name)
    return errors, len(copies)


def check_module(path):
    with open(path) as f:
        text = f.read()
    tree = ast.parse(text, path)
    lines = text.splitlines()
    errors, kernels, copies = [], 0, 0
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("_") and node.name.endswith("_kernel"):
            found, made = check_kernel(node, path, lines)
            errors += found
            kernels += 1
            copies += made
    if kernels == 0:
        errors.append(f"{path}:1: error: no kernel function (def _NAME_kernel) in the module")
    return errors, copies


def main():
    if len(sys.argv) < 2:
        print("usage: check_dma_waits.py MODULE.py...", file=sys.stderr)
        return 2
    failed = False
    for path in sys.argv[1:]:
        errors, copies = check_module(path)
        for e in errors:
            print(e)
        print(f"check_dma_waits: {path}: {copies} async copies, "
              f"{'every one waited on before its bytes are used' if not errors else f'{len(errors)} errors'}")
        failed = failed or bool(errors)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
