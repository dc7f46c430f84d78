"""One path rule: a PATH typed to a shortcut is relative to the working directory.

The database stores it vault-relative. Typed from the directory above the
vault (the README tutorial's place), ``vault/transcripts/b.txt`` registers
``transcripts/b.txt``; the vault-relative spelling typed there is refused with
the spelling that works; a path outside the vault and a symlinked component
are refused as before, the database's bytes and inode unchanged.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _queue_builders as qb
from _sources_cli import apply as _apply
from _sources_cli import refused as _refused
from _sources_cli import run as _run

TALK = "2024-02-01-b.md"


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    vault = tmp_path / "vault"
    qb.write_transcript(vault, "transcripts/b.txt")
    qb.write_pdf(vault / "slides" / "b.pdf")
    monkeypatch.chdir(tmp_path)  # the directory above the vault
    return qb.write_db(vault, qb.database([qb.pending_talk(TALK)]))


def _stored(db: Path, name: str) -> object:
    return next(t for t in qb.read_db(db)["talks"] if t["filename"] == TALK).get(name)


def test_a_path_typed_from_above_the_vault_is_stored_vault_relative(db: Path) -> None:
    report = _apply(
        "register-transcript", Path("vault/tracking-database.json"), "--talk", TALK,
        "vault/transcripts/b.txt",
    )  # fmt: skip
    assert report["plan"]["mutations"][0]["value"] == "transcripts/b.txt"
    assert _stored(db, "transcript_path") == "transcripts/b.txt"
    _apply("register-slides", db, "--talk", TALK, "./vault/slides/../slides/b.pdf")
    assert _stored(db, "slides_local_path") == "slides/b.pdf"


def test_the_path_is_read_from_the_working_directory_not_the_vault(
    db: Path, snapshot_file, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = snapshot_file(db)
    document = _refused(
        _run("register-transcript", db, "--talk", TALK, "transcripts/b.txt"), "path_escapes_root"
    )
    assert document["error"]["path"] == "PATH"
    assert "relative to the working directory" in document["error"]["message"]
    assert document["hint"].endswith("did you mean vault/transcripts/b.txt?")
    outside = db.parent.parent / "elsewhere.txt"
    outside.write_text("hello world transcript\n")
    _refused(_run("register-transcript", db, "--talk", TALK, "elsewhere.txt"), "path_escapes_root")
    # typed from inside the vault, a path is relative to that place
    monkeypatch.chdir(db.parent / "transcripts")
    _refused(
        _run("register-transcript", db, "--talk", TALK, "../../elsewhere.txt"), "path_escapes_root"
    )
    assert snapshot_file(db) == before
    assert _apply("register-transcript", db, "--talk", TALK, "b.txt")["changed"] is True


def test_a_symlinked_component_is_still_refused(db: Path, snapshot_file) -> None:
    vault = db.parent
    (vault / "transcripts" / "link.txt").symlink_to(vault / "transcripts" / "b.txt")
    before = snapshot_file(db)
    typed = "vault/transcripts/link.txt"
    _refused(_run("register-transcript", db, "--talk", TALK, typed), "symlink_refused")
    assert snapshot_file(db) == before


def test_a_vault_reached_through_a_symlinked_parent_takes_a_path_typed_from_its_real_place(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alias = tmp_path.parent / f"{tmp_path.name}-alias"
    alias.symlink_to(tmp_path)
    monkeypatch.chdir(tmp_path.resolve())
    _apply(
        "register-transcript", alias / "vault" / db.name, "--talk", TALK, "vault/transcripts/b.txt"
    )
    assert _stored(db, "transcript_path") == "transcripts/b.txt"
