"""The code literals a package's source passes where a code goes: the guard of the declarations.

Each package declares its codes in ``rvault_<owner>.codes``; the guard tests
(``tools/tests/test_refusal_codes.py``, ``test_refusal_hints.py``) compare
those declarations with what this scan finds in the source. The scan is
deliberately simple, one pass and no inference, so that a reader can tell at
a glance why a literal counts. A string counts as an emitted code where it is

- the argument, at the parameter named ``code``, of a call to a function or
  class that the package or ``rvault_contracts`` defines with such a
  parameter (``Refusal``, ``Issue``, ``Collector.add``, an owner's
  ``VideoExtractionError`` or ``_refuse``), when the call passes at least the
  definition's required arguments (``set.add(x)`` is not ``Collector.add``);
- the ``code=`` keyword of any call;
- the ``"code"`` of a dict literal that also has a ``"message"`` or ``"path"``
  (a ``next_action`` dict names a command, not a problem).

The argument may be a literal or an upper-case module constant assigned one
(``Refusal(refusals.NOT_A_ZIP, ...)``). A code built at run time
(``f"database_{code}"``), read from a table or forwarded from a caught error
is not seen here: it is declared with ``pattern=`` or found by the reverse
check, that every declared code appears as a literal in the source.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONTRACTS_SRC = ROOT / "contracts/src"
DECLARATIONS = ("codes.py",)  # the declaring module itself is not a use
_CODE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")


@dataclass(frozen=True)
class Site:
    """One emitted code literal: where, through which callable, and whether it has a hint
    (the call passes ``hint=`` or a ``hint`` parameter, or its class has a ``HINT``)."""

    code: str
    path: Path
    line: int
    callee: str
    hinted: bool
    raised: bool  # ``raise X(...)`` or ``refuse(...)``: a refusal or error, not an issue


def _trees(source: Path) -> dict[Path, ast.Module]:
    return {
        path: ast.parse(path.read_text(encoding="utf-8"), str(path))
        for path in sorted(source.rglob("*.py"))
        if path.name not in DECLARATIONS
    }


def _literal(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _callee(call: ast.Call) -> str:
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return call.func.id if isinstance(call.func, ast.Name) else ""


@dataclass(frozen=True)
class _Emitter:
    """Where a definition takes its code (and its hint, if it has that parameter)."""

    code: int
    required: int
    hint: int | None


def _emitter(node: ast.FunctionDef | ast.ClassDef) -> _Emitter | None:
    """How a definition that takes a ``code`` takes it; None when it takes none."""
    function = node
    if isinstance(node, ast.ClassDef):
        inits = [i for i in node.body if isinstance(i, ast.FunctionDef) and i.name == "__init__"]
        if not inits:  # a dataclass or NamedTuple: its annotated fields
            fields = [
                item
                for item in node.body
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
            ]
            names = [item.target.id for item in fields]  # type: ignore[union-attr]
            required = sum(1 for item in fields if item.value is None)
            return _position(names, required)
        function = inits[0]
    args = function.args  # type: ignore[union-attr]
    names = [a.arg for a in (*args.posonlyargs, *args.args)]
    if names and names[0] in ("self", "cls"):
        names = names[1:]
    return _position(names, len(names) - len(args.defaults))


def _position(names: list[str], required: int) -> _Emitter | None:
    if "code" not in names:
        return None
    hint = names.index("hint") if "hint" in names else None
    return _Emitter(names.index("code"), required, hint)


def _emitters(trees: Iterable[ast.Module]) -> dict[str, set[_Emitter]]:
    found: dict[str, set[_Emitter]] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.ClassDef):
                emitter = _emitter(node)
                if emitter is not None:
                    found.setdefault(node.name, set()).add(emitter)
    return found


def _constants(trees: Iterable[ast.Module]) -> dict[str, set[str]]:
    """Module-level ``NAME = "literal"`` assignments (upper-case names only)."""
    found: dict[str, set[str]] = {}
    for tree in trees:
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], _literal(node.value)
                if isinstance(target, ast.Name) and target.id.isupper() and value is not None:
                    found.setdefault(target.id, set()).add(value)
    return found


def _hinting_classes(trees: Iterable[ast.Module]) -> set[str]:
    """Classes that give every instance a hint: a ``HINT`` class attribute, or a base with one."""
    bases: dict[str, list[str]] = {}
    hinting: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases[node.name] = [getattr(b, "attr", getattr(b, "id", "")) for b in node.bases]
                if any(
                    isinstance(item, ast.Assign)
                    and any(getattr(t, "id", "") == "HINT" for t in item.targets)
                    for item in node.body
                ):
                    hinting.add(node.name)
    grown = True
    while grown:  # subclasses of subclasses: a few rounds over a few dozen classes
        inherited = {name for name, parents in bases.items() if hinting & set(parents)}
        grown = not inherited <= hinting
        hinting |= inherited
    return hinting


class _Scan:
    def __init__(self, own: dict[Path, ast.Module], shared: dict[Path, ast.Module]) -> None:
        everything = [*own.values(), *shared.values()]
        self.own = own
        self.emitters = _emitters(everything)
        self.constants = _constants(everything)
        self.hinting = _hinting_classes(everything)

    def values(self, node: ast.AST) -> set[str]:
        literal = _literal(node)
        if literal is not None:
            return {literal}
        name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
        return self.constants.get(name, set()) if name.isupper() else set()

    def call_codes(self, call: ast.Call) -> tuple[set[str], bool]:
        """The codes a call passes, and whether it passes a hint with them."""
        given = len(call.args) + len(call.keywords)
        codes: set[str] = set()
        hinted = _callee(call) in self.hinting or any(k.arg == "hint" for k in call.keywords)
        for emitter in self.emitters.get(_callee(call), ()):
            if given >= emitter.required and emitter.code < len(call.args):
                codes |= self.values(call.args[emitter.code])
                hinted |= emitter.hint is not None and emitter.hint < len(call.args)
        for keyword in call.keywords:
            if keyword.arg == "code":
                codes |= self.values(keyword.value)
        return codes, hinted

    def sites(self) -> Iterator[Site]:
        for path, tree in self.own.items():
            raised = {id(node.exc) for node in ast.walk(tree) if isinstance(node, ast.Raise)}
            for node in ast.walk(tree):
                if isinstance(node, ast.Call):
                    codes, hinted = self.call_codes(node)
                    callee = _callee(node)
                elif isinstance(node, ast.Dict):
                    keys = {_literal(k): v for k, v in zip(node.keys, node.values, strict=True)}
                    has_context = {"message", "path"} & keys.keys()
                    codes = self.values(keys["code"]) if "code" in keys and has_context else set()
                    hinted, callee = "hint" in keys, "dict"
                else:
                    continue
                for code in codes:
                    if _CODE.match(code):
                        throws = id(node) in raised or callee == "refuse"
                        yield Site(code, path, node.lineno, callee, hinted, throws)


def sites(source: Path) -> list[Site]:
    """Every code literal the modules under ``source`` pass where a code goes."""
    shared = {} if source == CONTRACTS_SRC else _trees(CONTRACTS_SRC)
    return sorted(
        _Scan(_trees(source), shared).sites(), key=lambda s: (s.code, str(s.path), s.line)
    )


def literals(source: Path) -> set[str]:
    """Every string literal under ``source`` outside its declarations (a code's uses)."""
    return {
        value
        for tree in _trees(source).values()
        for node in ast.walk(tree)
        if (value := _literal(node)) is not None
    }
