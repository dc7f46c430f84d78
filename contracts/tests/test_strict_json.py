"""Every strict-JSON rule refuses with its own code; valid documents round-trip."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rvault_contracts import strict_json as sj
from rvault_contracts.canonical import canonical_bytes

REFUSALS = [
    ("invalid UTF-8 byte", b'{"a": "\xff"}', sj.INVALID_UTF8),
    ("overlong UTF-8 encoding", b'{"a": "\xc0\xaf"}', sj.INVALID_UTF8),
    ("byte order mark", b'\xef\xbb\xbf{"a": 1}', sj.UTF8_BOM),
    ("truncated document", b'{"a": 1', sj.INVALID_JSON),
    ("trailing comma", b'{"a": 1,}', sj.INVALID_JSON),
    ("single quotes", b"{'a': 1}", sj.INVALID_JSON),
    ("extra data after the object", b'{"a": 1} {"b": 2}', sj.INVALID_JSON),
    ("raw control character in a string", b'{"a": "x\x01y"}', sj.INVALID_JSON),
    ("empty input", b"", sj.INVALID_JSON),
    ("duplicate key at the root", b'{"a": 1, "a": 1}', sj.DUPLICATE_KEY),
    ("duplicate key deep inside", b'{"a": [{"b": {"c": 1, "c": 2}}]}', sj.DUPLICATE_KEY),
    ("NaN", b'{"a": NaN}', sj.NON_FINITE_NUMBER),
    ("Infinity", b'{"a": Infinity}', sj.NON_FINITE_NUMBER),
    ("-Infinity", b'{"a": -Infinity}', sj.NON_FINITE_NUMBER),
    ("float overflowing to infinity", b'{"a": 1e400}', sj.NON_FINITE_NUMBER),
    ("float losing precision", b'{"a": 0.10000000000000000001}', sj.NUMBER_NOT_ROUND_TRIPPABLE),
    ("float underflowing to zero", b'{"a": 1e-400}', sj.NUMBER_NOT_ROUND_TRIPPABLE),
    (
        "integer literal too long to decode",
        b'{"a": ' + b"9" * 5000 + b"}",
        sj.NUMBER_NOT_ROUND_TRIPPABLE,
    ),
    ("201 nested arrays", b'{"a": ' + b"[" * 200 + b"]" * 200 + b"}", sj.NESTING_TOO_DEEP),
    ("very deep nesting", b"[" * 100_000 + b"]" * 100_000, sj.NESTING_TOO_DEEP),
    ("lone high surrogate", b'{"a": "\\ud800"}', sj.UNPAIRED_SURROGATE),
    ("lone low surrogate in a key", b'{"\\udc00": 1}', sj.UNPAIRED_SURROGATE),
    ("reversed surrogate pair", b'{"a": "\\udc00\\ud800"}', sj.UNPAIRED_SURROGATE),
    ("array root", b"[1, 2]", sj.ROOT_NOT_OBJECT),
    ("string root", b'"text"', sj.ROOT_NOT_OBJECT),
    ("null root", b"null", sj.ROOT_NOT_OBJECT),
]


@pytest.mark.parametrize(("description", "data", "code"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_each_violation_has_its_own_code(description: str, data: bytes, code: str) -> None:
    with pytest.raises(sj.StrictJSONError) as refused:
        sj.loads_strict(data)
    assert refused.value.code == code, description
    assert refused.value.code in sj.ERROR_CODES
    assert refused.value.message


def test_every_error_code_is_exercised() -> None:
    assert {code for _, _, code in REFUSALS} == set(sj.ERROR_CODES)


def test_depth_limit_is_exactly_200_containers() -> None:
    at_limit = b"[" * 199 + b"]" * 199
    document = b'{"a": ' + at_limit + b"}"
    assert isinstance(sj.loads_strict(document), dict)


def test_error_paths_point_at_the_offending_value() -> None:
    with pytest.raises(sj.StrictJSONError) as refused:
        sj.loads_strict(b'{"talks": [{"title": "ok"}, {"title": "\\ud800"}]}')
    assert refused.value.path == '$["talks"][1]["title"]'


@pytest.mark.parametrize(
    "literal",
    [
        b"0.1",
        b"1.0",
        b"-0.0",
        b"1e2",
        b"1.5E-3",
        b"123456789.125",
        b"5e-324",
        b"1.7976931348623157e308",
    ],
)
def test_round_trippable_floats_are_accepted(literal: bytes) -> None:
    value = sj.loads_strict(b'{"a": ' + literal + b"}")["a"]
    assert isinstance(value, float)
    assert math.isfinite(value)


def test_valid_surrogate_pair_decodes_to_one_scalar() -> None:
    assert sj.loads_strict(b'{"mic": "\\ud83c\\udfa4"}') == {"mic": "\U0001f3a4"}


def test_whitespace_around_the_document_is_allowed() -> None:
    assert sj.loads_strict(b' \n\t{"a": [1, 2.5, true, null]}\r\n') == {"a": [1, 2.5, True, None]}


def test_loads_strict_any_accepts_non_object_roots() -> None:
    assert sj.loads_strict_any(b"[1, 2]") == [1, 2]


@pytest.mark.parametrize(
    ("left", "right", "equal"),
    [
        (True, 1, False),
        (1, 1.0, False),
        (True, 1.0, False),
        (0, False, False),
        (None, {}, False),
        ({"a": 1, "b": [1, 2]}, {"b": [1, 2], "a": 1}, True),
        ([1, 2], [2, 1], False),
        ({"$missing": 1}, {"$missing": True}, False),
        ({"a": {"b": [1.5, "x"]}}, {"a": {"b": [1.5, "x"]}}, True),
        ({"a": 1}, {"a": 1, "b": 2}, False),
    ],
)
def test_json_equal_is_exact_type(left: object, right: object, equal: bool) -> None:
    assert sj.json_equal(left, right) is equal
    assert sj.json_equal(right, left) is equal


# --- property tests -------------------------------------------------------

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.characters(exclude_categories=("Cs",)))
)
documents = st.dictionaries(
    st.text(alphabet=st.characters(exclude_categories=("Cs",))),
    st.recursive(
        scalars,
        lambda children: (
            st.lists(children, max_size=4)
            | st.dictionaries(st.text(max_size=5), children, max_size=4)
        ),
        max_leaves=20,
    ),
    max_size=6,
)


@settings(max_examples=150, deadline=None)
@given(documents)
def test_valid_documents_round_trip(document: dict) -> None:
    for encoded in (canonical_bytes(document), json.dumps(document, indent=2).encode()):
        decoded = sj.loads_strict(encoded)
        assert sj.json_equal(decoded, document)
        assert canonical_bytes(decoded) == canonical_bytes(document)


@st.composite
def documents_with_one_violation(draw: st.DrawFn) -> tuple[bytes, str]:
    """A valid document with exactly one injected violation at a random place."""
    document = draw(documents)
    key = draw(st.text(alphabet="abcdefgh", min_size=1, max_size=4))
    while key in document:
        key += "x"
    base = canonical_bytes(document)[1:-1]  # inner members, may be empty
    sep = b"," if base else b""
    kind = draw(
        st.sampled_from(
            ["duplicate", "nan", "infinity", "precision", "depth", "surrogate", "utf8", "root"]
        )
    )
    k = json.dumps(key).encode()
    inject = {
        "duplicate": k + b":1," + k + b":2",
        "nan": k + b":NaN",
        "infinity": k + b":-Infinity",
        "precision": k + b":3.14159265358979323846264338327950288",
        "depth": k + b":" + b"[" * 201 + b"]" * 201,
        "surrogate": k + b':"\\udbff"',
        "utf8": k + b':"\xed\xa0\x80"',
    }
    codes = {
        "duplicate": sj.DUPLICATE_KEY,
        "nan": sj.NON_FINITE_NUMBER,
        "infinity": sj.NON_FINITE_NUMBER,
        "precision": sj.NUMBER_NOT_ROUND_TRIPPABLE,
        "depth": sj.NESTING_TOO_DEEP,
        "surrogate": sj.UNPAIRED_SURROGATE,
        "utf8": sj.INVALID_UTF8,
        "root": sj.ROOT_NOT_OBJECT,
    }
    if kind == "root":
        return b"[" + canonical_bytes(document) + b"]", codes[kind]
    before = draw(st.booleans())
    members = inject[kind] + sep + base if before else base + sep + inject[kind]
    return b"{" + members + b"}", codes[kind]


@settings(max_examples=200, deadline=None)
@given(documents_with_one_violation())
def test_every_injected_violation_is_detected(case: tuple[bytes, str]) -> None:
    data, code = case
    with pytest.raises(sj.StrictJSONError) as refused:
        sj.loads_strict(data)
    assert refused.value.code == code


@pytest.mark.parametrize(
    "text",
    [
        '{"a": "' + "[" * 300 + '"}',
        '{"a": "\\\\\\"' + "{" * 300 + '"}',
        '{"a": "\\n\\"' + "[" * 150 + '", "b": "\\\\", "c": "' + "{" * 150 + '"}',
        '{"' + "[" * 250 + '": ' + "[" * 150 + "]" * 150 + "}",
    ],
)
def test_brackets_inside_strings_do_not_count_as_nesting(text: str) -> None:
    assert isinstance(sj.loads_strict(text.encode()), dict)


def test_deep_nesting_behind_escaped_quotes_is_still_found() -> None:
    text = '{"a": "x\\\\", "b": ' + "[" * 201 + "]" * 201 + "}"
    with pytest.raises(sj.StrictJSONError) as refused:
        sj.loads_strict(text.encode())
    assert refused.value.code == sj.NESTING_TOO_DEEP


@settings(max_examples=150, deadline=None)
@given(documents, st.integers(min_value=1, max_value=230))
def test_fast_depth_check_agrees_with_the_exact_walk(document: dict, depth: int) -> None:
    nested: object = document
    for _ in range(depth):
        nested = [nested]
    data = canonical_bytes({"x": nested})
    exact_depth_exceeded = depth + 1 + _depth(document) > sj.MAX_DEPTH
    assert sj._structure_depth_exceeds(data, sj.MAX_DEPTH) is exact_depth_exceeded


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def test_json_path_notation() -> None:
    assert sj.json_path("$") == "$"
    assert sj.json_path("$", "talks", 0, "filename") == '$["talks"][0]["filename"]'
    assert sj.json_path('$["a"]', 'say "hi"\n', 12) == '$["a"]["say \\"hi\\"\\n"][12]'


@pytest.mark.parametrize(
    ("value", "integer", "number", "nonblank"),
    [
        (1, True, True, False),
        (-0, True, True, False),
        (1.0, False, True, False),
        (True, False, False, False),
        (None, False, False, False),
        ("1", False, False, True),
        (" \t", False, False, False),
        ("", False, False, False),
    ],
)
def test_json_value_predicates(value: object, integer: bool, number: bool, nonblank: bool) -> None:
    assert sj.is_integer(value) is integer
    assert sj.is_number(value) is number
    assert sj.is_nonblank_string(value) is nonblank
