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
which documents are valid: tracking-db's database assessment and
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
    "rust_pattern",
]

_PACKAGE = Path(__file__).parent

#: Keywords on which the two validators' agreement is pinned by tests. A
#: schema using any other (``format``, which jsonschema-rs only annotates,
#: ``unevaluatedProperties``, ...) or a ``$ref`` out of its own document gets
#: no fast path: python-jsonschema checks it all.
FAST_KEYWORDS = frozenset(
    {
        "$comment", "$defs", "$id", "$ref", "$schema", "additionalProperties", "allOf", "const",
        "dependentRequired", "description", "else", "enum", "exclusiveMinimum", "if",
        "items", "maxItems", "minItems", "minLength", "minimum", "not", "pattern",
        "properties", "required", "then", "type", "uniqueItems",
    }
)  # fmt: skip
_SUBSCHEMA = ("additionalProperties", "else", "if", "items", "not", "then")
_SUBSCHEMA_MAPS = ("$defs", "properties")


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
    if "allOf" in schema:
        out["allOf"] = [_translated(sub) for sub in schema["allOf"]]
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


def fast_path_safe(schema: Any) -> bool:
    """True when every keyword of ``schema`` (recursively) is in :data:`FAST_KEYWORDS`
    and every ``$ref`` stays inside the document."""
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict) or not set(schema) <= FAST_KEYWORDS:
        return False
    if not str(schema.get("$ref", "#")).startswith("#"):
        return False
    return (
        all(fast_path_safe(schema[k]) for k in _SUBSCHEMA if k in schema)
        and all(fast_path_safe(sub) for sub in schema.get("allOf", ()))
        and all(fast_path_safe(sub) for k in _SUBSCHEMA_MAPS for sub in schema.get(k, {}).values())
    )


@cache
def _schema(artifact: str, version: int) -> dict[str, Any]:
    registry = json.loads((_PACKAGE / "registry.json").read_text("utf-8"))["artifacts"]
    relative = registry[artifact]["versions"][str(version)]
    return json.loads((_PACKAGE / "schemas" / relative).read_text("utf-8"))


@cache
def fast_validator(artifact: str, version: int) -> Any:
    """A jsonschema-rs validator of one contract, or ``None`` where it may not decide."""
    schema = _schema(artifact, version)
    if not fast_path_safe(schema):
        return None
    try:
        return jsonschema_rs.Draft202012Validator(
            _translated(schema), keywords={_ECMA_KEYWORD: _EcmaPattern}
        )
    except Exception:  # noqa: BLE001 (a pattern Rust cannot compile: no fast path)
        return None


def fast_accepts(artifact: str, version: int, document: Any) -> bool:
    """True only when jsonschema-rs finds ``document`` valid; anything else is no verdict."""
    fast = fast_validator(artifact, version)
    if fast is None:
        return False
    try:
        return bool(fast.is_valid(document))
    except Exception:  # noqa: BLE001 (no verdict is a safe answer)
        return False  # e.g. a lone surrogate it cannot encode: python-jsonschema decides
