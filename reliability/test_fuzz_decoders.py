"""Fuzzing every decoder and validator that takes outside input.

Property, for each target: an input either decodes to a value that
re-encodes (canonically) and decodes again to the same value, or is refused
with a stable code the owner spells out in its source, never an uncaught
exception and never more than ``PER_INPUT_SECONDS`` of CPU for one input. Inputs are
raw bytes, grammar-shaped documents, and (for validators) random edits of a
real artifact produced by the owner tool, so the fuzzer gets past the first
check. The default run uses the ``reliability`` hypothesis profile (150
inputs per target, derandomized); ``RVAULT_SOAK=1`` uses 5000 random ones.
"""

from __future__ import annotations

import ast
import json
import os
import re
import time
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import _vault
import pytest
from _harness import SOAK, command
from hypothesis import given, settings
from hypothesis import strategies as st
from rvault_contracts.canonical import artifact_bytes
from rvault_contracts.cli import Refusal
from rvault_contracts.strict_json import (
    ERROR_CODES,
    StrictJSONError,
    json_equal,
    loads_strict,
    loads_strict_any,
)

settings.load_profile("reliability-soak" if SOAK else "reliability")

ROOT = Path(__file__).resolve().parent.parent
PER_INPUT_SECONDS = 2.0
FIGURES: dict[str, dict[str, Any]] = {}


@cache
def documented_codes(package: str) -> frozenset[str]:
    """Every snake_case string literal in an owner's source and in contracts.

    An owner's stable codes live in its source, and the codes every owner
    shares (``schema_violation`` of ``rvault_contracts.schemas``, the strict
    JSON and writer codes) in ``contracts/src``.
    """
    codes: set[str] = set()
    sources = [*(ROOT / package).rglob("*.py"), *(ROOT / "contracts" / "src").rglob("*.py")]
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text())):
            value = node.value if isinstance(node, ast.Constant) else None
            if isinstance(value, str) and re.fullmatch(r"[a-z][a-z0-9_]*", value):
                codes.add(value)
    return frozenset(codes)


def timed(target: str, fn: Callable[[], str]) -> None:
    """Run one input; record its outcome and time, and bound the time.

    The bound is on this process's CPU time, not wall time: it is there to
    catch an input that makes a decoder spin (a backtracking pattern, a
    quadratic scan), and on a loaded two-core machine wall time mostly
    measures waiting for a core (one input read 2.38 s at load 10).
    """
    started = time.process_time()
    outcome = fn()
    elapsed = time.process_time() - started
    entry = FIGURES.setdefault(target, {"inputs": 0, "outcomes": {}, "max_seconds": 0.0})
    entry["inputs"] += 1
    entry["outcomes"][outcome] = entry["outcomes"].get(outcome, 0) + 1
    entry["max_seconds"] = max(entry["max_seconds"], round(elapsed, 4))
    assert elapsed < PER_INPUT_SECONDS, f"{target}: one input took {elapsed:.2f} s"


@pytest.fixture(scope="module", autouse=True)
def _write_figures() -> Iterator[None]:
    yield
    report_dir = os.environ.get("RVAULT_RELIABILITY_REPORT")
    if report_dir and FIGURES:
        Path(report_dir).mkdir(parents=True, exist_ok=True)
        (Path(report_dir) / f"fuzz-{os.getpid()}.json").write_text(
            json.dumps(FIGURES, indent=2, sort_keys=True)
        )


# --------------------------------------------------------------------------- strategies

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=30,
)
NASTY_FRAGMENTS = [
    b"NaN",
    b"Infinity",
    b"-Infinity",
    b"1e400",
    b"0.1000000000000000055511151231257827",
    b'"\\ud800"',
    b'"\\udc00\\ud800"',
    b"\xef\xbb\xbf",
    b"\xff\xfe",
    b'{"a":1,"a":2}',
    b"[" * 300 + b"]" * 300,
    b'{"a":' * 250 + b"1" + b"}" * 250,
    b"12345678901234567890123456789",
    b"-0",
    b"1.0e-400",
    b'"\x00"',
    b"\x00",
    b"//",
    b"/*",
    b"'a'",
    b"[1,]",
    b"{,}",
]


@st.composite
def json_bytes(draw: st.DrawFn) -> bytes:
    """A JSON text with random formatting, sometimes broken by a spliced fragment."""
    value = draw(json_values)
    text = json.dumps(
        value, indent=draw(st.sampled_from([None, 0, 2])), ensure_ascii=draw(st.booleans())
    )
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        at = draw(st.integers(0, len(data)))
        fragment = draw(st.sampled_from(NASTY_FRAGMENTS) | st.binary(max_size=8))
        data = data[:at] + fragment + data[at + draw(st.integers(0, 3)) :]
    return data


any_bytes = st.one_of(st.binary(max_size=512), json_bytes(), st.sampled_from(NASTY_FRAGMENTS))


def _paths(node: Any, path: list[Any]) -> Iterator[list[Any]]:
    yield path
    if isinstance(node, dict):
        for key, child in node.items():
            yield from _paths(child, [*path, key])
    elif isinstance(node, list):
        for index, child in enumerate(node):
            yield from _paths(child, [*path, index])


@st.composite
def edited(draw: st.DrawFn, document: Any) -> Any:
    """``document`` with a few random edits: drop, replace or retype a subtree."""
    doc = json.loads(json.dumps(document))
    for _ in range(draw(st.integers(1, 4))):
        paths = list(_paths(doc, []))
        path = draw(st.sampled_from(paths))
        if not path:
            if draw(st.integers(0, 9)) == 0:
                doc = draw(json_values)
            continue
        parent = doc
        for step in path[:-1]:
            parent = parent[step]
        op = draw(st.sampled_from(["drop", "replace", "replace", "string", "number", "duplicate"]))
        last = path[-1]
        if op == "drop":
            del parent[last]
        elif op == "replace":
            parent[last] = draw(json_values)
        elif op == "string":
            parent[last] = draw(
                st.sampled_from(["", "../../etc/passwd", "/abs", "C:\\x", "\x00", "a" * 300])
            )
        elif op == "number":
            parent[last] = draw(st.sampled_from([-1, 0, 2**63, 1.5, -0.0, 1e308, True]))
        elif isinstance(parent, list):
            parent.append(parent[last])
    return doc


def reencodes(value: Any) -> bool:
    return json_equal(loads_strict_any(artifact_bytes(value)), value)


# --------------------------------------------------------------------------- strict JSON


@given(any_bytes)
def test_fuzz_strict_json(data: bytes) -> None:
    def one() -> str:
        try:
            value = loads_strict_any(data)
        except StrictJSONError as exc:
            assert exc.code in ERROR_CODES, exc.code
            return exc.code
        assert reencodes(value)
        return "decoded"

    timed("strict_json.loads_strict_any", one)


# --------------------------------------------------------------------------- mutation plans

plan_items = st.fixed_dictionaries(
    {
        "kind": st.sampled_from(
            [
                "initialize_database",
                "set_config",
                "record_pptx",
                "record_qr",
                "apply_reviewed_metadata",
                "no_such_kind",
            ]
        )
    },
    optional={
        "path": st.lists(st.one_of(st.text(max_size=6), st.integers(-2, 3)), max_size=4),
        "expect": st.one_of(json_values, st.just({"$missing": True})),
        "value": json_values,
        "delete": st.booleans(),
        "config": json_values,
        "record": json_values,
        "filename": st.text(max_size=20),
        "fields": json_values,
    },
)
plans = st.fixed_dictionaries(
    {
        "schema_version": st.one_of(st.just(1), st.just(1), st.just(1), json_scalars),
        "mutations": st.lists(plan_items, max_size=3),
    }
)


@given(st.one_of(plans.map(lambda p: json.dumps(p).encode()), any_bytes))
def test_fuzz_mutation_plan_decoder(data: bytes) -> None:
    from rvault_tracking_db.mutations.plan import decode_plan

    def one() -> str:
        try:
            plan = decode_plan(data)
        except Refusal as exc:
            assert exc.code in documented_codes("packages/tracking-db/src") | ERROR_CODES, exc.code
            return exc.code
        assert decode_plan(artifact_bytes(loads_strict(data))) == plan
        return "decoded"

    timed("tracking-db decode_plan", one)


# --------------------------------------------------------------------------- VTT


timestamps = st.one_of(
    st.builds(
        lambda h, m, s, ms: f"{h:02d}:{m:02d}:{s:02d}.{ms:03d}",
        st.integers(0, 2),
        st.integers(0, 61),
        st.integers(0, 61),
        st.integers(0, 1000),
    ),
    st.builds(
        lambda m, s, ms: f"{m:02d}:{s:02d}.{ms:03d}",
        st.integers(0, 60),
        st.integers(0, 60),
        st.integers(0, 999),
    ),
    st.sampled_from(["00:00:00,000", "99:99:99.999", "-00:00:01.000", "00:00.0", ""]),
)
cue_text = st.lists(
    st.one_of(
        st.text(max_size=30),
        st.sampled_from(
            ["<c>hi</c>", "<v Speaker>so</v>", "&amp; &lt;", "<00:00:01.000>word", "-->", "NOTE x"]
        ),
    ),
    min_size=0,
    max_size=3,
)
cues = st.lists(
    st.builds(
        lambda a, b, settings_, lines: f"{a} --> {b}{settings_}\n" + "\n".join(lines),
        timestamps,
        timestamps,
        st.sampled_from(["", " align:start position:0%", " line:90%"]),
        cue_text,
    ),
    max_size=8,
)
vtt_texts = st.one_of(
    st.builds(
        lambda header, blocks, sep: header + sep + sep.join(blocks) + "\n",
        st.sampled_from(
            ["WEBVTT", "WEBVTT\nKind: captions\nLanguage: en", "\ufeffWEBVTT", "WEBVTTX", ""]
        ),
        cues,
        st.sampled_from(["\n\n", "\r\n\r\n", "\n"]),
    ),
    st.text(max_size=300),
)


@given(vtt_texts)
def test_fuzz_vtt_parser(text: str) -> None:
    from rvault_transcript.vtt import VttError, vtt_to_segments

    def one() -> str:
        try:
            segments = vtt_to_segments(text)
        except VttError as exc:
            assert exc.code in documented_codes("packages/transcript/src"), exc.code
            return exc.code
        assert segments and vtt_to_segments(text) == segments
        for segment in segments:
            assert 0 <= segment.start_seconds <= segment.end_seconds
        return "decoded"

    timed("transcript vtt_to_segments", one)


# --------------------------------------------------------------------------- shownotes frontmatter

yaml_lines = st.lists(
    st.one_of(
        st.builds(
            lambda k, v: f"{k}: {v}",
            st.text("abcdefgh_", min_size=1, max_size=8),
            st.text(max_size=20),
        ),
        st.sampled_from(
            [
                "a: &a [1, 2, 3]",
                "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]",
                "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]",
                "d: [*c, *c, *c, *c, *c, *c, *c, *c, *c]",
                "date: 2024-13-45",
                "when: 2024-01-01T10:00:00",
                "x: !!python/object/apply:os.system ['true']",
                "y: !!binary aGVsbG8=",
                "z: .nan",
                "- list item",
                "k: {a: [1, {b: 2}]}",
                "? complex key",
                "n: 0x1F",
                "big: 1e999",
            ]
        ),
    ),
    max_size=8,
)
frontmatter_texts = st.one_of(
    st.builds(
        lambda lines, body: "---\n" + "\n".join(lines) + "\n---\n" + body,
        yaml_lines,
        st.text(max_size=40),
    ),
    st.builds(lambda v: "---json\n" + json.dumps(v) + "\n---\n", json_values),
    st.builds(lambda v: json.dumps(v) + "\nbody", json_values),
    st.builds(
        lambda k, v: f'+++\n{k} = "{v}"\n+++\n',
        st.text("abc", min_size=1, max_size=4),
        st.text(max_size=10),
    ),
    st.sampled_from(
        ["+++\n" + "a = [" * 400 + "]" * 400 + "\n+++\n", "---\n" + "[" * 5000 + "\n---\n"]
    ),
    st.text(max_size=200),
)


@given(frontmatter_texts)
def test_fuzz_shownotes_frontmatter(text: str) -> None:
    from rvault_tracking_db.shownotes.frontmatter import parse

    def one() -> str:
        parsed = parse(text)
        assert isinstance(parsed.data, dict)
        assert reencodes(parsed.data)
        return "refused" if parsed.error else "decoded"

    timed("tracking-db shownotes frontmatter", one)


# --------------------------------------------------------------------------- real artifacts


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = _vault.build(tmp_path_factory.mktemp("fuzz") / "vault")
    fingerprint = _vault.ok(command("rvault-returns", "catalog"))["fingerprint"]
    _vault.apply_db(
        "queue",
        root / _vault.DB,
        "claim",
        "--run-id",
        "fuzz",
        "--batch-id",
        "1",
        "--now",
        "2026-11-30T12:00:00+00:00",
        "--talk",
        _vault.TALK,
        "--catalog-fingerprint",
        fingerprint,
    )
    return root


def _given_edits(document: Any, check: Callable[[Any], None], share: float = 1.0) -> None:
    """Fuzz ``check`` with edits of ``document``; ``share`` scales the profile's inputs."""
    examples = max(10, int(settings().max_examples * share))

    @settings(max_examples=examples)
    @given(edited(document))
    def run(doc: Any) -> None:
        check(doc)

    run()


def test_fuzz_transcript_receipts(vault: Path) -> None:
    from rvault_transcript.receipts import ReceiptError, validate_quality, validate_timing

    transcripts = vault / "transcripts"
    transcript = (transcripts / f"{_vault.VIDEO_ID}.txt").read_bytes()
    codes = documented_codes("packages/transcript/src")
    for name, validate in (("segments", validate_timing), ("quality", validate_quality)):
        real = json.loads((transcripts / f"{_vault.VIDEO_ID}.{name}.json").read_bytes())
        validate(real, transcript)  # the real receipt is valid

        def check(doc: Any, validate: Callable[..., Any] = validate, name: str = name) -> None:
            def one() -> str:
                try:
                    validate(doc, transcript)
                except ReceiptError as exc:
                    assert exc.code in codes, exc.code
                    return exc.code
                assert reencodes(doc)
                return "valid"

            timed(f"transcript validate_{name}", one)

        _given_edits(real, check)


def test_fuzz_video_manifest_validator(vault: Path) -> None:
    from rvault_video_extraction.api import read_manifest, validate_manifest

    workdir = vault / "slides-rebuild" / _vault.VIDEO_ID
    path = workdir / f"{_vault.VIDEO_ID}.video-extraction.json"
    real = json.loads(path.read_bytes())
    assert (
        validate_manifest(real, vault_root=vault, expected_video_id=_vault.VIDEO_ID).status
        == "current"
    )
    codes = documented_codes("packages/video-extraction/src") | ERROR_CODES
    scratch = vault.parent / "fuzzed-manifest.json"

    def check(doc: Any) -> None:
        def one() -> str:
            report = validate_manifest(doc, vault_root=vault, expected_video_id=_vault.VIDEO_ID)
            for issue in report.issues:
                assert issue.code in codes, issue.code
            scratch.write_bytes(artifact_bytes(doc))
            again = read_manifest(scratch, vault_root=vault, expected_video_id=_vault.VIDEO_ID)
            assert again.status == report.status
            return report.status

        timed("video-extraction validate_manifest", one)

    _given_edits(real, check)

    @given(any_bytes)
    def raw(data: bytes) -> None:
        def one() -> str:
            scratch.write_bytes(data)
            report = read_manifest(scratch, vault_root=vault)
            for issue in report.issues:
                assert issue.code in codes, issue.code
            return report.status

        timed("video-extraction read_manifest (bytes)", one)

    raw()


def test_fuzz_return_validator(tmp_path_factory: pytest.TempPathFactory) -> None:
    from jsonschema import Draft202012Validator
    from rvault_contracts.schemas import load_schema
    from rvault_returns_persistence.api import validate_returns

    # A real claimed batch with completed returns that pass (the conformance producers).
    vault = _vault.returns_vault(tmp_path_factory.mktemp("returns") / "vault", persisted=False)
    returns = json.loads((vault.parent / "returns.json").read_bytes())
    first = validate_returns(returns, database_path=vault / _vault.DB, vault_root=vault)
    assert first.get("ok") is True, first
    schema = Draft202012Validator(load_schema("returns-validation-report", 1))
    codes = documented_codes("packages/returns-persistence/src")

    def check(doc: Any) -> None:
        def one() -> str:
            try:
                report = validate_returns(doc, database_path=vault / _vault.DB, vault_root=vault)
            except Refusal as exc:  # a batch of the wrong shape: the command's exit-2 refusal
                assert exc.code in codes, exc.code
                return exc.code
            errors = list(schema.iter_errors(report))
            assert not errors, errors[0].message
            assert reencodes(report)
            return "valid" if report.get("ok") else "refused"

        timed("returns-persistence validate_returns", one)

    # ~0.1 s per input (database and catalog are read each time): a third of the inputs.
    _given_edits(returns, check, share=0.3)
