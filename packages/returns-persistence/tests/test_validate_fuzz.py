"""Untrusted input never crashes the gate: arbitrary replacements anywhere in a valid
return yield a report (possibly with errors), never an exception."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import returns_testdata as td
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rvault_contracts.schemas import schema_issues
from rvault_returns_persistence.database import Database, load_database
from rvault_returns_persistence.validator import validate_batch

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["transcript", "source_comparison", "slides", "narrative-arc"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Database, dict[str, Any]]:
    root = tmp_path_factory.mktemp("fuzz")
    db_path, specs = td.corpus_vault(root)
    return root, load_database(db_path), td.complete_return(specs["main"], root)


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            out += paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value[:3]):
            out += paths(child, (*prefix, index))
    return out


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_mutated_returns_never_crash(vault: Any, data: st.DataObject) -> None:
    root, db, base = vault
    ret = copy.deepcopy(base)
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(paths(ret)[1:]))
        target = ret
        for key in path[:-1]:
            target = target[key]
        if data.draw(st.booleans()) and isinstance(target, dict):
            target.pop(path[-1], None)
        else:
            target[path[-1]] = data.draw(json_values)
    report = validate_batch(
        [ret], db=db, catalog=td.CATALOG, vault_root=root, catalog_label="default"
    )
    assert isinstance(report["ok"], bool)
    for error in report["returns"][0]["errors"]:
        assert error["path"].startswith("$[0]") and error["code"]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_rules_alone_reject_every_schema_violation(vault: Any, data: st.DataObject) -> None:
    """The rule modules are at least as strict as the worker-return v5 schema.

    This is why the validator skips the schema backstop for v5 (start-up budget): any
    schema violation a worker can make is already named by a rule with its own code.
    """
    root, db, base = vault
    ret = copy.deepcopy(base)
    path = data.draw(st.sampled_from(paths(ret)[1:]))
    target = ret
    for key in path[:-1]:
        target = target[key]
    if isinstance(target, dict) and data.draw(st.booleans()):
        del target[path[-1]]
    else:
        target[path[-1]] = data.draw(json_values)
    if not schema_issues("worker-return", 5, ret):
        return
    report = validate_batch(
        [ret], db=db, catalog=td.CATALOG, vault_root=root, catalog_label="default"
    )
    codes = {e["code"] for e in report["returns"][0]["errors"]}
    assert codes - {"schema_violation"}, (path, target[path[-1]], report["returns"][0]["errors"])


def test_nul_bytes_and_mistyped_legacy_lanes_never_crash(vault: Any) -> None:
    """Regression: a NUL byte in any string reached ``os.lstat`` (ValueError), and a
    non-list detection lane of a v1-v3 return broke the scoring-generation verdict."""
    root, db, base = vault
    for path in paths(base)[1:]:
        ret = copy.deepcopy(base)
        target = ret
        for key in path[:-1]:
            target = target[key]
        if not isinstance(target[path[-1]], str):
            continue
        target[path[-1]] = "transcripts/\x00" + target[path[-1]]
        report = validate_batch(
            [ret], db=db, catalog=td.CATALOG, vault_root=root, catalog_label="default"
        )
        assert isinstance(report["ok"], bool)
    for version in (1, 2, 3):
        ret = copy.deepcopy(base)
        ret["return_schema_version"] = version
        ret["pattern_observations"]["patterns_detected"] = 1.5
        report = validate_batch(
            [ret], db=db, catalog=td.CATALOG, vault_root=root, catalog_label="default"
        )
        assert report["ok"] is False
        assert (
            report["returns"][0]["pattern_scoring_generation"]["status"] == "legacy_unbaselineable"
        )
