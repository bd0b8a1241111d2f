#!/usr/bin/env python3
"""Checks an NKI module Tessera emitted, without NKI (which cannot be installed off a Neuron host).

  check_nki.py MODULE.py... [--target trn1|trn2|trn3] [--manifest hw-backends/nki/nki-0.6-api.json]

1. The module compiles (Python's own compiler: syntax, names bound once per scope rules).
2. Exactly one function is decorated with @nki.jit, and it has no keyword-only parameters (refused since NKI
   0.3, by its release notes).
3. Every nki.* name the module uses exists in the NKI 0.6 API manifest (written from the Neuron SDK 2.32 API
   reference): each call's function, its keyword arguments, the number of positional arguments and the required
   parameters; each enum member (nisa.engine.vector) and constant (nl.float32); and each method called on a tensor
   (t[0:128, 0:1].broadcast(1, 512)) is an NkiTensor method given arguments it takes.
4. Each call keeps the rules the manifest's "rules" give its function, each with the documentation page it comes
   from: operators from NKI's ALU and activation tables, the engines an instruction runs on, what a NeuronCore
   generation lacks, which memories operands may be in, and tile shapes and dtypes where the module shows them
   (tiles allocated with nl.ndarray and literal shape tuples, sliced with constant bounds, reshaped or broadcast).
   The target is --target, else the one the module's docstring names ("simulated on trn2"); without one, the
   generation rules are not checked (and a line says so).
Exit status 0 when all holds, 1 with one line per problem (file:line: what [rule; page]) otherwise, 2 for bad
usage. Standard library only.
"""
import argparse
import ast
import json
import math
import os
import re
import sys

DEFAULT_MANIFEST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "nki", "nki-0.6-api.json")
HBM = {"hbm", "shared_hbm", "private_hbm"}


class Tile:
    """What the module shows of a tensor: its shape (a tuple, or None), dtype and memory (names, or None)."""

    def __init__(self, shape=None, dtype=None, buffer=None):
        self.shape, self.dtype, self.buffer = shape, dtype, buffer

    def view(self, shape):
        return Tile(shape, self.dtype, self.buffer)


class Checker(ast.NodeVisitor):
    def __init__(self, manifest, path, target):
        self.modules = manifest["modules"]
        self.tables = manifest.get("tables", {})
        self.targets = manifest.get("targets", {})
        tensor = self.modules["nki.language"].get("NkiTensor", {})
        self.tensor_methods = tensor.get("methods", {})
        self.path = path
        self.target = target
        self.aliases = {}  # local name -> NKI module ("nisa" -> "nki.isa")
        self.tiles = {}  # local name -> Tile
        self.loops = []  # the enclosing `for NAME in range(...)`: (NAME, first value, last value)
        self.problems = []
        self.jit_functions = []

    def problem(self, node, text):
        self.problems.append(f"{self.path}:{getattr(node, 'lineno', 0)}: {text}")

    # --- imports -------------------------------------------------------------------------------------------
    def visit_Import(self, node):
        for alias in node.names:
            if alias.name == "nki" or alias.name.startswith("nki."):
                if alias.name not in self.modules and alias.name != "nki":
                    self.problem(node, f"import of {alias.name}, which NKI 0.6 does not have")
                self.aliases[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else "nki"

    def visit_ImportFrom(self, node):
        if node.module and (node.module == "nki" or node.module.startswith("nki.")):
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if full in self.modules:
                    self.aliases[alias.asname or alias.name] = full
                elif alias.name not in self.modules.get(node.module, {}):
                    self.problem(node, f"from {node.module} import {alias.name}: no such name in NKI 0.6")

    # --- names ---------------------------------------------------------------------------------------------
    def resolve(self, node):
        """(module, [attribute names]) for a chain rooted at an NKI module alias, else None."""
        chain = []
        while isinstance(node, ast.Attribute):
            chain.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.aliases:
            return None
        chain.reverse()
        module = self.aliases[node.id]
        while chain and f"{module}.{chain[0]}" in self.modules:  # nki.isa written as nki.isa
            module = f"{module}.{chain.pop(0)}"
        return module, chain

    def entry(self, node, module, chain):
        if not chain:
            return None
        members = self.modules.get(module, {})
        if chain[0] not in members:
            self.problem(node, f"{module}.{chain[0]} is not part of NKI 0.6")
            return None
        entry = members[chain[0]]
        if len(chain) > 1:
            allowed = entry.get("members", [])
            if chain[1] not in allowed:
                self.problem(node, f"{module}.{chain[0]}.{chain[1]}: {chain[0]} has no member {chain[1]} in NKI 0.6")
            return None
        return entry

    def visit_Attribute(self, node):
        resolved = self.resolve(node)
        if resolved:
            self.entry(node, *resolved)
            return  # the chain is checked whole; do not visit its inner links
        self.generic_visit(node)

    # --- tiles: what the module shows of shapes, dtypes and memories ----------------------------------------
    def visit_Assign(self, node):
        self.visit(node.value)
        tile = self.tile(node.value)
        if tile and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            self.tiles[node.targets[0].id] = tile

    def tile(self, node):
        """The Tile an expression denotes (an nl.ndarray call, a known name, a slice, reshape or broadcast of one)."""
        if isinstance(node, ast.Name):
            return self.tiles.get(node.id)
        if isinstance(node, ast.Subscript):
            base = self.tile(node.value)
            return base and base.view(sliced_shape(base.shape, node.slice, self.loop_bindings()))
        if not isinstance(node, ast.Call):
            return None
        resolved = self.resolve(node.func)
        if resolved == ("nki.language", ["ndarray"]):
            args = bind(node, self.modules["nki.language"]["ndarray"]["params"])
            buffer = self.symbol(args.get("buffer")) if "buffer" in args else "sbuf"
            return Tile(int_tuple(args.get("shape")), self.symbol(args.get("dtype")), memory(buffer))
        if resolved or not isinstance(node.func, ast.Attribute):
            return None
        base = self.tile(node.func.value)
        if not base:
            return None
        method = node.func.attr
        if method == "reshape" and node.args:
            return base.view(int_tuple(node.args[0]))
        if method == "broadcast" and len(node.args) == 2 and base.shape:
            dim, size = (constant_int(a) for a in node.args)
            if dim is None or size is None or not -len(base.shape) <= dim < len(base.shape):
                return base.view(None)
            shape = list(base.shape)
            shape[dim] = size
            return base.view(tuple(shape))
        return base.view(None)

    def symbol(self, node):
        """What a value names for the rules: an NKI member's last name (multiply, vector, sbuf, double_row),
        'None'/'True'/'False', '#number' for a numeric constant, '#tile' for a tensor; None when unknown."""
        if node is None:
            return None
        if isinstance(node, ast.Constant):
            if node.value is None or isinstance(node.value, bool):
                return str(node.value)
            return "#number" if isinstance(node.value, (int, float)) else None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return self.symbol(node.operand)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float":
            return "#number"
        resolved = self.resolve(node)
        if resolved and resolved[1]:
            name = resolved[1][-1]
            if resolved == ("nki.isa", [name]) and name.endswith("_engine"):
                return name[:-len("_engine")]  # nisa.vector_engine is nisa.engine.vector
            return name
        return "#tile" if self.tile(node) else None

    # --- calls ---------------------------------------------------------------------------------------------
    def visit_Call(self, node):
        resolved = self.resolve(node.func)
        if resolved:
            module, chain = resolved
            entry = self.entry(node.func, module, chain)
            if entry is not None:
                name = f"{module}.{'.'.join(chain)}"
                self.check_arguments(node, name, entry.get("params", []), entry.get("required", []),
                                     entry.get("varkw", False), entry.get("kind"))
                for rule in entry.get("rules", []):
                    self.apply(rule, node, name, entry)
        elif isinstance(node.func, ast.Attribute) and not self.is_plain_python(node.func):
            name = node.func.attr
            if name not in self.tensor_methods:
                self.problem(node, f".{name}(...) is not a method of an NKI 0.6 tensor (NkiTensor)")
            else:
                params = [p.rstrip("=") for p in self.tensor_methods[name] if p != "self"]
                required = [p for p in self.tensor_methods[name] if p != "self" and not p.endswith("=")]
                self.check_arguments(node, f"NkiTensor.{name}", params, required, False, "function")
        for arg in node.args:
            self.visit(arg)
        for keyword in node.keywords:
            self.visit(keyword.value)
        if not resolved:
            self.visit(node.func)

    @staticmethod
    def is_plain_python(func):
        """Methods of Python values the generated code may call (none today), not of NKI tensors."""
        return isinstance(func.value, ast.Constant)

    def check_arguments(self, node, name, params, required, varkw, kind):
        if kind not in ("function", "class"):
            self.problem(node, f"{name} is a {kind}, not something to call")
            return
        positional = [p for p in params if p != "*"]
        if "*" in params:
            positional = params[:params.index("*")]
        if len(node.args) > len(positional):
            self.problem(node, f"{name} takes at most {len(positional)} positional arguments, given {len(node.args)}")
        given = set(positional[:len(node.args)])
        for keyword in node.keywords:
            if keyword.arg is None:
                continue
            if keyword.arg not in params and not varkw:
                self.problem(node, f"{name} has no parameter '{keyword.arg}' in NKI 0.6 (it takes {', '.join(params)})")
            if keyword.arg in given:
                self.problem(node, f"{name}: '{keyword.arg}' given twice")
            given.add(keyword.arg)
        for p in required:
            if p not in given:
                self.problem(node, f"{name} needs '{p}'")

    # --- rules ---------------------------------------------------------------------------------------------
    def apply(self, rule, node, name, entry):
        """Checks one manifest rule on one call; a rule whose facts the module does not show is not applied.
        A rule with "targets", or with a field given per target ({"trn1": 512, "trn2": 512}), is a generation
        rule: it applies to those targets only, and not at all without a target."""
        per_target = {k for k, v in rule.items() if isinstance(v, dict) and v and set(v) <= set(self.targets)}
        targets = rule.get("targets")
        if (targets or per_target) and self.target is None:
            return
        if (targets and self.target not in targets) or any(self.target not in rule[k] for k in per_target):
            return
        rule = dict(rule, **{k: rule[k][self.target] for k in per_target})
        args = bind(node, [p for p in entry.get("params", []) if p != "*"])
        values = Values(self, args, entry.get("defaults", {}))
        if "when" in rule and holds(rule["when"], values) is not True:
            return
        if "unless" in rule and holds(rule["unless"], values) is not False:
            return
        broken = getattr(self, "rule_" + rule["check"])(rule, values)
        if broken:
            where = ""
            if targets or per_target:
                where = f" on {self.target} ({self.targets[self.target]['neuron_core']})"
            detail = "" if broken is True else f" ({broken})"
            self.problem(node, f"{name}{where}: {rule['says']}{detail} [rule {rule['id']}; {rule['doc']}]")

    def rule_forbid(self, rule, values):
        """The call is what the rule's "when" (and not its "unless") describes: refused outright."""
        return True

    def rule_operator(self, rule, values):
        """Each of the rule's params names an operator in one of its tables (or None where allowed)."""
        allowed = self.table_names(rule["allowed"])
        for param in rule["params"]:
            if param not in values.args:
                continue
            value = values.symbol(param)
            if value is None or (value == "None" and rule.get("optional")):
                continue
            if value not in allowed:
                shown = ast.unparse(values.args[param])
                return f"{param}={shown}; allowed: {', '.join(sorted(allowed))}"
        return False

    def rule_engine(self, rule, values):
        """engine= names one of the engines the instruction runs on; for one without an engine parameter,
        any engine= is refused (the instruction runs on its one engine)."""
        if "engine" not in values.args:
            return False
        if "fixed" in rule:
            return f"engine={ast.unparse(values.args['engine'])} given"
        value = values.symbol("engine")
        if value is not None and value not in rule["allowed"]:
            return f"engine={value} is not one of {', '.join(rule['allowed'])}"
        return False

    @staticmethod
    def first_not_allowed(rule, lookup, problem):
        """problem(param, value) for the first param whose known value (lookup(param)) is not in rule["allowed"]."""
        for param in rule["params"]:
            value = lookup(param)
            if value is not None and value not in rule["allowed"]:
                return problem(param, value)
        return False

    def rule_memory(self, rule, values):
        """Each param's tile is in one of the allowed memories."""
        return self.first_not_allowed(rule, values.buffer, lambda param, buffer: f"{param} is in {buffer}")

    def rule_shape(self, rule, values):
        """Each param's tile has "ndim" dimensions, and the product of each selected run of dimensions ("dims":
        "0", "1:", ...) is at most "max" or equal to "eq"."""
        for param in rule["params"]:
            shape = values.shape(param)
            if shape is None:
                continue
            if "ndim" in rule and len(shape) != rule["ndim"]:
                return f"{param} {list(shape)}: {len(shape)}-D, not {rule['ndim']}-D"
            for dims in rule.get("dims", []):
                size = dims_product(shape, dims)
                if size is None:
                    continue
                if "max" in rule and size > rule["max"]:
                    return f"{param} {list(shape)}: {size} > {rule['max']}"
                if "eq" in rule and size != rule["eq"]:
                    return f"{param} {list(shape)}: {size}, not {rule['eq']}"
        return False

    def rule_same(self, rule, values):
        """The params' tiles agree: in the product of the selected dimensions, or in dtype ("dims": "dtype")."""
        seen = {}
        for param in rule["params"]:
            if rule["dims"] == "dtype":
                value = values.dtype(param)
            else:
                shape = values.shape(param)
                value = shape and dims_product(shape, rule["dims"])
            if value is not None:
                seen[param] = value
        if len(set(seen.values())) > 1:
            return ", ".join(f"{p}: {v}" for p, v in seen.items())
        return False

    def rule_dtype(self, rule, values):
        """Each param's tile has one of the allowed dtypes."""
        return self.first_not_allowed(rule, values.dtype, lambda param, dtype:
                                      f"{param} is {dtype}; allowed: {', '.join(rule['allowed'])}")

    def table_names(self, names):
        allowed = set()
        for name in names:
            if name.startswith("@"):
                allowed.update(self.tables[name[1:]]["ops"])
            else:
                allowed.add(name)
        return allowed

    # --- the kernel ----------------------------------------------------------------------------------------
    def loop_bindings(self):
        """The enclosing loops' variables bound to their first values, then to their last: a slice whose extent is
        the same under both (offsets that move with the loop, as the emitter writes them) has a known shape."""
        return [{name: first for name, first, _ in self.loops}, {name: last for name, _, last in self.loops}]

    def visit_For(self, node):
        bounds = None
        if (isinstance(node.target, ast.Name) and isinstance(node.iter, ast.Call) and
                isinstance(node.iter.func, ast.Name) and node.iter.func.id == "range" and not node.iter.keywords):
            values = [constant_int(a) for a in node.iter.args]
            if values and None not in values and len(values) <= 2:
                start, stop = (0, values[0]) if len(values) == 1 else values
                if stop > start:
                    bounds = (node.target.id, start, stop - 1)
        if bounds:
            self.loops.append(bounds)
        self.generic_visit(node)
        if bounds:
            self.loops.pop()

    def visit_FunctionDef(self, node):
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            resolved = self.resolve(target)
            if resolved and resolved == ("nki", ["jit"]):
                self.jit_functions.append(node)
                a = node.args
                if a.kwonlyargs:
                    self.problem(node, f"@nki.jit kernel '{node.name}' has keyword-only parameters, which NKI 0.3+ "
                                       "refuses (release notes, 0.3.0)")
                for arg in a.posonlyargs + a.args:
                    self.tiles[arg.arg] = Tile(buffer="hbm")  # a kernel's arguments are HBM tensors
        self.generic_visit(node)


class Values:
    """One call's arguments as the rules see them (given, else the manifest's default)."""

    def __init__(self, checker, args, defaults):
        self.checker, self.args, self.defaults = checker, args, defaults

    def symbol(self, param):
        if param in self.args:
            return self.checker.symbol(self.args[param])
        default = self.defaults.get(param)
        if default is None:
            return None
        if re.fullmatch(r"-?[0-9.]+(e-?[0-9]+)?", default):
            return "#number"
        return default.split(".")[-1].split("(")[0] or None

    def tile(self, param):
        return self.checker.tile(self.args[param]) if param in self.args else None

    def buffer(self, param):
        tile = self.tile(param)
        return tile and tile.buffer

    def dtype(self, param):
        tile = self.tile(param)
        return tile and tile.dtype

    def shape(self, param):
        tile = self.tile(param)
        if tile:
            return tile.shape
        return int_tuple(self.args.get(param))


def holds(conditions, values):
    """True, False or None (not known) for a list of alternatives, each a dict of facts that must all hold."""
    results = [all_of(alternative, values) for alternative in conditions]
    if True in results:
        return True
    return None if None in results else False


def all_of(facts, values):
    """True, False or None (not known) for one dict of facts."""
    result = True
    for key, wanted in facts.items():
        kind, _, param = key.rpartition(":")
        got = {"": values.symbol, "buffer": values.buffer, "dtype": values.dtype}[kind](param)
        negate = isinstance(wanted, dict)
        names = values.checker.table_names(wanted["not"] if negate else wanted)
        if got is None:
            result = None
        elif (got in names) == negate:
            return False
    return result


def bind(call, params):
    """{parameter name: argument node} for a call, positional arguments in the order of params."""
    args = dict(zip(params, call.args))
    args.update({k.arg: k.value for k in call.keywords if k.arg})
    return args


def memory(name):
    return "hbm" if name in HBM else name


def constant_int(node, env=None):
    """The integer `node` is: a literal, or + - * of them and of the loop variables `env` binds; else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = constant_int(node.operand, env)
        return None if value is None else -value
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name) and env and node.id in env:
        return env[node.id]
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
        left, right = constant_int(node.left, env), constant_int(node.right, env)
        if left is None or right is None:
            return None
        return left + right if isinstance(node.op, ast.Add) else left - right if isinstance(node.op, ast.Sub) \
            else left * right
    return None


def int_tuple(node):
    if not isinstance(node, (ast.Tuple, ast.List)):
        return None
    values = [constant_int(e) for e in node.elts]
    return None if None in values else tuple(values)


def sliced_shape(shape, index, bindings=({},)):
    """The shape of t[index] for slices and integers (an integer drops its dimension) whose bounds are constants
    or + - * of the loop variables, when it is the same under every binding of those variables, else None."""
    if shape is None:
        return None
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    if len(parts) > len(shape):
        return None
    shapes = set()
    for env in bindings:
        result = []
        for size, part in zip(shape, parts):
            if isinstance(part, ast.Slice):
                bounds = [constant_int(b, env) if b is not None else d for b, d in
                          ((part.lower, 0), (part.upper, size), (part.step, 1))]
                if None in bounds or bounds[2] <= 0:
                    return None
                result.append(len(range(*bounds)))
            elif constant_int(part, env) is None:
                return None
        shapes.add(tuple(result) + tuple(shape[len(parts):]))
    return shapes.pop() if len(shapes) == 1 else None


def dims_product(shape, dims):
    """The product of shape's dimensions picked by dims: "0", "-1", "1:" (Python index or slice), else None."""
    if ":" in dims:
        start, _, stop = dims.partition(":")
        picked = shape[int(start) if start else None:int(stop) if stop else None]
        return math.prod(picked)
    index = int(dims)
    return shape[index] if -len(shape) <= index < len(shape) else None


def module_target(source, targets):
    """The target the module's docstring names ("... simulated on trn2 ..."), if it is one the manifest knows."""
    match = re.search(r"simulated on ([a-z0-9-]+)", source)
    return match.group(1) if match and match.group(1) in targets else None


def check(path, manifest, target=None):
    """The problems in one module, and the target its generation rules were checked for (None: not checked)."""
    with open(path) as f:
        source = f.read()
    try:
        tree = ast.parse(source, path)
        compile(tree, path, "exec")
    except SyntaxError as e:
        return [f"{path}:{e.lineno}: does not compile: {e.msg}"], target
    target = target or module_target(source, manifest.get("targets", {}))
    checker = Checker(manifest, path, target)
    checker.visit(tree)
    if len(checker.jit_functions) != 1:
        checker.problems.append(f"{path}:1: expected one @nki.jit kernel, found {len(checker.jit_functions)}")
    return checker.problems, target


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("modules", nargs="+", help="emitted NKI modules (.py)")
    parser.add_argument("--manifest", default=DEFAULT_MANIFEST, help="the NKI API manifest (JSON)")
    parser.add_argument("--target", help="the Trainium the module is for (default: the one its docstring names)")
    args = parser.parse_args()
    with open(args.manifest) as f:
        manifest = json.load(f)
    if args.target and args.target not in manifest.get("targets", {}):
        parser.error(f"--target {args.target}: the manifest knows {', '.join(manifest.get('targets', {}))}")
    problems = []
    for path in args.modules:
        found, target = check(path, manifest, args.target)
        problems += found
        if target is None:
            print(f"{path}: no target (--target, or 'simulated on trnN' in the docstring): generation rules not "
                  "checked")
    for p in problems:
        print(p)
    if not problems:
        print(f"check_nki: {len(args.modules)} module(s) compile, use only NKI {manifest['nki_version']} names "
              f"as its API reference defines them, and keep the manifest's rules")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
