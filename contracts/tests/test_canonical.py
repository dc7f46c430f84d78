"""The canonical encoding reproduces the published vectors exactly."""

from __future__ import annotations

import contextlib
import hashlib
import json
from importlib import resources

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rvault_contracts import canonical
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


# --- the orjson path of artifact_bytes ------------------------------------------------

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(alphabet=st.characters(codec="utf-8"), max_size=12)
    | st.sampled_from([1e-05, 1.5e-07, 1e16, 1234567890123456.0, -0.0, 5e-324, "\u2028\x7f\x00"])
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=30,
)


def _stdlib_artifact(value: object) -> bytes:
    text = json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False)
    return (text + "\n").encode("utf-8")


@settings(max_examples=400, deadline=None)
@given(_VALUES)
def test_orjson_path_writes_the_standard_librarys_bytes_or_its_error(value: object) -> None:
    """Every value: the same bytes as the standard library, or the same exception type."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(canonical, "ORJSON_MIN_BYTES", 0)
        try:
            expected: bytes | type[BaseException] = _stdlib_artifact(value)
        except (ValueError, TypeError, UnicodeEncodeError) as exc:
            expected = type(exc)
        if isinstance(expected, bytes):
            assert canonical.artifact_bytes(value) == expected
        else:
            with pytest.raises(expected):
                canonical.artifact_bytes(value)


@pytest.mark.parametrize(
    ("value", "taken"),
    [
        ({"b": [1, {"c": "é"}], "a": None, "e": {}, "f": []}, True),
        ({"t": 0.00001}, False),  # orjson spells it 0.00001, the standard library 1e-05
        ({"n": 2**64}, False),  # beyond orjson's integers
        ({"x": float("nan")}, False),  # orjson would write null; the standard library refuses
        ({1: "non-string key"}, False),
    ],
)
def test_orjson_path_is_taken_only_when_proven(value: dict, taken: bool) -> None:
    compact = b""
    with contextlib.suppress(ValueError):
        compact = canonical_bytes(value)
    assert (canonical._orjson_artifact(value, compact) is not None) is taken


def test_large_documents_take_the_orjson_path_small_ones_do_not() -> None:
    """The threshold: a document of ORJSON_MIN_BYTES or more is written by orjson."""
    talk = {"filename": "t", "notes": "x" * 1000, "scores": [1, 2, 3], "ratio": 0.25}
    large = {"talks": [dict(talk, filename=f"t{i}") for i in range(1100)]}
    small = {"talks": large["talks"][:10]}
    assert len(canonical_bytes(large)) >= canonical.ORJSON_MIN_BYTES > len(canonical_bytes(small))
    calls: list[int] = []
    original = canonical._orjson_artifact

    def counting(value: object, compact: bytes) -> bytes | None:
        calls.append(len(compact))
        return original(value, compact)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(canonical, "_orjson_artifact", counting)
        assert canonical.artifact_bytes(small) == _stdlib_artifact(small)
        assert calls == []
        assert canonical.artifact_bytes(large) == _stdlib_artifact(large)
        assert calls == [len(canonical_bytes(large))]
