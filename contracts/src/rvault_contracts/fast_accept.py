"""A fast acceptance by a contract schema: jsonschema-rs may accept, never refuse.

python-jsonschema (:mod:`rvault_contracts.schemas`) is the definition of
"valid" and words every refusal, but it costs milliseconds per document: an
evidence ledger with a hundred citations takes ~25 ms, so the 9,800 ledgers of
a large vault would take minutes to read. jsonschema-rs checks the same
schema in microseconds. So an owner that checks many documents first offers
each to :func:`fast_accepts`: ``True`` means jsonschema-rs found it valid and
no second look is needed; ``False`` is no verdict, and the owner asks
python-jsonschema (``schema_issues``), which alone decides and words the
refusal. Only an acceptance is taken from jsonschema-rs, so the check is never
weaker than python-jsonschema's where the two agree on what is valid, and the
keywords they are allowed to meet here are exactly those whose agreement is
pinned by tests (:data:`FAST_KEYWORDS`). ``pattern`` must mean what the
contracts' own ECMA-262 regex (:mod:`rvault_contracts.ecma_regex`) says, not
what Rust's would (whose ``\\s`` is not Python's): a pattern written only in
a small grammar whose meaning is the same in both engines once ``\\s``,
``\\S``, ``\\d`` and ``\\D`` are spelled out as explicit classes
(:func:`rust_pattern`: literals, classes, anchors, groups, quantifiers; every
digest, path and "not blank" pattern of the registry) runs natively in Rust;
any other (a lookahead, ``.``) runs the contracts' Python regex through a
custom keyword, ~2 us a call. Tests pin the agreement of every registered
pattern on probe strings around every whitespace character.

This is in the contracts because every consumer of one artifact must agree on
which documents are valid: :func:`rvault_contracts.schemas.schema_issues` and
``is_valid`` offer every document here first (so a valid one never imports
python-jsonschema), and tracking-db's database assessment and
analysis-writer's ledger check accept a ledger by this one implementation.
The module is light on purpose: it reads the schema files itself (package
data beside this module, the toolkit's own trusted JSON) and never imports
python-jsonschema or ``importlib.resources``, because ``rvault-db read`` pays
for every import on every call.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs

from rvault_contracts.ecma_regex import ecma_to_python

__all__ = [
    "FAST_KEYWORDS",
    "SPACES",
    "fast_accepts",
    "fast_path_safe",
    "fast_validator",
    "json_shaped",
    "rust_pattern",
]

_PACKAGE = Path(__file__).parent

#: Keywords on which the two validators' agreement is pinned by tests. A
#: schema using any other (``format``, which jsonschema-rs only annotates,
#: ``unevaluatedProperties``, ``patternProperties``, whose keys are regexes,
#: ...) gets no fast path: python-jsonschema checks it all. A ``$ref`` may
#: leave its document only for a registered contract (``urn:rvault:...``)
#: that is itself within these keywords (:func:`fast_validator`).
FAST_KEYWORDS = frozenset(
    {
        "$comment", "$defs", "$id", "$ref", "$schema", "additionalProperties", "allOf", "anyOf",
        "const", "contains", "dependentRequired", "description", "else", "enum",
        "exclusiveMinimum", "if", "items", "maxItems", "maxLength", "maxProperties", "maximum",
        "minItems", "minLength", "minProperties", "minimum", "not", "oneOf", "pattern",
        "prefixItems", "properties", "propertyNames", "required", "then", "title", "type",
        "uniqueItems",
    }
)  # fmt: skip
_SUBSCHEMA = (
    "additionalProperties", "contains", "else", "if", "items", "not", "propertyNames", "then"
)  # fmt: skip
_SUBSCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SUBSCHEMA_MAPS = ("$defs", "properties")
_CONTRACT_ID = re.compile(r"urn:rvault:([a-z0-9-]+):v([0-9]+)")


#: What ``\\s`` matches in the contracts' reading (Python's ``re`` on ``str``):
#: no code point above U+3000 is whitespace to it (a test scans them all).
#: Found in one scan of the code points: a ``re.match`` per code point cost
#: 18 ms of every import on a loaded machine, the scan 3 ms.
SPACES = "".join(re.findall(r"\s", "".join(map(chr, range(0x3001)))))
_ECMA_KEYWORD = "x-rvault-ecma-pattern"
# Literals that are no metacharacter in either engine, outside and inside a class.
_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:/@,= ")
_CLASS_PLAIN = _PLAIN | frozenset(".+*?()|{}$")
_ESCAPED = frozenset(".-/\\[](){}+*?^$|")


def rust_pattern(pattern: str) -> str | None:
    """``pattern`` in Rust regex syntax with exactly the contracts' meaning, or ``None``.

    ``None`` when the pattern uses anything outside the shared grammar; then
    the contracts' Python regex evaluates it.
    """
    out: list[str] = []
    index = 0
    in_class = False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            if index + 1 == len(pattern):
                return None
            escaped = pattern[index + 1]
            index += 2
            if escaped == "s":
                out.append(SPACES if in_class else f"[{SPACES}]")
            elif escaped == "d":
                out.append("0-9" if in_class else "[0-9]")
            elif escaped in "SD" and not in_class:
                out.append(f"[^{SPACES}]" if escaped == "S" else "[^0-9]")
            elif escaped == "n":
                out.append("\\n")
            elif escaped in _ESCAPED:
                out.append("\\" + escaped)
            else:
                return None
            continue
        if in_class:
            if char == "]":
                in_class = False
            elif char == "-":
                # a range or a literal at the edge; never Rust's "--" set difference
                if pattern[index + 1 : index + 2] in ("-", "["):
                    return None
            elif char not in _CLASS_PLAIN:
                return None
        elif char == "[":
            in_class = True
            if pattern[index + 1 : index + 2] == "^":
                out.append("[^")
                index += 2
                continue
        elif char not in _PLAIN and char not in "-^$*+?|(){}":
            return None
        elif char == "(" and pattern[index + 1 : index + 2] == "?":
            return None  # lookaround and other extensions
        out.append(char)
        index += 1
    return None if in_class else "".join(out)


def _translated(schema: Any) -> Any:
    """The schema with each ``pattern`` in Rust syntax, or moved to the custom keyword."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    if isinstance(schema.get("pattern"), str):
        rust = rust_pattern(schema["pattern"])
        if rust is None:
            out[_ECMA_KEYWORD] = out.pop("pattern")
        else:
            out["pattern"] = rust
    for key in _SUBSCHEMA:
        if key in schema:
            out[key] = _translated(schema[key])
    for key in _SUBSCHEMA_LISTS:
        if key in schema:
            out[key] = [_translated(sub) for sub in schema[key]]
    for key in _SUBSCHEMA_MAPS:
        if key in schema:
            out[key] = {name: _translated(sub) for name, sub in schema[key].items()}
    return out


class _EcmaPattern:
    """``pattern`` for jsonschema-rs with the contracts' ECMA-262 reading.

    Rust's ``\\s`` is not Python's (``"\\x1c"`` is whitespace only to Python),
    so the regex that python-jsonschema would run decides here too.
    """

    def __init__(self, parent_schema: Any, value: str, schema_path: Any) -> None:
        self._regex = re.compile(ecma_to_python(value))

    def validate(self, instance: Any) -> None:
        if isinstance(instance, str) and not self._regex.search(instance):
            raise ValueError(f"{instance!r} does not match {self._regex.pattern!r}")


def fast_path_safe(schema: Any, refs: set[str] | None = None) -> bool:
    """True when every keyword of ``schema`` (recursively) is in :data:`FAST_KEYWORDS`
    and every ``$ref`` stays inside the document.

    Given ``refs``, a ``$ref`` may also name a registered contract
    (``urn:rvault:<artifact>:v<N>``, with or without a fragment): its document
    is added to ``refs``, for the caller to judge in turn.
    """
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict) or not set(schema) <= FAST_KEYWORDS:
        return False
    ref = schema.get("$ref", "#")
    if not isinstance(ref, str):
        return False
    if not ref.startswith("#"):
        document = ref.partition("#")[0]
        if refs is None or not _CONTRACT_ID.fullmatch(document):
            return False
        refs.add(document)
    return (
        all(fast_path_safe(schema[k], refs) for k in _SUBSCHEMA if k in schema)
        and all(fast_path_safe(sub, refs) for k in _SUBSCHEMA_LISTS for sub in schema.get(k, ()))
        and all(
            fast_path_safe(sub, refs) for k in _SUBSCHEMA_MAPS for sub in schema.get(k, {}).values()
        )
    )


@cache
def _registry() -> dict[str, Any]:
    artifacts: dict[str, Any] = json.loads((_PACKAGE / "registry.json").read_text("utf-8"))[
        "artifacts"
    ]
    return artifacts


@cache
def _schema(artifact: str, version: int) -> dict[str, Any]:
    relative = _registry()[artifact]["versions"][str(version)]
    schema: dict[str, Any] = json.loads((_PACKAGE / "schemas" / relative).read_text("utf-8"))
    return schema


def _registered(uri: str) -> dict[str, Any] | None:
    """The registered schema whose ``$id`` is ``uri``, or ``None``."""
    match = _CONTRACT_ID.fullmatch(uri)
    if match is None or match[2] not in _registry().get(match[1], {}).get("versions", {}):
        return None
    schema = _schema(match[1], int(match[2]))
    return schema if schema.get("$id") == uri else None


def _fast_closure(artifact: str, version: int) -> list[dict[str, Any]] | None:
    """The contract's schema and every registered one it reaches by ``$ref``,
    or ``None`` when any of them is not fast-path safe."""
    root = _schema(artifact, version)
    found = {str(root.get("$id")): root}
    pending = [root]
    while pending:
        refs: set[str] = set()
        if not fast_path_safe(pending.pop(), refs):
            return None
        for uri in sorted(refs - found.keys()):
            target = _registered(uri)
            if target is None:
                return None
            found[uri] = target
            pending.append(target)
    return list(found.values())


@cache
def fast_validator(artifact: str, version: int) -> Any:
    """A jsonschema-rs validator of one contract, or ``None`` where it may not decide."""
    closure = _fast_closure(artifact, version)
    if closure is None:
        return None
    root, *referenced = closure
    try:
        resources = [(schema["$id"], _translated(schema)) for schema in referenced]
        return jsonschema_rs.Draft202012Validator(
            _translated(root),
            registry=jsonschema_rs.Registry(resources) if resources else None,
            keywords={_ECMA_KEYWORD: _EcmaPattern},
        )
    except Exception:  # noqa: BLE001 (a pattern Rust cannot compile: no fast path)
        return None


_SCALARS = frozenset({str, int, bool, type(None)})


def json_shaped(document: Any) -> bool:
    """True when ``document`` holds only what a JSON parser returns.

    That is dicts with ``str`` keys, lists, strings, integers, finite floats,
    booleans and ``None``, each of exactly that type. jsonschema-rs reads a
    tuple as an array, an ``Enum`` member as its value and infinity as a number
    under any ``maximum``, where python-jsonschema refuses each; a document
    built in Python (a receipt, a report) may hold them, so its acceptance
    counts only in this shape. A parsed document (strict JSON refuses NaN and
    Infinity) always has it.
    """
    stack = [document]
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind is dict:
            if not all(type(key) is str for key in value):
                return False
            stack.extend(value.values())
        elif kind is list:
            stack.extend(value)
        elif kind is float:
            if value - value != 0:  # infinity or NaN
                return False
        elif kind not in _SCALARS:
            return False
    return True


def fast_accepts(artifact: str, version: int, document: Any) -> bool:
    """True only when jsonschema-rs finds ``document`` valid; anything else is no verdict."""
    fast = fast_validator(artifact, version)
    if fast is None:
        return False
    try:
        return bool(fast.is_valid(document))
    except Exception:  # noqa: BLE001 (no verdict is a safe answer)
        return False  # e.g. a lone surrogate it cannot encode: python-jsonschema decides
