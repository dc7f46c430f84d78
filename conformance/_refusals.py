"""Negative conformance cases as data, and the one way a module runs them (not a test module).

A module that proves an edge also declares, in a module-level literal, what
its consumer must refuse::

    REFUSALS = {
        ("video-manifest", "video-extraction", "tracking-db"): [
            ("frame_count_inconsistent", ["total_frames_extracted"], 1),
        ],
    }

Each case is ``(code, path, value)`` or ``(code, path, value, defect)``: take
real producer output, change the one field at ``path`` (keys and list
indexes into the artifact as produced) to ``value`` (``DELETE`` removes it),
hand it to the real consumer and require the stable ``code`` among what the
consumer emitted. ``defect`` marks a consumer that accepts the change today: the
case runs as a strict xfail naming the defect, so it fails loudly once fixed.

``test_registry.py`` reads the literal with ``ast`` (never importing the
module) and requires every registry edge to have a case and every declaring
module to run the literal through a test parametrized with
``refusal_cases(REFUSALS)`` that calls :func:`assert_refused`; so no declared
code goes unasserted.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

DELETE = "$delete"
Edge = tuple[str, str, str]


@dataclass(frozen=True)
class RefusalCase:
    edge: Edge
    code: str
    path: tuple[str | int, ...]
    value: Any
    defect: str | None = None

    @property
    def artifact(self) -> str:
        return self.edge[0]

    @property
    def consumer(self) -> str:
        return self.edge[2]


def refusal_cases(refusals: dict[Edge, list[tuple[Any, ...]]]) -> list[Any]:
    """One ``pytest.param`` per declared case; a case naming a defect is a strict xfail."""
    params = []
    for edge, cases in refusals.items():
        for code, path, value, *defect in cases:
            case = RefusalCase(tuple(edge), code, tuple(path), value, defect[0] if defect else None)
            marks = (
                [pytest.mark.xfail(strict=True, reason=f"consumer defect: {case.defect}")]
                if case.defect
                else []
            )
            where = ".".join(str(p) for p in path)
            params.append(pytest.param(case, marks=marks, id=f"{edge[2]}-{edge[0]}-{code}-{where}"))
    return params


def mutated(document: Any, case: RefusalCase) -> Any:
    """A deep copy of ``document`` whose one existing field at ``case.path`` is changed."""
    out = copy.deepcopy(document)
    parent = out
    for key in case.path[:-1]:
        _assert_field(parent, key, case)
        parent = parent[key]
    last = case.path[-1]
    _assert_field(parent, last, case)
    if case.value == DELETE:
        del parent[last]
    else:
        assert parent[last] != case.value or type(parent[last]) is not type(case.value), (
            f"{case.path} already holds {case.value!r}: not a change"
        )
        parent[last] = case.value
    return out


def _assert_field(parent: Any, key: str | int, case: RefusalCase) -> None:
    if isinstance(parent, dict):
        assert key in parent, f"{case.path} is not a field of the producer's output"
    else:
        assert isinstance(parent, list) and isinstance(key, int), case.path
        assert -len(parent) <= key < len(parent), f"{case.path}: no such list item"


def assert_refused(case: RefusalCase, codes: Iterable[str | None]) -> None:
    """The consumer refused the mutated artifact with the declared stable code."""
    emitted = sorted({c for c in codes if c})
    assert case.code in emitted, (
        f"{case.consumer} did not refuse {case.artifact} with {case.path} = {case.value!r} "
        f"as {case.code!r}; it emitted {emitted}"
    )


def cli_codes(result: Any) -> list[str]:
    """Every code a refused CLI run printed: the error, its owner error, nested issues."""
    assert result.returncode != 0, f"the consumer accepted it: {result.stdout[:400]}"
    assert result.returncode == 2, result.stdout + result.stderr
    codes: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if isinstance(value.get("code"), str):
                codes.append(value["code"])
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(result.json)
    return codes


@contextmanager
def replaced(path: Path, document: Any) -> Iterator[Path]:
    """``path`` holds ``document`` (JSON) for the block, then its exact bytes again.

    The shared producer output stays where the producer wrote it (consumers
    check absolute vault paths), so a case swaps one file and restores it;
    tests of one xdist worker run one at a time.
    """
    original = path.read_bytes()
    path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    try:
        yield path
    finally:
        path.write_bytes(original)
