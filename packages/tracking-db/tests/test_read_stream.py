"""``rvault-db read`` keeps no decoded tree, yet reads exactly like every other command.

``verify_database`` decodes and assesses the talks one at a time and composes
the owner's ``assess_database`` around them; ``read_database`` (what every
other command uses) decodes the whole document and assesses it at once.
Both must agree on every vault: the same findings in the same order (so the
same warnings and the same first refusal), and a layout the stream cannot
prove goes the whole way.
"""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _db_helpers as h
import _stream_cases as sc
from rvault_contracts.canonical import artifact_bytes
from rvault_testkit.tracking_db.layouts import COMPACT, LAYOUTS
from rvault_testkit.tracking_db.samples import example_database, example_talk, realistic_database
from rvault_tracking_db import verified_read
from rvault_tracking_db.commands.read import report_chunks
from rvault_tracking_db.reader import DatabaseRefusal, read_database


def _talks(database: dict[str, Any], count: int = 3) -> dict[str, Any]:
    """The example database with ``count`` distinct talks (the stream has several to walk),
    one titled in more than ASCII (so UTF-8 and ASCII-escaping writers differ)."""
    first = database["talks"][0]
    database["talks"] = [
        {**copy.deepcopy(first), "filename": f"2024-0{i + 1}-01-talk-{i}.md"} for i in range(count)
    ]
    database["talks"][1]["title"] = "Über Café-Sprache 🎤"
    return database


def _bad_ledger(d: dict[str, Any]) -> None:
    d["talks"][1] = {**example_talk(outcomes=12), "filename": "ledger.md"}
    d["talks"][1]["pattern_observations"]["pattern_outcomes"][0]["outcome"] = "bogus"


MUTATORS: dict[str, Callable[[dict[str, Any]], object]] = {
    "valid": lambda d: None,
    "claimed example (deep claim check)": lambda d: d.update(example_database()),
    "ledger warning in the middle": _bad_ledger,
    "duplicate filename": lambda d: d["talks"][2].update(filename=d["talks"][0]["filename"]),
    "future talk version": lambda d: d["talks"][1].update(schema_version=6),
    "talk not an object": lambda d: d["talks"].insert(1, 7),
    "talk and record findings in order": lambda d: (
        d["talks"][2].update(schema_version=9),
        d["pptx_catalog"][0].update(schema_version=3),
        d["qr_codes"][0].update(schema_version=3),
    ),
    "records not an array": lambda d: d.update(resources={"a": 1}),
    "talks not an array": lambda d: d.update(talks={"a": 1}),
    "no talks": lambda d: d.update(talks=[]),
    "unknown root member": lambda d: d.update(zzz_extra=1),
    "missing root member": lambda d: d.pop("thumbnails"),
    "future root": lambda d: d.update(schema_version=2),
    "future config": lambda d: d["config"].update(schema_version=3),
    "legacy root": lambda d: d.pop("schema_version"),
    "config finding and talk finding": lambda d: (
        d["config"].update(schema_version=3),
        d["talks"][0].update(schema_version=6),
    ),
}


def _outcome(read: Callable[[Path], Any], db: Path) -> tuple[str, Any]:
    try:
        result = read(db)
    except DatabaseRefusal as refusal:
        return "refused", refusal.to_dict()
    return "read", (result.assessment, b"".join(report_chunks(result)))


def _spy_whole_reads(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """The bytes the read decoded whole from now on."""
    return sc.spy_calls(monkeypatch, verified_read, "decode_and_assess")


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("name", sorted(MUTATORS))
def test_the_streamed_read_agrees_with_the_whole_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, layout: str
) -> None:
    database = _talks(example_database(claimed=False))
    MUTATORS[name](database)
    db = tmp_path / h.DB_NAME
    db.write_bytes(LAYOUTS[layout](database))
    whole_reads = _spy_whole_reads(monkeypatch)
    streamed = _outcome(verified_read.verify_database, db)
    assert streamed == _outcome(read_database, db)
    assert whole_reads == []  # every one of these went talk by talk
    if name in ("valid", "claimed example (deep claim check)", "legacy root"):
        assert streamed[0] == "read"
    if name == "ledger warning in the middle":
        assert streamed[0] == "read"
        assert {w.code for w in streamed[1][0].warnings} == {"ledger_schema_violation"}
    if name == "talk and record findings in order":
        assert streamed[1]["error"]["path"] == '$["talks"][2]["schema_version"]'


def test_a_realistic_vault_reads_talk_by_talk_with_the_same_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = h.write_db(tmp_path, realistic_database(40, outcomes=6))
    whole_reads = _spy_whole_reads(monkeypatch)
    verified = verified_read.verify_database(db)
    assert whole_reads == []
    result = read_database(db)
    assert verified.assessment == result.assessment
    assert b"".join(report_chunks(verified)) == artifact_bytes(result.report())


def test_a_talk_not_in_its_own_encoding_is_read_the_whole_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The second talk's key order is not the encoding's: the stream stops
    # there and the strict decoder reads the file, with the same answer.
    database = _talks(example_database(claimed=False))
    data = artifact_bytes(database)
    first_key = b'      "_comment_queryable_scalars"'
    second = data.index(first_key, data.index(first_key) + 1)
    data = data[:second] + b'      "zz": 1E2,\n' + data[second:]  # orjson spells 100.0
    db = tmp_path / h.DB_NAME
    db.write_bytes(data)
    whole_reads = _spy_whole_reads(monkeypatch)
    streamed = _outcome(verified_read.verify_database, db)
    assert whole_reads == [data]
    assert streamed == _outcome(read_database, db)
    assert streamed[0] == "read"


def test_a_duplicate_key_inside_a_talk_is_the_strict_decoder_refusal(tmp_path: Path) -> None:
    database = _talks(example_database(claimed=False))
    data = artifact_bytes(database)
    line = b'      "conference": '
    at = data.index(line, data.index(line) + 1)
    data = data[:at] + line + b'"again",\n' + data[at:]
    db = tmp_path / h.DB_NAME
    db.write_bytes(data)
    streamed = _outcome(verified_read.verify_database, db)
    assert streamed == _outcome(read_database, db)
    assert streamed[1]["error"]["code"] == "duplicate_key"


def test_a_vault_in_the_peers_layout_reads_talk_by_talk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The public peer writes ``json.dumps(db, indent=2, ensure_ascii=False) + "\\n"`` with keys
    in the order it set them: not the artifact encoding (unsorted), yet every piece is its own
    encoding in that order, so the read streams it and reports its exact bytes."""
    database = realistic_database(12, outcomes=4)
    database["talks"][5]["schema_version"] = 9  # a finding in the middle
    reordered = {key: database[key] for key in reversed(list(database))}
    reordered["talks"] = [{k: t[k] for k in reversed(list(t))} for t in database["talks"]]
    db = tmp_path / h.DB_NAME
    db.write_bytes((json.dumps(reordered, indent=2, ensure_ascii=False) + "\n").encode())
    whole_reads = _spy_whole_reads(monkeypatch)
    streamed = _outcome(verified_read.verify_database, db)
    assert whole_reads == []
    assert streamed == _outcome(read_database, db)
    assert streamed[1]["error"]["path"] == '$["talks"][5]["schema_version"]'
    del database["talks"][5]["schema_version"], reordered["talks"][5]["schema_version"]
    for talk in (database["talks"][5], reordered["talks"][5]):
        talk["schema_version"] = 5
    db.write_bytes((json.dumps(reordered, indent=2, ensure_ascii=False) + "\n").encode())
    verified = verified_read.verify_database(db)
    assert whole_reads == []
    chunks = b"".join(report_chunks(verified))
    first_key = next(iter(reordered))
    assert chunks.startswith(f'{{\n  "database": {{\n    "{first_key}"'.encode())  # as written
    assert json.loads(chunks)["database"] == database


def _compact_with(layout: str, insert: Callable[[bytes, bytes, bytes], bytes]) -> bytes:
    """The three-talk vault in a compact layout, edited by ``insert(data, key_sep, sep)``."""
    data = LAYOUTS[layout](_talks(example_database(claimed=False)))
    spaced = layout in ("json.dumps", "json.dumps UTF-8")
    return insert(data, b": " if spaced else b":", b", " if spaced else b",")


def _in_second_talk(member: bytes) -> Callable[[bytes, bytes, bytes], bytes]:
    """Put ``member`` (``%k`` the key separator) before the second talk's conference."""

    def insert(data: bytes, key_sep: bytes, sep: bytes) -> bytes:
        at = data.index(b'"conference"', data.index(b'"conference"') + 1)
        return data[:at] + member.replace(b"%k", key_sep) + sep + data[at:]

    return insert


REFUSED_COMPACT: dict[str, tuple[Callable[[bytes, bytes, bytes], bytes], str]] = {
    "duplicate key in a talk": (_in_second_talk(b'"conference"%k"again"'), "duplicate_key"),
    "truncated in a talk": (lambda data, _k, _s: data[: len(data) * 2 // 3], "invalid_json"),
    "truncated at the end": (lambda data, _k, _s: data.rstrip(b"\n")[:-1], "invalid_json"),
    "a talk not its own encoding": (_in_second_talk(b'"zz"%k1E2'), ""),
}


@pytest.mark.parametrize("layout", COMPACT)
@pytest.mark.parametrize("name", sorted(REFUSED_COMPACT))
def test_a_compact_vault_the_stream_cannot_prove_is_read_the_whole_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, layout: str
) -> None:
    """One line, the stream stops at the first piece that is not its own encoding and
    the strict decoder reads the file: the same refusal (or the same report)."""
    insert, code = REFUSED_COMPACT[name]
    data = _compact_with(layout, insert)
    db = tmp_path / h.DB_NAME
    db.write_bytes(data)
    whole_reads = _spy_whole_reads(monkeypatch)
    streamed = _outcome(verified_read.verify_database, db)
    assert whole_reads == [data]
    assert streamed == _outcome(read_database, db)
    if code:
        assert streamed[1]["error"]["code"] == code
    else:
        assert streamed[0] == "read"


@pytest.mark.parametrize("layout", COMPACT)
def test_a_realistic_compact_vault_reads_talk_by_talk_with_the_same_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str
) -> None:
    database = sc.realistic_vault_database()
    db = tmp_path / h.DB_NAME
    db.write_bytes(LAYOUTS[layout](database))
    whole_reads = _spy_whole_reads(monkeypatch)
    verified = verified_read.verify_database(db)
    assert whole_reads == []
    result = read_database(db)
    assert verified.assessment == result.assessment
    assert b"".join(report_chunks(verified)) == b"".join(report_chunks(result))
    assert json.loads(b"".join(report_chunks(verified)))["database"] == database
