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
pinned by tests (:data:`FAST_KEYWORDS`). ``pattern`` is evaluated by the
contracts' own ECMA-262 regex (:mod:`rvault_contracts.ecma_regex`), not by
Rust's (whose ``\\s`` is not Python's), through a custom keyword.

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

__all__ = ["FAST_KEYWORDS", "fast_accepts", "fast_path_safe", "fast_validator"]

_PACKAGE = Path(__file__).parent

#: Keywords on which the two validators' agreement is pinned by tests. A
#: schema using any other (``format``, which jsonschema-rs only annotates,
#: ``unevaluatedProperties``, ...) or a ``$ref`` out of its own document gets
#: no fast path: python-jsonschema checks it all.
FAST_KEYWORDS = frozenset(
    {
        "$defs", "$id", "$ref", "$schema", "additionalProperties", "allOf", "const",
        "dependentRequired", "description", "else", "enum", "exclusiveMinimum", "if",
        "items", "maxItems", "minItems", "minLength", "minimum", "not", "pattern",
        "properties", "required", "then", "type", "uniqueItems",
    }
)  # fmt: skip
_SUBSCHEMA = ("additionalProperties", "else", "if", "items", "not", "then")
_SUBSCHEMA_MAPS = ("$defs", "properties")


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
    return jsonschema_rs.Draft202012Validator(schema, keywords={"pattern": _EcmaPattern})


def fast_accepts(artifact: str, version: int, document: Any) -> bool:
    """True only when jsonschema-rs finds ``document`` valid; anything else is no verdict."""
    fast = fast_validator(artifact, version)
    if fast is None:
        return False
    try:
        return bool(fast.is_valid(document))
    except Exception:  # noqa: BLE001 (no verdict is a safe answer)
        return False  # e.g. a lone surrogate it cannot encode: python-jsonschema decides
