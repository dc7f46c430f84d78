"""Record shapes as the contract schemas state them, read through the registry.

Field sets, enums and versions are written once, in the registered JSON
Schemas; the owner assessment and the queue's claim validator take them from
here instead of restating them, and keep in Python only the rules that
compare fields (counts that must sum, a path that mirrors another, lanes
that follow a kind, timestamps in order). Adding a field to a record is then
one schema edit plus its conformance cases.

Only the schema *files* are read (package data beside ``rvault_contracts``,
with the standard library's JSON decoder: they are the toolkit's own trusted
files): importing ``rvault_contracts.schemas`` would pull jsonschema into
every ``rvault-db read`` and into the light public ``api``, and even
``importlib.resources`` costs 30 ms of start-up that ``read`` cannot spare.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import rvault_contracts

_PACKAGE = Path(rvault_contracts.__file__).parent


@cache
def _registry() -> dict[str, Any]:
    return json.loads((_PACKAGE / "registry.json").read_text("utf-8"))["artifacts"]


@cache
def schema(artifact: str, version: int) -> dict[str, Any]:
    """The registered schema of ``artifact`` version ``version``."""
    relative = _registry()[artifact]["versions"][str(version)]
    return json.loads((_PACKAGE / "schemas" / relative).read_text("utf-8"))


def node(artifact: str, version: int, *path: str | int) -> Any:
    """The schema value at ``path`` (keys and list indices, e.g. ``$defs``, ``allOf``, 0)."""
    value: Any = schema(artifact, version)
    for key in path:
        value = value[key]
    return value


@cache
def required(artifact: str, version: int, *path: str | int) -> tuple[str, ...]:
    """The schema's ``required`` list (at ``path`` inside it), in its order."""
    return tuple(node(artifact, version, *path).get("required", ()))


@cache
def optional(artifact: str, version: int, *path: str | int) -> tuple[str, ...]:
    """Declared properties that are not required (sorted)."""
    found = node(artifact, version, *path)
    return tuple(sorted(set(found.get("properties", {})) - set(found.get("required", ()))))


@cache
def properties(artifact: str, version: int, *path: str | int) -> frozenset[str]:
    return frozenset(node(artifact, version, *path).get("properties", {}))


@cache
def enum(artifact: str, version: int, *path: str) -> tuple[Any, ...]:
    """The ``enum`` of the property at ``path`` (``properties`` steps implied;
    ``items`` steps into an array's item schema)."""
    found = schema(artifact, version)
    for key in path:
        found = found["items"] if key == "items" else found["properties"][key]
    return tuple(found["enum"])


@cache
def typed(artifact: str, version: int, *types: str) -> tuple[str, ...]:
    """Properties whose schema is exactly ``{"type": types}`` (e.g. string-or-null), sorted.

    The assessment type-checks these generically; fields with patterns,
    ranges or alternatives keep their own checks.
    """
    wanted = types[0] if len(types) == 1 else list(types)
    return tuple(
        sorted(
            name
            for name, rule in node(artifact, version, "properties").items()
            if rule.get("type") == wanted
        )
    )


def versions(artifact: str) -> tuple[int, ...]:
    """Every registered version of ``artifact``, ascending."""
    return tuple(sorted(int(v) for v in _registry()[artifact]["versions"]))
