"""transcript fetch result -> tracking-db, run from the directory *above* the vault.

One path rule for every tool: a path typed on the command line is relative
to the working directory; only locators stored in artifacts are
vault-relative. The README's pipeline ``rvault-transcript ... --out
vault/transcripts/X.txt > fetch.json && rvault-db register-transcript DB
fetch.json --fetch-result`` used to fail there: the producer printed the
typed ``vault/transcripts/X.txt``, which the consumer reads against the vault
root. Both producers (``fetch``, ``vtt-cleanup``) now print the locator
computed from the resolved path and the vault root, and the consumer
registers it from any directory.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from _support import write_current_database
from rvault_testkit.plugin import run_cli
from test_transcript_receipts_tracking_db import caption_file

COVERS = [("transcript-fetch-result", "transcript", "tracking-db")]

TALK = "2024-05-01-infoq.md"


def _vault(home: Path) -> Path:
    """``home/vault`` with one pending talk; ``home`` is where every command runs."""
    (home / "vault" / "transcripts").mkdir(parents=True)
    talk = {"schema_version": 5, "filename": TALK, "status": "pending"}
    return write_current_database(home / "vault", [talk])


def _register(home: Path, printed: str) -> dict[str, Any]:
    """`> fetch.json && rvault-db register-transcript` (dry run, then apply) from ``home``."""
    (home / "fetch.json").write_text(printed, encoding="utf-8")
    args = ("register-transcript", "vault/tracking-database.json", "fetch.json", "--fetch-result",
            "--talk", TALK)  # fmt: skip
    dry = run_cli("rvault-db", *args, cwd=home)
    assert dry.returncode == 0, dry.stdout + dry.stderr
    sha = dry.json["input_sha256"]
    applied = run_cli("rvault-db", *args, "--apply", "--expected-sha256", sha, cwd=home)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    (talk,) = json.loads((home / "vault" / "tracking-database.json").read_bytes())["talks"]
    return talk


def test_vtt_cleanup_from_above_the_vault_registers(tmp_path: Path) -> None:
    _vault(tmp_path)
    (tmp_path / "vault" / "transcripts" / "infoq.en.vtt").write_text(caption_file(70))
    produced = run_cli(
        "rvault-transcript", "vtt-cleanup", "vault/transcripts/infoq.en.vtt",
        "vault/transcripts/infoq.txt", cwd=tmp_path,
    )  # fmt: skip
    assert produced.returncode == 0, produced.stdout + produced.stderr
    document = produced.json
    assert (document["transcript_path"], document["quality_path"], document["timed_path"]) == (
        "transcripts/infoq.txt",
        "transcripts/infoq.quality.json",
        "transcripts/infoq.segments.json",
    )
    talk = _register(tmp_path, produced.stdout)
    assert talk["transcript_path"] == "transcripts/infoq.txt"


def test_fetch_from_above_the_vault_registers(tmp_path: Path) -> None:
    """``fetch ID --out vault/transcripts/ID.txt`` over a transcript already there (offline)."""
    _vault(tmp_path)
    words = " ".join(f"word{i}" for i in range(420))
    (tmp_path / "vault" / "transcripts" / "dQw4w9WgXcQ.txt").write_text(words + "\n")
    produced = run_cli(
        "rvault-transcript", "fetch", "dQw4w9WgXcQ", "--out", "vault/transcripts/dQw4w9WgXcQ.txt",
        "--existing-source", "manual", cwd=tmp_path,
    )  # fmt: skip
    assert produced.returncode == 0, produced.stdout + produced.stderr
    assert produced.json["method"] == "existing"
    assert produced.json["transcript_path"] == "transcripts/dQw4w9WgXcQ.txt"
    talk = _register(tmp_path, produced.stdout)
    assert talk["transcript_path"] == "transcripts/dQw4w9WgXcQ.txt"


def test_the_printed_paths_do_not_depend_on_the_working_directory(tmp_path: Path) -> None:
    """Run inside ``transcripts/``, at the vault root and above it: one printed document."""
    _vault(tmp_path)
    transcripts = tmp_path / "vault" / "transcripts"
    (transcripts / "infoq.en.vtt").write_text(caption_file(70))
    printed = set()
    for cwd, prefix in [(transcripts, ""), (tmp_path / "vault", "transcripts/"),
                        (tmp_path, "vault/transcripts/")]:  # fmt: skip
        produced = run_cli(
            "rvault-transcript", "vtt-cleanup", f"{prefix}infoq.en.vtt", f"{prefix}infoq.txt",
            "--force", cwd=cwd,
        )  # fmt: skip
        assert produced.returncode == 0, produced.stdout + produced.stderr
        document = produced.json
        document.pop("write")  # the writer's own report (the second run replaces a bundle)
        printed.add(json.dumps(document, sort_keys=True))
    assert len(printed) == 1, printed


def test_without_a_vault_root_the_printed_path_is_absolute(tmp_path: Path) -> None:
    """No database above the output and no --vault-root: no locator can be vault-relative."""
    folder = tmp_path / "loose"
    folder.mkdir()
    (folder / "talk.en.vtt").write_text(caption_file(70))
    produced = run_cli(
        "rvault-transcript", "vtt-cleanup", "loose/talk.en.vtt", "loose/talk.txt", cwd=tmp_path
    )
    assert produced.returncode == 0, produced.stdout + produced.stderr
    assert produced.json["transcript_path"] == os.fspath(folder / "talk.txt")
    assert Path(produced.json["quality_path"]).is_absolute()
