"""The ledger schema check: jsonschema-rs may accept, python-jsonschema words every refusal.

A current talk's ``pattern_observations`` is rendered as source-verified, so
it must be exactly the registered ``pattern-observations`` v2 shape that
persist writes: the tracking-db read checks the talk record, not the ledger's
own contract. python-jsonschema (the contracts' validator, and the one
whose issues a refusal reports) takes ~25 ms CPU for a ledger with a hundred
citations: 50 such ledgers were two thirds of a batch write. So every ledger
is first offered to jsonschema-rs (the same schema, ``pattern`` evaluated by
the contracts' own ECMA-262 regexes through a custom keyword, ~0.4 ms): a
ledger it accepts needs no second look; a ledger it refuses, or cannot
convert, goes to python-jsonschema, which alone decides and words the
refusal. Only an acceptance is taken from jsonschema-rs, so the check can be
no weaker than python-jsonschema's where the two agree on what is valid;
tests pin that agreement on the schema's edge cases. When many ledgers do
need python-jsonschema they are checked in forked worker processes (they
inherit the compiled validator and the ledgers; only indices and issue lists
cross the pipe).
"""

from __future__ import annotations

import math
import multiprocessing
import os
import re
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import cache
from typing import Any

import jsonschema_rs
from rvault_contracts.issues import render
from rvault_contracts.schemas import (
    SCHEMA_ISSUE_KEYS,
    ecma_to_python,
    load_schema,
    schema_issues,
    validator,
)

#: Persisted evidence ledgers with a registered contract (v1 is the archival v4 shape).
LEDGER_SCHEMAS = {2: "pattern-observations"}
#: Below this many ledgers forking costs more than it saves.
PARALLEL_FROM = 8
MAX_WORKERS = 4
MAX_ISSUES = 20

_JOBS: list[tuple[str, str, int, Any]] = []


def ledger_contract(talk: Mapping[str, Any]) -> tuple[str, int] | None:
    """``(artifact, version)`` of the talk's ledger contract, or ``None`` when it has none."""
    po = talk.get("pattern_observations")
    version = po.get("evidence_schema_version") if isinstance(po, Mapping) else None
    if isinstance(version, bool) or not isinstance(version, int):
        return None
    artifact = LEDGER_SCHEMAS.get(version)
    return None if artifact is None else (artifact, version)


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


#: Keywords on which the two validators' agreement is pinned by tests (see
#: test_ledger_check.py). A schema using any other (``format``, which
#: jsonschema-rs only annotates, ``unevaluatedProperties``, ...) or a ``$ref``
#: out of its own document gets no fast path: python-jsonschema checks it all.
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


def _fast_path_safe(schema: Any) -> bool:
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict) or not set(schema) <= FAST_KEYWORDS:
        return False
    if not str(schema.get("$ref", "#")).startswith("#"):
        return False
    return (
        all(_fast_path_safe(schema[k]) for k in _SUBSCHEMA if k in schema)
        and all(_fast_path_safe(sub) for sub in schema.get("allOf", ()))
        and all(_fast_path_safe(sub) for k in _SUBSCHEMA_MAPS for sub in schema.get(k, {}).values())
    )


@cache
def fast_validator(artifact: str, version: int) -> Any:
    """A jsonschema-rs validator of one contract, or ``None`` where it may not decide."""
    schema = load_schema(artifact, version)
    if not _fast_path_safe(schema):
        return None
    return jsonschema_rs.Draft202012Validator(schema, keywords={"pattern": _EcmaPattern})


def fast_accepts(artifact: str, version: int, ledger: Any) -> bool:
    """True only when jsonschema-rs finds the ledger valid; anything else is no verdict."""
    fast = fast_validator(artifact, version)
    if fast is None:
        return False
    try:
        return bool(fast.is_valid(ledger))
    except Exception:  # noqa: BLE001 (no verdict is a safe answer)
        return False  # e.g. a lone surrogate it cannot encode: python-jsonschema decides


def _check(index: int) -> tuple[str, list[dict[str, str]]]:
    name, artifact, version, ledger = _JOBS[index]
    issues = schema_issues(artifact, version, ledger)[:MAX_ISSUES]
    return name, render(issues, SCHEMA_ISSUE_KEYS)


def ledger_issues(
    talks: Sequence[tuple[str, Mapping[str, Any]]],
) -> dict[str, list[dict[str, str]]]:
    """Schema issues of every ledger that has a contract, by talk filename (only failures)."""
    global _JOBS
    jobs = []
    for name, talk in talks:
        contract = ledger_contract(talk)
        if contract is not None and not fast_accepts(*contract, talk["pattern_observations"]):
            jobs.append((name, *contract, talk["pattern_observations"]))
    _JOBS = jobs
    try:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
        workers = min(MAX_WORKERS, cores)
        if len(jobs) >= PARALLEL_FROM and workers > 1:
            for _, artifact, version, _ in jobs:
                validator(artifact, version)  # compiled once, inherited by the workers
            context = multiprocessing.get_context("fork")
            with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
                chunk = math.ceil(len(jobs) / workers)
                results = list(pool.map(_check, range(len(jobs)), chunksize=chunk))
        else:
            results = [_check(index) for index in range(len(jobs))]
    finally:
        _JOBS = []
    return {name: issues for name, issues in results if issues}
