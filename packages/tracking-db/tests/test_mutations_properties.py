"""Property tests: set_config round-trips any strict JSON value exactly, and
expectations use exact-type equality (true, 1 and 1.0 never match each other)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rvault_contracts.canonical import artifact_bytes, sha256_bytes
from rvault_contracts.cli import Refusal
from rvault_testkit.tracking_db.samples import example_database
from rvault_tracking_db.mutations import parse_plan, run_mutation
from rvault_tracking_db.reader import read_database

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12),
)
JSON_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=6),
            inner,
            max_size=4,
        ),
    ),
    max_leaves=12,
).filter(lambda v: v != {"$missing": True})


def _apply(db: Path, mutation: dict[str, Any]) -> dict[str, Any]:
    plan = parse_plan({"schema_version": 1, "mutations": [mutation]})
    sha = sha256_bytes(db.read_bytes())
    return run_mutation(db, plan, apply=True, expected=sha)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=JSON_VALUES)
def test_set_config_round_trips_exactly(value: Any) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "tracking-database.json"
        db.write_bytes(artifact_bytes(example_database()))
        _apply(
            db,
            {
                "kind": "set_config",
                "path": ["custom"],
                "expect": {"$missing": True},
                "value": value,
            },
        )
        stored = read_database(db).database
        assert stored is not None
        assert json.dumps(stored["config"]["custom"], sort_keys=True) == json.dumps(
            value, sort_keys=True
        )
        assert [type(x) for x in _leaves(stored["config"]["custom"])] == [
            type(x) for x in _leaves(value)
        ]


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for key in sorted(value) for leaf in _leaves(value[key])]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


@settings(max_examples=20, deadline=None)
@given(
    pair=st.sampled_from(
        [(True, 1), (1, True), (1, 1.0), (1.0, 1), (0, False), (None, {"$missing": True})]
    )
)
def test_expectations_are_exact_type(pair: tuple[Any, Any]) -> None:
    stored, expected = pair
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "tracking-database.json"
        database = example_database()
        database["config"]["custom"] = stored
        db.write_bytes(artifact_bytes(database))
        before = db.read_bytes()
        inode = db.stat().st_ino
        try:
            _apply(
                db,
                {"kind": "set_config", "path": ["custom"], "expect": expected, "value": "changed"},
            )
        except Refusal as refusal:
            assert refusal.code == "expectation_failed"
        else:
            raise AssertionError(f"{expected!r} must not satisfy a stored {stored!r}")
        assert db.read_bytes() == before and db.stat().st_ino == inode
