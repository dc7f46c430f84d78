"""The fast database decode must agree exactly with the strict decoder.

``decode_artifact_exact`` may only answer for bytes it has proven to be the
artifact encoding of its own parse; everything else falls back to
``loads_strict``, so refusals keep their codes and paths.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rvault_contracts.canonical import artifact_bytes, sha256_bytes
from rvault_contracts.strict_json import MAX_DEPTH, StrictJSONError, json_equal, loads_strict
from rvault_testkit.tracking_db.layouts import LAYOUTS
from rvault_testkit.tracking_db.samples import realistic_database
from rvault_tracking_db.cli import main
from rvault_tracking_db.decoding import (
    NotProven,
    collector_paused,
    decode_artifact_exact,
    decode_database,
    stream_database,
)

text = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=8)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | text
)
documents = st.dictionaries(
    text,
    st.recursive(
        scalars,
        lambda children: (
            st.lists(children, max_size=4) | st.dictionaries(text, children, max_size=4)
        ),
        max_leaves=25,
    ),
    max_size=6,
)


@settings(max_examples=300, deadline=None)
@given(documents)
def test_the_fast_path_answers_only_with_the_strict_value(document: dict) -> None:
    data = artifact_bytes(document)
    fast = decode_artifact_exact(data)
    strict = loads_strict(data)
    if fast is not None:
        assert json_equal(fast, strict)
    assert json_equal(decode_database(data), strict)


float_free = st.dictionaries(
    text,
    st.recursive(
        st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | text,
        lambda c: st.lists(c, max_size=4) | st.dictionaries(text, c, max_size=4),
        max_leaves=25,
    ),
    max_size=6,
)


@settings(max_examples=150, deadline=None)
@given(float_free)
def test_float_free_artifacts_always_take_the_fast_path(document: dict) -> None:
    assert decode_artifact_exact(artifact_bytes(document)) is not None


def _streamed(data: bytes) -> dict | None:
    """What ``stream_database`` proves, talks included; None where it proves nothing."""
    stream = stream_database(data)
    if stream is None:
        return None
    try:
        talks = list(stream.talks)
    except NotProven:
        return None
    return {k: talks if k == "talks" and not v and talks else v for k, v in stream.members.items()}


# What other writers give a document (the testkit's layouts), and one without a final LF.
WRITERS: dict[str, Callable[[Any], bytes]] = {
    **LAYOUTS,
    "tight UTF-8, no final LF": lambda d: json.dumps(
        d, separators=(",", ":"), ensure_ascii=False
    ).encode(),
}


@settings(max_examples=300, deadline=None)
@given(documents, st.lists(documents, max_size=3), st.sampled_from(sorted(WRITERS)))
def test_the_stream_answers_only_with_the_strict_value_in_any_key_order(
    document: dict, talks: list, writer: str
) -> None:
    """Other writers' layouts (keys as written; indented or compact, raw UTF-8 or
    ASCII-escaped) stream with the same proof."""
    document = {**document, "talks": talks}
    for data in (WRITERS[writer](document), artifact_bytes(document)):
        strict = loads_strict(data)
        streamed = _streamed(data)
        if streamed is not None:
            assert json_equal(streamed, strict)
            assert list(streamed) == list(strict)


@settings(max_examples=200, deadline=None)
@given(float_free, st.lists(float_free, max_size=3), st.sampled_from(sorted(WRITERS)))
def test_every_writer_layout_streams_without_floats(
    document: dict, talks: list, writer: str
) -> None:
    """The proof covers these layouts, not only survives them: without floats (whose
    spellings differ between writers) every document streams, whatever its text."""
    document = {**document, "talks": talks}
    streamed = _streamed(WRITERS[writer](document))
    assert streamed is not None and json_equal(streamed, document)


def test_written_order_layouts_stream_and_duplicates_do_not() -> None:
    database = realistic_database(3)
    reordered = {key: database[key] for key in reversed(list(database))}
    reordered["talks"] = [{k: t[k] for k in reversed(list(t))} for t in database["talks"]]
    data = (json.dumps(reordered, indent=2, ensure_ascii=False) + "\n").encode()
    assert decode_artifact_exact(data) is None  # not the artifact encoding: not sorted
    streamed = _streamed(data)
    assert streamed is not None and json_equal(streamed, database)
    assert list(streamed["talks"][0]) == list(reordered["talks"][0])
    for duplicated in (
        _artifact_text('"b": 1|"a": 2|"b": 1'),
        _artifact_text('"b": {\n    "k": 1,\n    "j": 2,\n    "k": 1\n  }'),
    ):
        assert _streamed(duplicated) is None
        with pytest.raises(StrictJSONError) as refused:
            decode_database(duplicated)
        assert refused.value.code == "duplicate_key"


def test_a_realistic_database_takes_the_fast_path() -> None:
    database = realistic_database(3)
    assert json_equal(decode_artifact_exact(artifact_bytes(database)), database)


def _artifact_text(members: str) -> bytes:
    """An object in the artifact layout with hand-written members (one per line)."""
    return ("{\n" + ",\n".join(f"  {m}" for m in members.split("|")) + "\n}\n").encode()


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (_artifact_text('"a": 1|"a": 2'), "duplicate_key"),
        (_artifact_text('"a": {\n    "k": 1,\n    "k": 1\n  }'), "duplicate_key"),
        (_artifact_text('"a": 1e400'), "non_finite_number"),
        (_artifact_text('"a": NaN'), "non_finite_number"),
        (
            _artifact_text('"a": 3.14159265358979323846264338327950288'),
            "number_not_round_trippable",
        ),
        (_artifact_text('"a": "\\ud800"'), "unpaired_surrogate"),
        (b"\xef\xbb\xbf" + _artifact_text('"a": 1'), "utf8_bom"),
        (_artifact_text('"a": "\xff"').replace(b"\xc3\xbf", b"\xff"), "invalid_utf8"),
        (b"[\n  1\n]\n", "root_not_object"),
        (_artifact_text('"a": 1,'), "invalid_json"),
    ],
)
def test_refusals_fall_back_to_the_strict_decoder(data: bytes, code: str) -> None:
    assert decode_artifact_exact(data) is None
    assert _streamed(data) is None
    with pytest.raises(StrictJSONError) as refused:
        decode_database(data)
    with pytest.raises(StrictJSONError) as expected:
        loads_strict(data)
    assert (refused.value.code, refused.value.path) == (expected.value.code, expected.value.path)
    assert refused.value.code == code


@pytest.mark.parametrize(
    "literal",
    ["99999999999999999999999", "-0", "1E2", "1e-05", "0.10", "1.0e0"],
)
def test_values_the_fast_path_cannot_prove_still_decode_exactly(literal: str) -> None:
    """Big integers, -0, and float spellings orjson writes differently are not proven."""
    data = _artifact_text(f'"a": {literal}')
    assert decode_artifact_exact(data) is None
    assert json_equal(decode_database(data), loads_strict(data))


def _nested(depth: int) -> dict:
    value: dict = {}
    for _ in range(depth - 1):
        value = {"n": value}
    return value


@pytest.mark.parametrize("depth", [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1])
def test_nesting_at_the_limit_is_decided_exactly(depth: int) -> None:
    data = json.dumps(_nested(depth), indent=2).encode() + b"\n"
    if depth <= MAX_DEPTH:
        assert json_equal(decode_database(data), _nested(depth))
    else:
        with pytest.raises(StrictJSONError) as refused:
            decode_database(data)
        assert refused.value.code == "nesting_too_deep"
    # the innermost {} of depth d sits at indent 2(d - 1): proven up to the limit
    fast = decode_artifact_exact(data)
    if depth > MAX_DEPTH:
        assert fast is None
    else:
        assert json_equal(fast, _nested(depth))


@pytest.mark.parametrize("depth", [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1])
def test_compact_nesting_at_the_limit_is_decided_exactly(depth: int) -> None:
    """One line shows no depth: a piece with more brackets than levels left is measured
    by its indented form, as a member's value and as a talk."""
    for document in (_nested(depth), {"talks": [{}, _nested(depth - 2)], "n": 1}):
        data = json.dumps(document).encode()
        streamed = _streamed(data)
        if depth <= MAX_DEPTH:
            assert streamed is not None and json_equal(streamed, document)
        else:
            assert streamed is None
            with pytest.raises(StrictJSONError) as refused:
                loads_strict(data)
            assert refused.value.code == "nesting_too_deep"


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ('{"a":1,"a":2}', "duplicate_key"),
        ('{"a": 1, "b": {"k": 1, "k": 1}}', "duplicate_key"),
        ('{"talks":[{"k":1},{"k":1,"k":1}]}', "duplicate_key"),
        ('{"talks": [{"k": 1}, {"k": 1e400}]}', "non_finite_number"),
        ('{"a":NaN}', "non_finite_number"),
        ('{"a": 3.14159265358979323846264338327950288}', "number_not_round_trippable"),
        ('{"talks":["\\ud800"]}', "unpaired_surrogate"),
        ('{"talks":[{"k":1},{"k":1}', "invalid_json"),
        ('{"talks": [{"k": 1}, {"k": 1}]', "invalid_json"),
        ('{"talks":[{"k":1},{"k":1}],}', "invalid_json"),
        ('{"talks":[{"k":1},,{"k":1}]}', "invalid_json"),
        ('{"a":1} {"b":2}', "invalid_json"),
    ],
)
def test_compact_refusals_fall_back_to_the_strict_decoder(text: str, code: str) -> None:
    data = text.encode()
    assert _streamed(data) is None
    with pytest.raises(StrictJSONError) as refused:
        decode_database(data)
    assert refused.value.code == code


def test_compact_layouts_prove_every_piece_by_its_writers_encoding() -> None:
    """Escapes, number spellings and spacing the layout's writer would not produce
    are not proven (the strict decoder reads them); its own spellings are."""
    proven = {
        '{"a":"\\u00e9","talks":[{"k":"\\ud83d\\ude00"}]}': {"a": "é", "talks": [{"k": "😀"}]},
        '{"a": 1.5, "talks": [[], {}, 0, -1, "\\u007f"]}\n': {
            "a": 1.5,
            "talks": [[], {}, 0, -1, "\x7f"],
        },
        '{"a":"é\x7f","talks":[{"é":"\\n\\u0001"}]}': {"a": "é\x7f", "talks": [{"é": "\n\x01"}]},
    }
    for text, value in proven.items():
        assert json_equal(_streamed(text.encode()), value), text
    for text in (
        '{"a":"\\u00E9","talks":[]}',  # json.dumps writes lower-case hex
        '{"a":"é","talks":["\\u00e9"]}',  # a UTF-8 writer writes é raw
        '{"a":1,"talks":[1E2]}',
        '{"a":1, "talks":[1]}',  # mixed separators
        '{"a":1,"talks":[1] }',
        '{"a":1,"talks":[1]}\n\n',
        '{"a":1,"talks":[-0]}',
        '{"a":1,"talks":[99999999999999999999999]}',
    ):
        data = text.encode()
        assert _streamed(data) is None, text
        assert json_equal(decode_database(data), loads_strict(data))


def test_non_artifact_layouts_are_decoded_by_the_strict_decoder() -> None:
    document = {"b": [1, {"c": "é"}], "a": None}
    for data in (
        json.dumps(document).encode(),  # compact, unsorted
        artifact_bytes(document).rstrip(b"\n"),  # no final LF
        artifact_bytes(document) + b"\n",  # extra whitespace
        json.dumps(document, indent=2, sort_keys=True).encode() + b"\n",  # \\u escapes
    ):
        assert decode_artifact_exact(data) is None
        assert json_equal(decode_database(data), document)


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_state_is_restored_even_on_failure(enabled: bool) -> None:
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        with pytest.raises(StrictJSONError), collector_paused():
            assert not gc.isenabled()
            decode_database(b"{")
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()


def _run(capsys: pytest.CaptureFixture[str], *args: object) -> dict:
    capsys.readouterr()
    code = main([str(a) for a in args])
    document = json.loads(capsys.readouterr().out)
    assert code == 0, document
    return document


def test_every_owner_write_stays_on_the_fast_path(tmp_path, capsys) -> None:
    """What this owner writes, it reads back through the proven fast path.

    Guards the fast path against drifting away from the writers (a changed
    encoding would only make reads slow, never wrong, so only a test notices).
    """
    db = tmp_path / "tracking-database.json"
    plan = tmp_path / "plan.json"

    def apply(*mutations: dict) -> None:
        plan.write_bytes(artifact_bytes({"schema_version": 1, "mutations": list(mutations)}))
        expected = _run(capsys, "mutate", db, plan)["input_sha256"] if db.exists() else "missing"
        _run(capsys, "mutate", db, plan, "--apply", "--expected-sha256", expected)
        assert decode_artifact_exact(db.read_bytes()) is not None

    apply({"kind": "initialize_database"})
    apply({"kind": "set_config", "path": ["python_path"], "expect": {"$missing": True},
           "value": "/usr/bin/python3"})  # fmt: skip

    legacy = tmp_path / "legacy" / "tracking-database.json"
    legacy.parent.mkdir()
    schema_zero = {
        "config": {"vault_root": "~/vault", "custom": {"kept": [1, 2.5]}},
        "talks": [{"filename": "2019-01-01-old.md", "transcript_source": "manual"}],
    }
    legacy.write_bytes(artifact_bytes(schema_zero))
    digest = _run(capsys, "migrate", legacy)["input_sha256"]
    _run(capsys, "migrate", legacy, "--apply", "--expected-sha256", digest)
    assert decode_artifact_exact(legacy.read_bytes()) is not None

    vault = tmp_path / "vault"
    vault.mkdir()
    talk = {"schema_version": 5, "filename": "2024-01-01-a.md", "title": "A",
            "status": "pending", "transcript_path": "a.txt"}  # fmt: skip
    (vault / "a.txt").write_text("transcript\n", encoding="utf-8")
    queued = vault / "tracking-database.json"
    queued.write_bytes(artifact_bytes(dict(json.loads(db.read_bytes()), talks=[talk])))
    claim = ("queue", queued, "claim", "--run-id", "r", "--batch-id", "b")
    now = ("--now", "2026-07-31T18:00:00+00:00", "--catalog-fingerprint", "a" * 64)
    digest = sha256_bytes(queued.read_bytes())
    _run(capsys, *claim, *now, "--limit", "1", "--apply", "--expected-sha256", digest)
    assert "_queue_claim" in json.loads(queued.read_bytes())["talks"][0]
    assert decode_artifact_exact(queued.read_bytes()) is not None


def test_members_are_parsed_one_at_a_time_whatever_their_keys_hold() -> None:
    """The member-by-member parse finds each key's closing quote past escapes."""
    document = {
        'a": "b': [{"x": [1, {"y": '",\n    "'}]}, "s", 2],
        "back\\": {'slash\\"': []},
        "talks": [{"n": n, "z": [n, [n]]} for n in range(3)],
        "\u2028": None,
    }
    assert decode_artifact_exact(artifact_bytes(document)) == document
