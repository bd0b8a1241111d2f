#!/usr/bin/env python3
"""Checks an NKI module Tessera emitted, without NKI (which cannot be installed off a Neuron host).

  check_nki.py MODULE.py [--manifest hw-backends/nki/nki-0.6-api.json]

1. The module compiles (Python's own compiler: syntax, names bound once per scope rules).
2. Exactly one function is decorated with @nki.jit, and it has no keyword-only parameters (refused since NKI
   0.3, by its release notes).
3. Every nki.* name the module uses exists in the NKI 0.6 API manifest (written from the Neuron SDK 2.32 API
   reference): each call's function, its keyword arguments, the number of positional arguments and the required
   parameters; each enum member (nisa.engine.vector) and constant (nl.float32); and each method called on a tensor
   (t[0:128, 0:1].broadcast(1, 512)) is an NkiTensor method given arguments it takes.
Exit status 0 when all holds, 1 with one line per problem (file:line: what) otherwise, 2 for bad usage.
Standard library only.
"""
import argparse
import ast
import json
import os
import sys

DEFAULT_MANIFEST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "nki", "nki-0.6-api.json")


class Checker(ast.NodeVisitor):
    def __init__(self, manifest, path):
        self.modules = manifest["modules"]
        tensor = self.modules["nki.language"].get("NkiTensor", {})
        self.tensor_methods = tensor.get("methods", {})
        self.path = path
        self.aliases = {}  # local name -> NKI module ("nisa" -> "nki.isa")
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

    # --- calls ---------------------------------------------------------------------------------------------
    def visit_Call(self, node):
        resolved = self.resolve(node.func)
        if resolved:
            module, chain = resolved
            entry = self.entry(node.func, module, chain)
            if entry is not None:
                self.check_arguments(node, f"{module}.{'.'.join(chain)}", entry.get("params", []),
                                     entry.get("required", []), entry.get("varkw", False), entry.get("kind"))
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

    # --- the kernel ----------------------------------------------------------------------------------------
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
        self.generic_visit(node)


def check(path, manifest):
    with open(path) as f:
        source = f.read()
    try:
        tree = ast.parse(source, path)
        compile(tree, path, "exec")
    except SyntaxError as e:
        return [f"{path}:{e.lineno}: does not compile: {e.msg}"]
    checker = Checker(manifest, path)
    checker.visit(tree)
    if len(checker.jit_functions) != 1:
        checker.problems.append(f"{path}:1: expected one @nki.jit kernel, found {len(checker.jit_functions)}")
    return checker.problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("modules", nargs="+", help="emitted NKI modules (.py)")
    parser.add_argument("--manifest", default=DEFAULT_MANIFEST, help="the NKI API manifest (JSON)")
    args = parser.parse_args()
    with open(args.manifest) as f:
        manifest = json.load(f)
    problems = []
    for path in args.modules:
        problems += check(path, manifest)
    for p in problems:
        print(p)
    if not problems:
        print(f"check_nki: {len(args.modules)} module(s) compile and use only NKI {manifest['nki_version']} names "
              f"as its API reference defines them")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
