"""A valid document skips python-jsonschema; a refusal is worded exactly as before.

``schema_issues`` and ``is_valid`` first offer a document to jsonschema-rs
(:mod:`rvault_contracts.fast_accept`), which may only accept. Two things must
hold, and are checked on every conformance case document of every registered
contract and on mutated variants of each:

- the reply is the one python-jsonschema alone gave before the fast path
  (:func:`_python_jsonschema_issues`, the old body of ``schema_issues``),
  issue for issue and byte for byte once serialized;
- a valid document of a contract the fast path decides is accepted without
  python-jsonschema or referencing ever being imported (a fresh interpreter).

The mutants are drawn (seeded) from each case document: a member deleted or
added, an item dropped or repeated, a number nudged, a string edited around
whitespace, a value swapped for one of another type. ``make test`` draws two
per case of every contract the fast path decides (about 4 CPU s); the sweep
(``-m sweep``, ``make test-full``) draws forty per case of every contract
and also reads each case as every other version of its artifact.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Iterator
from enum import Enum
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from rvault_contracts import fast_accept
from rvault_contracts.issues import Issue
from rvault_contracts.schemas import (
    SCHEMA_VIOLATION,
    is_valid,
    registry,
    schema_issues,
    validator,
)
from rvault_contracts.strict_json import json_path

CASES = Path(__file__).resolve().parents[2] / "conformance" / "cases"
Path_ = tuple[str | int, ...]


def _python_jsonschema_issues(artifact: str, version: int, document: Any) -> list[Issue]:
    """What ``schema_issues`` returned before the fast path: python-jsonschema alone."""
    errors = sorted(
        validator(artifact, version).iter_errors(document),
        key=lambda e: (json_path("$", *e.absolute_path), e.validator, e.message),
    )
    return [
        Issue(
            SCHEMA_VIOLATION,
            json_path("$", *e.absolute_path),
            e.message,
            validator=str(e.validator),
        )
        for e in errors
    ]


def _case_documents() -> list[tuple[str, int, Any, bool]]:
    rows = []
    for artifact, entry in sorted(registry().items()):
        for version in sorted(entry.versions):
            path = CASES / artifact / f"v{version}.json"
            for group in json.loads(path.read_text(encoding="utf-8")):
                rows.extend((artifact, version, t["data"], t["valid"]) for t in group["tests"])
    return rows


DOCUMENTS = _case_documents()
PROBE_VALUES: tuple[Any, ...] = (
    None, True, False, 0, -1, 1, 1.5, -0.5, 2**53 + 1, 10**20, 1e308, "", " ", "x",
    "\x1c", "\u00a0a", "a" * 300, "../x", "b" * 64, [], [None], {}, {"zz_unknown": 1},
)  # fmt: skip
SPACES = (" ", "\t", "\n", "\x1c", "\u00a0", "\u2028", "\ufeff")


def _nodes(value: Any, path: Path_ = ()) -> Iterator[tuple[Path_, Any]]:
    yield path, value
    if isinstance(value, dict):
        for key, sub in value.items():
            yield from _nodes(sub, (*path, key))
    elif isinstance(value, list):
        for index, sub in enumerate(value):
            yield from _nodes(sub, (*path, index))


def _replaced(document: Any, path: Path_, new: Any) -> Any:
    """``document`` with the value at ``path`` replaced (copies only along the path)."""
    if not path:
        return new
    head, *rest = path
    copy = dict(document) if isinstance(document, dict) else list(document)
    copy[head] = _replaced(document[head], tuple(rest), new)  # type: ignore[index]
    return copy


def _edited(value: Any, rng: random.Random) -> Any:
    """A small edit of ``value`` that keeps its type where it has one to keep."""
    if isinstance(value, dict) and value and rng.random() < 0.5:
        dropped = rng.choice(sorted(value))
        return {k: v for k, v in value.items() if k != dropped}
    if isinstance(value, dict):
        return {**value, rng.choice(("zz_unknown", *sorted(value), "")): rng.choice(PROBE_VALUES)}
    if isinstance(value, list) and value:
        index = rng.randrange(len(value))
        if rng.random() < 0.5:
            return value[:index] + value[index + 1 :]
        return [*value[: index + 1], value[index], *value[index + 1 :]]
    if isinstance(value, str):
        space = rng.choice(SPACES)
        edits = (value + space, space + value, value.upper(), value[:-1], value + "x", space)
        return rng.choice(edits)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return rng.choice((value + 1, value - 1, -value, value + 0.5, value * 1000, float(value)))
    return rng.choice(PROBE_VALUES)


def _mutants(document: Any, rng: random.Random, count: int) -> list[Any]:
    nodes = list(_nodes(document))
    out = []
    for _ in range(count):
        path, value = rng.choice(nodes)
        new = _edited(value, rng) if rng.random() < 0.7 else rng.choice(PROBE_VALUES)
        out.append(_replaced(document, path, new))
    return out


def _assert_same_reply(artifact: str, version: int, document: Any) -> bool:
    """The new reply equals the old one; returns whether jsonschema-rs accepted."""
    old = _python_jsonschema_issues(artifact, version, document)
    new = schema_issues(artifact, version, document)
    assert [i.to_dict() for i in new] == [i.to_dict() for i in old]
    assert json.dumps([i.to_dict() for i in new]) == json.dumps([i.to_dict() for i in old])
    assert is_valid(artifact, version, document) is (old == [])
    accepted = fast_accept.fast_accepts(artifact, version, document)
    assert not accepted or old == [], "jsonschema-rs accepted what python-jsonschema refuses"
    return accepted


def _agreement(count: int, seed: int, sweep: bool) -> tuple[int, int]:
    """Replies compared on each case, ``count`` mutants of it and, in the sweep,
    the case read as every other version of its artifact and the cases of the
    three contracts python-jsonschema alone decides (their path is unchanged)."""
    rng = random.Random(seed)
    accepted = refused = 0
    for artifact, version, document, _valid in DOCUMENTS:
        if not sweep and fast_accept.fast_validator(artifact, version) is None:
            continue
        candidates = [(version, d) for d in [document, *_mutants(document, rng, count)]]
        if sweep:
            others = [v for v in registry()[artifact].versions if v != version]
            candidates += [(other, document) for other in others]
        for target, candidate in candidates:
            if _assert_same_reply(artifact, target, candidate):
                accepted += 1
            elif fast_accept.fast_validator(artifact, target) is not None:
                refused += 1
    return accepted, refused


def test_every_case_and_its_mutants_get_python_jsonschemas_reply() -> None:
    accepted, refused = _agreement(count=2, seed=32, sweep=False)
    # the draw reaches both sides of the fast path on the contracts it decides
    assert accepted > 300 and refused > 1000, (accepted, refused)


@pytest.mark.sweep
def test_forty_mutants_of_every_case_get_python_jsonschemas_reply() -> None:
    accepted, refused = _agreement(count=40, seed=3232, sweep=True)
    assert accepted > 3000 and refused > 20000, (accepted, refused)


class _Colour(Enum):
    RED = "red"


@pytest.mark.parametrize(
    "odd",
    [(1, 2), _Colour.RED, float("inf"), float("-inf"), float("nan"), {1: "x"}, b"x", {"x"}],
    ids=["tuple", "enum", "inf", "-inf", "nan", "int-key", "bytes", "set"],
)
def test_a_value_json_parsing_never_returns_is_left_to_python_jsonschema(odd: Any) -> None:
    """jsonschema-rs reads a tuple as an array and an Enum member as its value,
    and lets infinity pass a maximum, where python-jsonschema refuses each; a
    document built in Python holding one is judged by python-jsonschema alone."""
    assert not fast_accept.json_shaped({"a": [odd]})
    assert fast_accept.json_shaped({"a": [1, 1.5, "x", True, None, {"b": []}]})
    tuple_schema = {"type": "array", "items": {"type": "array"}}
    assert jsonschema_rs.Draft202012Validator(tuple_schema).is_valid([(1, 2)])  # the reason
    document = {"ok": False, "error": {"code": "x", "message": "y", "path": odd}}
    assert [i.to_dict() for i in schema_issues("cli-failure", 1, document)] == [
        i.to_dict() for i in _python_jsonschema_issues("cli-failure", 1, document)
    ]


_FRESH = """
import json, sys
from rvault_contracts import schemas
rows = json.load(sys.stdin)
replies = [[schemas.schema_issues(a, v, d) == [], schemas.is_valid(a, v, d)] for a, v, d in rows]
loaded = sorted(m for m in ("jsonschema", "referencing") if m in sys.modules)
print(json.dumps({"replies": replies, "loaded": loaded}))
"""


def test_a_valid_document_never_imports_python_jsonschema() -> None:
    """Every valid case document of every contract the fast path decides (71 of
    74 versions, the timing and quality receipts and the worker return among
    them) is accepted in a fresh interpreter that never imports python-jsonschema."""
    rows = [
        (artifact, version, document)
        for artifact, version, document, valid in DOCUMENTS
        if valid and fast_accept.fast_validator(artifact, version) is not None
    ]
    decided = {(artifact, version) for artifact, version, _ in rows}
    assert {("transcript-timing", 2), ("transcript-quality", 2), ("worker-return", 5)} <= decided
    assert {("pattern-catalog-entry", 1), ("queue-claim", 5)} <= decided
    done = subprocess.run(
        [sys.executable, "-c", _FRESH],
        input=json.dumps(rows),
        capture_output=True,
        text=True,
        check=True,
    )
    probe = json.loads(done.stdout)
    assert probe["replies"] == [[True, True]] * len(rows)
    assert probe["loaded"] == []
