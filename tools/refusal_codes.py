"""Print (or write into each package README) the refusal and issue codes the code emits.

Usage: ``python tools/refusal_codes.py [--write] [--unresolved] [PACKAGE ...]``.
``--write`` replaces the block between the ``refusal-codes`` markers of every
package README (adding the section at the end when a README has none);
``--unresolved`` lists the emitting calls whose code is not a constant.

A README list written by hand drifts from the code the day a rule is added, so
the lists are derived from each owner's source by AST, never by importing the
package (importing would need every media library and run module code). An
*emitter* is a call whose code argument is a stable code:

- ``rvault_contracts.cli.Refusal``, ``refuse`` and ``failure_document``, and
  every subclass of ``Refusal`` found in the tree (kind ``refusal``: a
  ``cli-failure`` document, exit 2);
- coded exceptions, any other exception class whose ``__init__`` takes a
  ``code`` (``VideoExtractionError``, ``ReceiptError``...; kind ``error``: a
  command turns them into a refusal, a reader into a status);
- value classes with a ``code`` field (``rvault_contracts.issues.Issue``,
  ``Finding``...; kind ``issue``: an entry of a report);
- every function or method that forwards one of its parameters as the code of
  another emitter, or into a ``{"code": ...}`` dict (``Collector.add``,
  ``Collector.warn``, ``_refuse``, ``failure_envelope``...), found to a fixpoint,
  with the kind of what it forwards to (a ``{"code", "message"}`` or
  ``{"code", "path"}`` dict is an issue, a refusal under ``"error"`` or
  ``"refusal"``; a ``{"path", "reason"}`` skip record is an issue).

A code argument is resolved through literals, module constants (also imported
ones and ``module.CONSTANT``), a function's local assignments (tuple unpacking
too), loop variables over constant tables, lists it appends to, parameter
defaults, ``a if c else b``, ``a or b``, subscripts and ``.get`` of constant
tables (every value counts) and the return values of the package's own
functions (``for code in path_text_issues(text)``). A code built at run time
is listed as a *pattern*: an f-string or ``+`` concatenation
``f"database_{code}"`` is shown as ``database_<code>``, never silently
dropped. A code that is only forwarded (``Refusal(exc.code, ...)`` re-raising
a caught error) names no code of its own: the site that raised it first is
listed, in this package, in ``rvault_contracts`` or in the owner whose ``api``
raised it. Such calls, and branches the resolver cannot follow, are what
``--unresolved`` prints. The codes every command shares come from
``rvault_contracts`` (CLI, strict JSON, writer) and are listed once under each
table instead of in every row.

Calls are matched by name (and, for wrappers, by arity), not by type: a
function of another module that shares a wrapper's name and takes as many
arguments would be read as that wrapper. ``set.add(x)`` is not mistaken for
``Collector.add(code, path, message)`` because it takes one argument.
"""

from __future__ import annotations

import argparse
import ast
import functools
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from readme_block import markers, replace_block

ROOT = Path(__file__).resolve().parent.parent
PACKAGES_DIR = ROOT / "packages"
CONTRACTS_SRC = ROOT / "contracts/src"
BLOCK = "refusal-codes"
START, END = markers(BLOCK)
HEADING = "## Refusal and issue codes (generated)"

REFUSAL, ERROR, ISSUE = "refusal", "error", "issue"
KIND_ORDER = (REFUSAL, ERROR, ISSUE)
# The contract's own entry points; their subclasses and wrappers are found in the tree.
SEEDS = {"Refusal": REFUSAL, "refuse": REFUSAL, "failure_document": REFUSAL}
_EXCEPTION_BASES = ("Exception", "ValueError", "RuntimeError", "OSError", "LookupError")


@dataclass(frozen=True)
class Emitter:
    """Where a callable takes its code: positional index and keyword name."""

    name: str
    position: int
    keyword: str
    kind: str
    required: int
    is_method: bool
    hinted: bool = False  # it supplies a ``hint`` itself (a family default, a fixed one)


@dataclass
class Module:
    dotted: str
    path: Path
    tree: ast.Module
    constants: dict[str, ast.expr] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)  # local name -> module dotted
    imported: dict[str, tuple[str, str]] = field(default_factory=dict)  # name -> (module, name)


@dataclass(frozen=True)
class Site:
    code: str
    module: str
    kind: str
    pattern: bool
    emitter: str  # the callable (``Refusal``, ``add``...) or ``dict`` for a code dict
    hinted: bool = False  # the site (or its emitter) passes a ``hint``


@dataclass
class Extraction:
    sites: list[Site] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- loading


def _load(src: Path) -> dict[str, Module]:
    modules: dict[str, Module] = {}
    for path in sorted(src.rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        dotted = ".".join(parts)
        module = Module(dotted, path, ast.parse(path.read_text(encoding="utf-8"), str(path)))
        package = dotted if is_package else dotted.rpartition(".")[0]
        for node in module.tree.body:
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        module.constants[target.id] = node.value
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                if isinstance(node.target, ast.Name):
                    module.constants[node.target.id] = node.value
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(node, package)
                for alias in node.names:
                    local = alias.asname or alias.name
                    module.imported[local] = (base, alias.name)
                    module.aliases[local] = f"{base}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    module.aliases[alias.asname or alias.name] = alias.name
        modules[dotted] = module
    return modules


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


@functools.cache
def _shared() -> dict[str, Module]:
    return _load(CONTRACTS_SRC)


def _absolute(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    parts = package.split(".")
    base = parts[: len(parts) - node.level + 1]
    return ".".join([*base, node.module] if node.module else base)


def _functions(tree: ast.AST) -> Iterator[tuple[ast.FunctionDef | ast.AsyncFunctionDef, bool]]:
    """Every function, nested ones too, and whether it is a method."""
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, in_class = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                yield child, in_class
                stack.append((child, False))
            else:
                stack.append((child, isinstance(child, ast.ClassDef)))


def _params(function: ast.FunctionDef | ast.AsyncFunctionDef, is_method: bool) -> list[str]:
    names = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    return names[1:] if is_method and names else names


def _call_name(call: ast.Call) -> tuple[str, bool]:
    if isinstance(call.func, ast.Attribute):
        return call.func.attr, True
    if isinstance(call.func, ast.Name):
        return call.func.id, False
    return "", False


# --------------------------------------------------------------------------- emitters


def _classes(modules: Iterable[Module]) -> dict[str, ast.ClassDef]:
    found: dict[str, ast.ClassDef] = {}
    for module in modules:
        for node in ast.walk(module.tree):
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, node)
    return found


def _base_names(node: ast.ClassDef) -> list[str]:
    return [b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "") for b in node.bases]


def _init(node: ast.ClassDef) -> ast.FunctionDef | None:
    for item in node.body:
        if isinstance(item, ast.FunctionDef) and item.name == "__init__":
            return item
    return None


def _fields(node: ast.ClassDef) -> list[tuple[str, bool]]:
    """A dataclass's or NamedTuple's fields: (name, has a default)."""
    return [
        (item.target.id, item.value is not None)
        for item in node.body
        if isinstance(item, ast.AnnAssign)
        and isinstance(item.target, ast.Name)
        and "ClassVar" not in ast.unparse(item.annotation)
    ]


def _class_emitters(classes: dict[str, ast.ClassDef]) -> dict[str, list[Emitter]]:
    """Refusal subclasses, coded exceptions and value classes with a ``code``."""
    kinds: dict[str, str] = {"Refusal": REFUSAL}
    changed = True
    while changed:
        changed = False
        for name, node in classes.items():
            if name in kinds:
                continue
            bases = _base_names(node)
            if any(kinds.get(base) == REFUSAL for base in bases):
                kinds[name] = REFUSAL
                changed = True
    emitters: dict[str, list[Emitter]] = {}
    for name in classes:
        params = _signature(classes, name, set())
        if params is None:
            continue
        names = [p for p, _ in params]
        kind = kinds.get(name)
        if kind is None:
            exception = _is_exception(classes, name, set())
            kind = ERROR if exception else ISSUE
        required = sum(1 for _, has_default in params if not has_default)
        hinted = _supplies_hint(classes, name, set())
        emitters[name] = [Emitter(name, names.index("code"), "code", kind, required, False, hinted)]
    for name, kind in SEEDS.items():
        emitters.setdefault(name, [Emitter(name, 0, "code", kind, 2, False)])
    return emitters


def _signature(
    classes: dict[str, ast.ClassDef], name: str, seen: set[str]
) -> list[tuple[str, bool]] | None:
    """The constructor parameters (name, has a default) of a class that takes a ``code``."""
    node = classes.get(name)
    if node is None or name in seen:
        return None
    seen.add(name)
    init = _init(node)
    if init is not None:
        names = [a.arg for a in init.args.args[1:]]
        first_default = len(names) - len(init.args.defaults)
        params = [(p, i >= first_default) for i, p in enumerate(names)]
    elif node.decorator_list or "NamedTuple" in _base_names(node):
        params = _fields(node)
        if not any(p == "code" for p, _ in params):
            params = []
    else:
        params = []
    if any(p == "code" for p, _ in params):
        return params
    if init is not None:
        return None  # its own constructor takes no code (it passes a fixed one up)
    for base in _base_names(node):
        inherited = _signature(classes, base, seen)
        if inherited is not None:
            return inherited
    return None


def _supplies_hint(classes: dict[str, ast.ClassDef], name: str, seen: set[str]) -> bool:
    """A class (or a base) that gives every instance a ``hint``: a ``HINT`` default, or a
    constructor that sets one (``context.setdefault("hint", ...)``)."""
    node = classes.get(name)
    if node is None or name in seen:
        return False
    seen.add(name)
    for item in node.body:
        if isinstance(item, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "HINT" for t in item.targets
        ):
            return True
    init = _init(node)
    if init is not None and any(
        isinstance(n, ast.Constant) and n.value == "hint" for n in ast.walk(init)
    ):
        return True
    return any(_supplies_hint(classes, base, seen) for base in _base_names(node))


def _passes_hint(call: ast.Call) -> bool:
    return any(k.arg == "hint" for k in call.keywords)


def _is_exception(classes: dict[str, ast.ClassDef], name: str, seen: set[str]) -> bool:
    if name in _EXCEPTION_BASES or name.endswith(("Error", "Exception")):
        return True
    node = classes.get(name)
    if node is None or name in seen:
        return False
    seen.add(name)
    return any(_is_exception(classes, base, seen) for base in _base_names(node))


def _matching(
    emitters: dict[str, list[Emitter]], call: ast.Call, bases: list[str] | None = None
) -> list[Emitter]:
    name, attribute = _call_name(call)
    if (
        name == "__init__"
        and isinstance(call.func, ast.Attribute)
        and isinstance(call.func.value, ast.Call)
        and getattr(call.func.value.func, "id", "") == "super"
    ):
        return [e for base in bases or () for e in emitters.get(base, ())][:1]
    given = len(call.args) + sum(1 for k in call.keywords if k.arg is not None)
    starred = any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    )
    return [
        e
        for e in emitters.get(name, ())
        if (attribute or not e.is_method) and (given >= e.required or starred)
    ]


def _code_argument(call: ast.Call, emitter: Emitter) -> ast.expr | None:
    if emitter.position < len(call.args) and not any(
        isinstance(a, ast.Starred) for a in call.args[: emitter.position + 1]
    ):
        return call.args[emitter.position]
    for keyword in call.keywords:
        if keyword.arg == emitter.keyword:
            return keyword.value
    return None


def _dict_codes(function: ast.AST) -> Iterator[tuple[ast.expr, str, bool]]:
    """Code dicts and skip records.

    A dict with ``"code"`` and a ``"message"`` or ``"path"`` is an issue (a
    refusal under ``"error"``/``"refusal"``); ``{"path", "reason"}`` a skip record.

    A ``"code"`` key alone is not enough: a status row's ``next_action`` is
    ``{"code", "text", "command"}`` and names a command, not a problem.
    """
    nested: dict[int, bool] = {}  # id of a dict under "error"/"refusal" -> parent has "hint"
    for node in ast.walk(function):
        if isinstance(node, ast.Dict):
            names = {k.value for k in node.keys if isinstance(k, ast.Constant)}
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value in ("error", "refusal"):
                    nested[id(value)] = "hint" in names
    for node in ast.walk(function):
        if not isinstance(node, ast.Dict):
            continue
        keys = {
            k.value: v
            for k, v in zip(node.keys, node.values, strict=True)
            if isinstance(k, ast.Constant)
        }
        hinted = "hint" in keys or nested.get(id(node), False)
        if "code" in keys and ({"message", "path"} & keys.keys() or id(node) in nested):
            yield keys["code"], REFUSAL if id(node) in nested else ISSUE, hinted
        elif "reason" in keys and "path" in keys:
            yield keys["reason"], ISSUE, hinted


def _wrappers(modules: Iterable[Module], emitters: dict[str, list[Emitter]]) -> None:
    """Add every function that forwards a parameter as an emitter's code, to a fixpoint."""
    candidates = []
    for module in modules:
        for function, is_method in _functions(module.tree):
            params = _params(function, is_method)
            if function.name.startswith("__") or not params:
                continue
            calls = [n for n in ast.walk(function) if isinstance(n, ast.Call)]
            dicts = list(_dict_codes(function))
            candidates.append((function, is_method, params, calls, dicts))
    changed = True
    while changed:
        changed = False
        for function, is_method, params, calls, dicts in candidates:
            required = len(params) - len(function.args.defaults)
            forwarded: list[tuple[ast.expr, str, bool]] = list(dicts)
            for node in calls:
                for emitter in _matching(emitters, node):
                    argument = _code_argument(node, emitter)
                    if argument is not None:
                        hinted = emitter.hinted or _passes_hint(node)
                        forwarded.append((argument, emitter.kind, hinted))
            for argument, kind, hinted in forwarded:
                if isinstance(argument, ast.Name) and argument.id in params:
                    new = Emitter(
                        function.name,
                        params.index(argument.id),
                        argument.id,
                        kind,
                        required,
                        is_method,
                        hinted,
                    )
                    known = emitters.setdefault(function.name, [])
                    if not any(_same(e, new) for e in known):
                        known.append(new)
                        changed = True


def _same(a: Emitter, b: Emitter) -> bool:
    return (a.position, a.keyword, a.kind, a.is_method, a.hinted) == (
        b.position,
        b.keyword,
        b.kind,
        b.is_method,
        b.hinted,
    )


# --------------------------------------------------------------------------- resolving


class _Resolver:
    def __init__(self, modules: dict[str, Module]) -> None:
        self.modules = modules
        self.gaps: list[str] = []  # branches that could not be followed, for --unresolved

    def _strict(self, expr: ast.expr, module: Module, *parts: list[tuple[str, bool]] | None):
        known = [v for p in parts if p is not None for v in p]
        if any(p is None for p in parts):
            self.gaps.append(f"{_shown(module.path)}:{expr.lineno}: {ast.unparse(expr)}")
            return known or None
        return known

    def values(
        self, expr: ast.expr, module: Module, scope: ast.AST | None, depth: int = 0
    ) -> list[tuple[str, bool]] | None:
        """The codes ``expr`` can be: (text, is_pattern); None when it cannot be followed."""
        if depth > 12:
            return None
        again = lambda e, m=module, s=scope: self.values(e, m, s, depth + 1)  # noqa: E731
        if isinstance(expr, ast.Constant):
            return [(expr.value, False)] if isinstance(expr.value, str) else []
        if isinstance(expr, ast.JoinedStr):
            return [(_pattern(expr), True)]
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
            left, right = again(expr.left), again(expr.right)
            left = left if left is not None else [(f"<{ast.unparse(expr.left)}>", True)]
            right = right if right is not None else [(f"<{ast.unparse(expr.right)}>", True)]
            return [(a + b, pa or pb) for a, pa in left for b, pb in right]
        if isinstance(expr, ast.IfExp):
            return self._strict(expr, module, again(expr.body), again(expr.orelse))
        if isinstance(expr, ast.BoolOp):
            return self._strict(expr, module, *(again(v) for v in expr.values))
        # A table's members that are not strings (exception classes, numbers) are no codes.
        if isinstance(expr, ast.Tuple | ast.List | ast.Set):
            return _known(*(again(v) for v in expr.elts))
        if isinstance(expr, ast.Dict):
            return _known(*(again(v) for v in expr.values))
        if isinstance(expr, ast.Call):
            return self._call(expr, module, scope, depth)
        if isinstance(expr, ast.Subscript):
            return again(expr.value)
        if isinstance(expr, ast.Name):
            return self._name(expr.id, module, scope, depth)
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
            target = self.modules.get(module.aliases.get(expr.value.id, ""))
            if target is not None and expr.attr in target.constants:
                return self.values(target.constants[expr.attr], target, None, depth + 1)
        return None

    def _call(
        self, call: ast.Call, module: Module, scope: ast.AST | None, depth: int
    ) -> list[tuple[str, bool]] | None:
        """``frozenset(...)``, ``TABLE.get(key, default)`` and calls of the package's functions."""
        name, attribute = _call_name(call)
        if not attribute and name in ("frozenset", "set", "tuple", "list", "str"):
            return _known(*(self.values(a, module, scope, depth + 1) for a in call.args))
        if attribute and name == "get" and isinstance(call.func, ast.Attribute):
            table = self.values(call.func.value, module, scope, depth + 1)
            default = (
                self.values(call.args[1], module, scope, depth + 1) if len(call.args) > 1 else []
            )
            return self._strict(call, module, table, default)
        if attribute:
            return None
        target, function = module, _function(module, name)
        if function is None and name in module.imported:
            source, original = module.imported[name]
            target = self.modules.get(source, module)
            function = _function(target, original) if source in self.modules else None
        if function is None:
            return None
        returned = [
            node.value
            for node in ast.walk(function)
            if isinstance(node, ast.Return | ast.Yield) and node.value is not None
        ]
        return self._strict(
            call, module, *(self.values(v, target, function, depth + 1) for v in returned)
        )

    def _name(
        self, name: str, module: Module, scope: ast.AST | None, depth: int
    ) -> list[tuple[str, bool]] | None:
        if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
            assigned, unpacked = _assignments(scope, name)
            # ``for code in TABLE`` / ``for kind, code in TABLE``: every member of TABLE.
            looped = [
                node.iter
                for node in ast.walk(scope)
                if isinstance(node, ast.For | ast.comprehension)
                and any(isinstance(t, ast.Name) and t.id == name for t in ast.walk(node.target))
            ]
            # ``issues.append("code")`` on a local list that is returned.
            grown = [
                node.args[0]
                for node in ast.walk(scope)
                if isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("append", "add", "extend")
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == name
                and node.args
            ]
            if assigned or unpacked or looped or grown:
                parts = [self.values(v, module, scope, depth + 1) for v in (*assigned, *grown)]
                parts += [
                    _known(self.values(v, module, scope, depth + 1)) for v in (*unpacked, *looped)
                ]
                where = ast.Name(id=name, lineno=scope.lineno)
                return self._strict(where, module, *parts)
            args = scope.args
            positional = [*args.posonlyargs, *args.args]
            defaults = dict(
                zip(
                    [a.arg for a in positional[len(positional) - len(args.defaults) :]],
                    args.defaults,
                    strict=True,
                )
            )
            defaults.update(
                {
                    a.arg: d
                    for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
                    if d is not None
                }
            )
            if name in defaults:
                return self.values(defaults[name], module, None, depth + 1)
            if any(a.arg == name for a in (*positional, *args.kwonlyargs)):
                return []  # a wrapper's parameter: its callers are the sites
        if name in module.constants:
            return self.values(module.constants[name], module, None, depth + 1)
        if name in module.imported:
            source, original = module.imported[name]
            target = self.modules.get(source)
            if target is not None and original in target.constants:
                return self.values(target.constants[original], target, None, depth + 1)
        return None


def _assignments(scope: ast.AST, name: str) -> tuple[list[ast.expr], list[ast.expr]]:
    """What a function assigns to ``name``: plain values, and values unpacked into it.

    ``mapped, message = "database_unreadable", ...`` pairs ``mapped`` with the
    tuple's first element; unpacking a call's result yields every string in it.
    """
    plain: list[ast.expr] = []
    unpacked: list[ast.expr] = []
    for node in ast.walk(scope):
        if not isinstance(node, ast.Assign | ast.AnnAssign) or node.value is None:
            continue
        for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
            if isinstance(target, ast.Name) and target.id == name:
                plain.append(node.value)
            elif isinstance(target, ast.Tuple):
                names = [getattr(t, "id", None) for t in target.elts]
                if name not in names:
                    continue
                value = node.value
                if isinstance(value, ast.Tuple) and len(value.elts) == len(names):
                    plain.append(value.elts[names.index(name)])
                else:
                    unpacked.append(value)
    return plain, unpacked


def _known(*parts: list[tuple[str, bool]] | None) -> list[tuple[str, bool]]:
    return [v for p in parts if p is not None for v in p]


def _function(module: Module, name: str) -> ast.FunctionDef | None:
    for node in module.tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    return None


def _pattern(expr: ast.JoinedStr) -> str:
    out = []
    for value in expr.values:
        if isinstance(value, ast.Constant):
            out.append(str(value.value))
        elif isinstance(value, ast.FormattedValue):
            out.append(f"<{ast.unparse(value.value)}>")
    return "".join(out)


# --------------------------------------------------------------------------- extraction


def _enclosing(tree: ast.AST) -> dict[int, tuple[ast.AST | None, list[str]]]:
    """Each call's enclosing function and the bases of its enclosing class."""
    owner: dict[int, tuple[ast.AST | None, list[str]]] = {}

    def visit(node: ast.AST, function: ast.AST | None, bases: list[str]) -> None:
        for child in ast.iter_child_nodes(node):
            inner = child if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else function
            inner_bases = _base_names(child) if isinstance(child, ast.ClassDef) else bases
            if isinstance(child, ast.Call):
                owner[id(child)] = (function, bases)
            visit(child, inner, inner_bases)

    visit(tree, None, [])
    return owner


def _source_root(package_dir: Path) -> Path:
    return package_dir / "src"


def extract(source: Path, shared: dict[str, Module] | None = None) -> Extraction:
    """Every code the modules under ``source`` emit, with the module and kind."""
    own = _load(source)
    everything = {**(shared if shared is not None else _shared()), **own}
    emitters = _class_emitters(_classes(everything.values()))
    _wrappers(everything.values(), emitters)
    resolver = _Resolver(everything)
    result = Extraction()
    for module in own.values():
        owner = _enclosing(module.tree)
        for node in ast.walk(module.tree):
            if not isinstance(node, ast.Call):
                continue
            scope, bases = owner.get(id(node), (None, []))
            for emitter in _matching(emitters, node, bases):
                argument = _code_argument(node, emitter)
                if argument is None:
                    continue
                found = resolver.values(argument, module, scope)
                short = module.dotted.split(".", 1)[1] if "." in module.dotted else module.dotted
                if found is None:
                    result.unresolved.append(
                        f"{_shown(module.path)}:{node.lineno}: {ast.unparse(argument)}"
                    )
                    continue
                hinted = emitter.hinted or _passes_hint(node)
                for text, pattern in found:
                    result.sites.append(
                        Site(text, short, emitter.kind, pattern, emitter.name, hinted)
                    )
    for scope_node, module in ((f, m) for m in own.values() for f, _ in _functions(m.tree)):
        for argument, kind, hinted in _dict_codes(scope_node):
            found = resolver.values(argument, module, scope_node)
            short = module.dotted.split(".", 1)[1] if "." in module.dotted else module.dotted
            for text, pattern in found or []:
                result.sites.append(Site(text, short, kind, pattern, "dict", hinted))
    result.unresolved = sorted(set(result.unresolved + resolver.gaps))
    return result


def packages() -> list[Path]:
    return sorted(
        p for p in PACKAGES_DIR.iterdir() if (p / "src").is_dir() and (p / "README.md").is_file()
    )


def codes(package: str) -> dict[str, tuple[set[str], set[str], bool]]:
    """code -> (modules, kinds, is_pattern) for one package (e.g. ``"tracking-db"``)."""
    return _collect(sites(package))


@functools.cache
def sites(package: str) -> tuple[Site, ...]:
    """Every emitting site of one package, as :func:`extract` found them."""
    return tuple(extract(_source_root(PACKAGES_DIR / package)).sites)


def _collect(sites: Iterable[Site]) -> dict[str, tuple[set[str], set[str], bool]]:
    table: dict[str, tuple[set[str], set[str], bool]] = {}
    for site in sites:
        if not site.code:
            continue
        modules, kinds, _ = table.setdefault(site.code, (set(), set(), site.pattern))
        modules.add(site.module)
        kinds.add(site.kind)
    return table


@functools.cache
def shared_codes() -> tuple[str, ...]:
    """The codes ``rvault_contracts`` itself emits (CLI, strict JSON, writer)."""
    found = _collect(extract(CONTRACTS_SRC).sites)
    return tuple(sorted(c for c, (_, _, pattern) in found.items() if not pattern))


# Exit-1 codes: an internal error is a bug to report, not an input to fix.
NOT_REFUSALS = frozenset({"internal_error"})


def hint_tables(source: Path) -> dict[str, str]:
    """The code -> hint tables under ``source``: module-level ``HINTS``/``DEFAULT_HINTS`` dicts."""
    found: dict[str, str] = {}
    for module in _load(source).values():
        for name in ("HINTS", "DEFAULT_HINTS"):
            value = module.constants.get(name)
            if isinstance(value, ast.Dict):
                for key, hint in zip(value.keys, value.values, strict=True):
                    if isinstance(key, ast.Constant) and isinstance(key.value, str):
                        found[key.value] = ast.unparse(hint)
    return found


def unhinted(source: Path) -> dict[str, set[str]]:
    """Refusal and error codes under ``source`` that some site emits without a ``hint``
    and no hint table (the package's own or ``rvault_contracts``') supplies: code -> modules."""
    tables = {**hint_tables(CONTRACTS_SRC), **hint_tables(source)}
    missing: dict[str, set[str]] = {}
    for site in extract(source).sites:
        if site.kind == ISSUE or site.hinted or site.code in tables:
            continue
        if site.code in NOT_REFUSALS:
            continue
        missing.setdefault(site.code, set()).add(site.module)
    return missing


def table(package: str, shared: Iterable[str] | None = None) -> str:
    rows = ["| code | kind | emitted in |", "| --- | --- | --- |"]
    by_module: dict[tuple[str, str], set[str]] = {}
    for site in sites(package):
        by_module.setdefault((site.code, site.module), set()).add(site.kind)
    for code, (modules, kinds, pattern) in sorted(codes(package).items()):
        shown = f"`{code}`" + (" (pattern)" if pattern else "")
        kind = ", ".join(k for k in KIND_ORDER if k in kinds)
        # With several kinds, say which module emits which.
        where = [
            f"`{m}`"
            if len(kinds) == 1
            else f"`{m}` ({', '.join(k for k in KIND_ORDER if k in by_module[(code, m)])})"
            for m in sorted(modules)
        ]
        rows.append(f"| {shown} | {kind} | {', '.join(where)} |")
    common = shared if shared is not None else shared_codes()
    rows += [
        "",
        "Kinds: *refusal* is a `cli-failure` document with exit 2; *error* a coded exception "
        "that a command reports as a refusal (or a reader as a status); *issue* an entry "
        "of a report or a reader's status. A *(pattern)* code is built at run time; "
        "`<...>` is the variable part.",
        "Every command can also emit the shared codes of `rvault_contracts`: "
        + ", ".join(f"`{c}`" for c in common)
        + ".",
        "Generated by `tools/refusal_codes.py --write` from the source; do not edit by hand.",
    ]
    return "\n".join(rows)


def render_readme(text: str, package: str, shared: Iterable[str] | None = None) -> str:
    return replace_block(text, BLOCK, table(package, shared), append_under=HEADING)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="update each package README in place")
    parser.add_argument(
        "--unresolved", action="store_true", help="list calls whose code is not a constant"
    )
    parser.add_argument("package", nargs="*", help="package directory names (default: all)")
    args = parser.parse_args(argv)
    chosen = args.package or [p.name for p in packages()]
    shared = shared_codes()
    for package in chosen:
        if args.unresolved:
            for line in extract(_source_root(PACKAGES_DIR / package)).unresolved:
                sys.stdout.write(line + "\n")
        elif args.write:
            readme = PACKAGES_DIR / package / "README.md"
            text = readme.read_text(encoding="utf-8")
            updated = render_readme(text, package, shared)
            if updated != text:
                readme.write_text(updated, encoding="utf-8")
        else:
            sys.stdout.write(f"## {package}\n\n{table(package, shared)}\n\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
