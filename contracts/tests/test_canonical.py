"""The canonical encoding reproduces the published vectors exactly."""

from __future__ import annotations

import hashlib
import json
from importlib import resources

import pytest
from rvault_contracts.canonical import (
    artifact_bytes,
    canonical_bytes,
    file_sha256,
    is_sha256_hex,
    payload_sha256,
    sha256_bytes,
)
from rvault_contracts.schemas import is_valid
from rvault_contracts.strict_json import loads_strict

VECTORS = loads_strict(
    (resources.files("rvault_contracts") / "vectors" / "canonical-v1.json").read_bytes()
)


def test_vector_file_matches_its_schema() -> None:
    assert is_valid("canonical-vectors", 1, VECTORS)


@pytest.mark.parametrize("vector", VECTORS["vectors"], ids=lambda v: v["description"])
def test_vectors_reproduce(vector: dict) -> None:
    encoded = canonical_bytes(vector["value"])
    assert encoded == vector["canonical_utf8"].encode("utf-8")
    assert sha256_bytes(encoded) == vector["sha256"]
    assert payload_sha256(vector["value"]) == vector["sha256"]


def test_canonical_refuses_non_finite_numbers() -> None:
    with pytest.raises(ValueError):
        canonical_bytes({"a": float("nan")})


def test_artifact_bytes_are_sorted_indented_and_end_with_lf() -> None:
    data = artifact_bytes({"b": 1, "a": "é"})
    assert data == '{\n  "a": "é",\n  "b": 1\n}\n'.encode()
    assert b"\r" not in data
    assert json.loads(data) == {"a": "é", "b": 1}


def test_file_digest_is_over_raw_bytes(tmp_path) -> None:
    path = tmp_path / "x.txt"
    path.write_bytes(b"line\r\n")
    assert file_sha256(path) == hashlib.sha256(b"line\r\n").hexdigest()
    assert file_sha256(path) != sha256_bytes(b"line\n")


@pytest.mark.parametrize(
    ("value", "ok"),
    [("a" * 64, True), ("A" * 64, False), ("a" * 63, False), (1, False), ("g" * 64, False)],
)
def test_is_sha256_hex(value: object, ok: bool) -> None:
    assert is_sha256_hex(value) is ok
