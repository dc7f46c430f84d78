"""A YouTube id matches the whole argument: a trailing newline is not an id.

``re.match`` with the schema's ``$``-anchored pattern accepted ``"ID\\n"``.
"""

from __future__ import annotations

import json
from pathlib import Path

from rvault_transcript.cli import main
from rvault_transcript.receipts import YOUTUBE_ID


def test_the_schema_pattern_is_applied_to_the_whole_id() -> None:
    assert YOUTUBE_ID.fullmatch("dQw4w9WgXcQ")
    assert not YOUTUBE_ID.fullmatch("dQw4w9WgXcQ\n")


def test_fetch_refuses_an_id_with_a_trailing_newline(tmp_path: Path, capsys, snapshot_tree) -> None:
    before = snapshot_tree(tmp_path)
    out = str(tmp_path / "talk.txt")
    code = main(["fetch", "dQw4w9WgXcQ\n", "--out", out, "--existing-source", "unknown"])
    document = json.loads(capsys.readouterr().out)
    assert code == 2
    assert document["error"]["code"] == "invalid_video_id"
    assert snapshot_tree(tmp_path) == before
