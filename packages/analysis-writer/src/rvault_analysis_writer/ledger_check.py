"""The ledger schema check: jsonschema-rs may accept, python-jsonschema words every refusal.

A current talk's ``pattern_observations`` is rendered as source-verified, so
it must be exactly the registered ``pattern-observations`` v2 shape that
persist writes: the tracking-db read checks the talk record, not the ledger's
own contract. python-jsonschema (the contracts' validator, and the one
whose issues a refusal reports) takes ~25 ms CPU for a ledger with a hundred
citations: 50 such ledgers were two thirds of a batch write. So every ledger
is first offered to jsonschema-rs (``rvault_contracts.fast_accept``, the one
fast acceptance tracking-db's database assessment uses too: the same schema,
``pattern`` evaluated by the contracts' own ECMA-262 regexes through a custom
keyword, ~0.4 ms): a ledger it accepts needs no second look; a ledger it
refuses, or cannot convert, goes to python-jsonschema, which alone decides
and words the refusal. Only an acceptance is taken from jsonschema-rs, so the check can be
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
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from rvault_contracts.fast_accept import (  # noqa: F401 - FAST_KEYWORDS, fast_validator re-exported
    FAST_KEYWORDS,
    fast_accepts,
    fast_validator,
)
from rvault_contracts.fast_accept import fast_path_safe as _fast_path_safe  # noqa: F401
from rvault_contracts.issues import render
from rvault_contracts.schemas import SCHEMA_ISSUE_KEYS, schema_issues, validator

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
