"""The spliced encoding equals the owner encoding of the whole candidate, or is not used."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _queue_builders as qb
import pytest
from rvault_contracts.canonical import ORJSON_MIN_BYTES, artifact_bytes, sha256_bytes
from rvault_testkit.tracking_db.samples import realistic_database
from rvault_tracking_db.cli import main
from rvault_tracking_db.queue import splice as splice_module
from rvault_tracking_db.queue.splice import (
    _CHUNK,
    StreamedSplice,
    _encode_talk,
    encoded_talks,
    splice,
)


def _db() -> dict:
    talks = [qb.processed_talk(f"p{i}.md", i, title="Ünïcode “quotes”\tand tab") for i in range(3)]
    talks.append(qb.remote_talk("a.md", "dQw4w9WgXcQ"))
    talks.append(qb.processed_talk("z.md", 1))
    return qb.database(talks)


def _claim_one(db: Path) -> int:
    return main(
        [
            "queue",
            str(db),
            "claim",
            "--run-id",
            "r",
            "--batch-id",
            "b",
            "--now",
            "2026-07-31T18:00:00Z",
            "--limit",
            "1",
            "--apply",
            "--expected-sha256",
            sha256_bytes(db.read_bytes()),
        ]
    )


def test_splice_equals_full_encoding() -> None:
    before = _db()
    original = artifact_bytes(before)
    after = dict(before)
    after["talks"] = list(before["talks"])
    after["talks"][3] = dict(
        before["talks"][3], status="reprocessing-inflight", extra={"k": ["é", 1.5]}
    )
    assert splice(original, before, after, [3]) == artifact_bytes(after)
    after["talks"][0] = dict(before["talks"][0], status="x")
    assert splice(original, before, after, [0, 3]) == artifact_bytes(after)


def test_splice_refuses_every_unverified_assumption() -> None:
    before = _db()
    canonical = artifact_bytes(before)
    changed = dict(
        before,
        talks=[*before["talks"][:3], dict(before["talks"][3], status="x"), before["talks"][4]],
    )
    compact = json.dumps(before, sort_keys=True).encode()
    assert splice(compact, before, changed, [3]) is None
    assert splice(canonical, before, dict(changed, config={}), [3]) is None
    assert splice(canonical, before, changed, []) is None
    assert splice(canonical, before, dict(changed, talks=changed["talks"][:4]), [3]) is None
    reordered = (
        json.dumps(before, sort_keys=True, indent=2).replace('"status"', '"status" ').encode()
        + b"\n"
    )
    assert splice(reordered, before, changed, [3]) is None


def test_claim_on_a_hand_formatted_database_falls_back_to_full_encoding(
    tmp_path: Path, capsys
) -> None:
    document = _db()
    db = tmp_path / "tracking-database.json"
    db.write_text(json.dumps(document, separators=(",", ":")), encoding="utf-8")
    code = _claim_one(db)
    assert code == 0, capsys.readouterr().out
    written = db.read_bytes()
    assert written == artifact_bytes(json.loads(written))
    canonical = qb.write_db(tmp_path / "c", _db())
    canonical.write_bytes(artifact_bytes(json.loads(canonical.read_bytes())))
    code = _claim_one(canonical)
    assert code == 0
    assert canonical.read_bytes() == written


def _odd_talks(count: int) -> list[dict]:
    """Talks whose encodings test the block split: non-ASCII and escaped text, empty and
    nested containers, floats orjson spells otherwise (``1e16``), one-line values."""
    talks = [qb.pending_talk(f"t{i:03d}.md", title=f'Tälk {i} 🎤 "q"\\\n') for i in range(count)]
    talks[1]["nested"] = [{}, [], {"a": [{"b": {}}], "c": -0.0, "d": 0.1}]
    talks[2]["big"] = 1e16
    talks[3]["lines"] = ["},", "  },\n  {", "\n  },\n  {\n"]
    return talks


def test_talks_encoded_together_are_each_talks_own_encoding() -> None:
    talks = _odd_talks(5)
    assert encoded_talks(talks) == [_encode_talk(t) for t in talks]
    large = realistic_database(160)["talks"]  # over 1 MiB: orjson writes the list
    large[7]["title"] = "Über Café-Sprache 🎤"
    assert len(artifact_bytes(large)) > ORJSON_MIN_BYTES
    assert encoded_talks(large) == [_encode_talk(t) for t in large]
    large[9]["big"] = 1e16  # orjson would spell it 1e16: the standard library writes the list
    assert encoded_talks(large) == [_encode_talk(t) for t in large]
    assert encoded_talks([*talks, {}]) is None  # an empty object has no block of its own
    assert encoded_talks([*talks, 7]) is None


def test_splice_of_more_talks_than_a_chunk_equals_full_encoding() -> None:
    before = qb.database(_odd_talks(_CHUNK + 45))
    original = artifact_bytes(before)
    after = dict(before, talks=[dict(t, status="needs-reprocessing") for t in before["talks"]])
    after["talks"][4] = before["talks"][4]  # named changed, yet the very same object
    changed = list(range(len(before["talks"])))
    assert splice(original, before, after, changed) == artifact_bytes(after)
    after["talks"][100] = {}  # its chunk is encoded talk by talk
    assert splice(original, before, after, changed) == artifact_bytes(after)


def _streamed(original: bytes, before: dict, after: dict, changed: list[int]) -> bytes | None:
    """What normalize's stream makes of the same change: each changed talk handed over in
    order, old and new, then the talk count."""
    stream = StreamedSplice(original)
    for index in changed:
        stream.replace(index, before["talks"][index], after["talks"][index])
    return stream.finish(len(before["talks"]))


def _changed(before: dict, changed: list[int]) -> dict:
    talks = before["talks"]
    return dict(
        before,
        talks=[dict(t, status="x", n=[i]) if i in changed else t for i, t in enumerate(talks)],
    )


@pytest.mark.parametrize("chunk", [1, 3, 128])
def test_the_streamed_splice_is_the_splice(monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    """First, last, neighbouring, every and no talk; a list after the talks whose objects
    are separated like talks (the last talk ends where the talks' list closes)."""
    monkeypatch.setattr(splice_module, "_STREAMED_CHUNK", chunk)
    before = qb.database(_odd_talks(9))
    before["thumbnails"] = [{"a": 1}, {"b": "    }"}]
    original = artifact_bytes(before)
    assert b'\n  ],\n  "thumbnails": [\n    {' in original
    for changed in ([0], [8], [0, 8], [2, 3, 4], [1, 5, 7], list(range(9)), []):
        after = _changed(before, changed)
        expected = splice(original, before, after, changed)
        assert expected == artifact_bytes(after)
        assert _streamed(original, before, after, changed) == expected


def test_the_streamed_splice_gives_none_where_the_splice_does() -> None:
    before = qb.database(_odd_talks(5))
    after = _changed(before, [3])
    compact = json.dumps(before, sort_keys=True).encode()
    reordered = (
        json.dumps(before, sort_keys=True, indent=2).replace('"status"', '"status" ').encode()
        + b"\n"
    )
    unsorted = (json.dumps(before, indent=2, ensure_ascii=False) + "\n").encode()
    for original in (compact, reordered, unsorted):
        assert splice(original, before, after, [3]) is None
        assert _streamed(original, before, after, [3]) is None
    canonical = artifact_bytes(before)
    stream = StreamedSplice(canonical)
    stream.replace(3, before["talks"][3], after["talks"][3])
    assert stream.finish(6) is None  # not the talk count the bytes hold
    stream = StreamedSplice(canonical)
    stream.replace(3, before["talks"][2], after["talks"][3])
    assert stream.finish(5) is None  # the block is not the old talk's
