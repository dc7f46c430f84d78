"""The catalog contract: shipped catalog coverage, loader refusals, fingerprint rule."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest
from rvault_returns_persistence.catalog import (
    MAX_ENTRY_BYTES,
    CatalogError,
    default_catalog_dir,
    fingerprint_files,
    load_catalog,
)
from rvault_returns_persistence.vocabulary import DIMENSIONS


def test_default_catalog_covers_every_kind_of_entry() -> None:
    catalog = load_catalog()
    entries = list(catalog.entries.values())
    assert len(entries) >= 40
    assert {e.type for e in entries} == {"pattern", "antipattern"}
    assert {e.raw["phase"] for e in entries} == {"prepare", "build", "deliver"}
    assert any(e.positive_only for e in entries)
    assert any(e.conditional for e in entries)
    assert any(e.pending_owner_review for e in entries)
    assert any(not e.observable for e in entries)
    assert any(e.comparison_groups for e in entries)
    assert any(e.metadata_fields for e in entries)
    assert any(e.strong_evaluable_from != e.evaluable_from for e in entries if e.evaluable_from)
    assert {"narrative-arc", "progressive-reveal", "shortchanged"} <= set(catalog.entries)
    for entry in entries:
        order = [DIMENSIONS.index(d) for d in entry.dimensions]
        assert order == sorted(order)


def test_gate_defaults() -> None:
    catalog = load_catalog()
    arc = catalog.entries["narrative-arc"]
    assert arc.absence_evaluable_from == arc.evaluable_from  # absent key -> base gate
    assert arc.strong_evaluable_from == (frozenset({"transcript"}),)
    assert catalog.entries["lightsaber"].absence_evaluable_from is None
    assert catalog.entries["lightsaber"].positive_only


def test_fingerprint_is_sha256_over_sorted_framed_files() -> None:
    directory = default_catalog_dir()
    names = sorted((p.name for p in directory.glob("*.json")), key=lambda n: n.encode("utf-8"))
    digest = hashlib.sha256()
    for name in names:
        data = (directory / name).read_bytes()
        digest.update(name.encode() + b"\0" + str(len(data)).encode() + b"\0" + data)
    assert load_catalog().fingerprint == digest.hexdigest()
    assert fingerprint_files([("b.json", b"2"), ("a.json", b"1")]) == fingerprint_files(
        [("a.json", b"1"), ("b.json", b"2")]
    )


@pytest.fixture
def copy_dir(tmp_path: Path) -> Path:
    target = tmp_path / "catalog"
    shutil.copytree(default_catalog_dir(), target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def test_any_byte_change_changes_the_fingerprint(copy_dir: Path) -> None:
    original = load_catalog(copy_dir).fingerprint
    assert original == load_catalog().fingerprint
    path = copy_dir / "coda.json"
    path.write_bytes(path.read_bytes() + b"\n")
    assert load_catalog(copy_dir).fingerprint != original


def _rewrite(directory: Path, name: str, **changes: object) -> None:
    path = directory / name
    data = json.loads(path.read_text(encoding="utf-8"))
    for key, value in changes.items():
        if value is KeyError:
            data.pop(key)
        else:
            data[key] = value
    path.write_text(json.dumps(data), encoding="utf-8")


@pytest.mark.parametrize(
    ("mutate", "code"),
    [
        (lambda d: _rewrite(d, "coda.json", id="bookends"), "catalog_file_name_mismatch"),
        (
            lambda d: _rewrite(d, "coda.json", dimensions=["Closing Pattern", "Opening Pattern"]),
            "catalog_dimension_order",
        ),
        (lambda d: _rewrite(d, "coda.json", type="practice"), "catalog_entry_invalid"),
        (
            lambda d: _rewrite(d, "coda.json", evaluable_from=["source_comparison"]),
            "catalog_entry_invalid",
        ),
        (lambda d: _rewrite(d, "coda.json", evidence_channels=KeyError), "catalog_entry_invalid"),
        (
            lambda d: _rewrite(d, "coda.json", applicability_evaluable_from=KeyError),
            "catalog_entry_invalid",
        ),
        (
            lambda d: _rewrite(d, "carnegie-hall.json", evaluable_from=["transcript"]),
            "catalog_entry_invalid",
        ),
        (
            lambda d: _rewrite(
                d, "slideument.json", source_comparison_groups=[["delivery_video", "transcript"]]
            ),
            "catalog_comparison_group_ungated",
        ),
        (
            lambda d: (d / "coda.json").write_text('{"id": 1, "id": 2}'),
            "catalog_entry_not_strict_json",
        ),
        (lambda d: (d / "README.md").write_text("notes"), "catalog_unexpected_entry"),
        (lambda d: (d / "link.json").symlink_to(d / "coda.json"), "catalog_unexpected_entry"),
        (lambda d: (d / "sub").mkdir(), "catalog_unexpected_entry"),
        (lambda d: os.mkfifo(d / "fifo.json"), "catalog_unexpected_entry"),
        (
            lambda d: (d / "coda.json").write_bytes(b" " * (MAX_ENTRY_BYTES + 1)),
            "catalog_entry_too_large",
        ),
        (lambda d: [p.unlink() for p in d.glob("*.json")], "catalog_empty"),
    ],
)
def test_broken_catalogs_are_refused(copy_dir: Path, mutate, code: str) -> None:  # type: ignore[no-untyped-def]
    mutate(copy_dir)
    with pytest.raises(CatalogError) as refused:
        load_catalog(copy_dir)
    assert refused.value.code == code


def test_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(CatalogError) as refused:
        load_catalog(tmp_path / "absent")
    assert refused.value.code == "catalog_unreadable"
