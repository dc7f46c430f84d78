"""``rvault-analysis write`` through the installed console script.

Success renders every processed member, leaves skipped members (and their
prior analyses) alone and prints a report that passes its schema; every
refusal exits 2 with its code and leaves the whole vault tree (bytes, inodes,
timestamps) exactly as it was.
"""

from __future__ import annotations

import copy
import os
import shutil
import stat
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from analysis_testdata import Batch, completed_batch, make_legacy_v2
from rvault_contracts.canonical import payload_sha256
from rvault_contracts.schemas import schema_issues
from rvault_returns_persistence.api import default_catalog_dir

A, B, C = "2024-01-01-a.md", "2024-02-01-b.md", "2024-03-01-c.md"


def write(cli: Callable[..., Any], batch: Batch, *extra: str | Path) -> Any:
    return cli(
        "rvault-analysis", "write", batch.returns_path, batch.outdir, "--db", batch.db, *extra
    )


@pytest.fixture
def batch(tmp_path: Path) -> Batch:
    return completed_batch(tmp_path, skipped=(C,))


def test_renders_processed_members_and_reports(cli: Callable[..., Any], batch: Batch) -> None:
    prior_skipped = batch.outdir / C
    prior_skipped.write_bytes(b"# prior analysis of c, untouched\n")
    before = prior_skipped.stat()
    result = write(cli, batch)
    assert result.returncode == 0, result.stdout
    report = result.json
    assert schema_issues("analysis-write-report", 1, report) == []
    assert [w["filename"] for w in report["written"]] == [A, B]
    assert [s["filename"] for s in report["skipped"]] == [C]
    assert report["skipped"][0]["result_status"] == "skipped_no_sources"
    for entry in report["written"]:
        body = (batch.outdir / entry["filename"]).read_bytes()
        assert entry["bytes"] == len(body)
        assert entry["durability_state"] == "durable"
        assert entry["result_payload_sha256"] == payload_sha256(
            next(r for r in batch.returns if r["filename"] == entry["filename"])
        )
    assert report["bytes_written"] == sum(w["bytes"] for w in report["written"])
    assert prior_skipped.read_bytes() == b"# prior analysis of c, untouched\n"
    after = prior_skipped.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert "rendered" in result.stderr or "replacing" in result.stderr


def test_same_inputs_same_bytes_and_rerun_is_unchanged(
    cli: Callable[..., Any], batch: Batch, tmp_path: Path
) -> None:
    assert write(cli, batch).returncode == 0
    first = {p.name: p.read_bytes() for p in batch.outdir.glob("*.md")}
    inode = (batch.outdir / A).stat().st_ino
    again = write(cli, batch)
    assert again.returncode == 0
    assert {w["durability_state"] for w in again.json["written"]} == {"unchanged"}
    assert again.json["bytes_written"] == 0
    assert (batch.outdir / A).stat().st_ino == inode
    other = batch.db.parent / "other"
    other.mkdir()
    result = cli("rvault-analysis", "write", batch.returns_path, other, "--db", batch.db)
    assert result.returncode == 0
    assert {p.name: p.read_bytes() for p in other.glob("*.md")} == first


def test_replaces_existing_analysis_and_symlink_entry(
    cli: Callable[..., Any], batch: Batch
) -> None:
    (batch.outdir / A).write_bytes(b"old analysis\n")
    outside = batch.root / "elsewhere.md"
    outside.write_bytes(b"not ours\n")
    (batch.outdir / B).symlink_to(outside)
    result = write(cli, batch)
    assert result.returncode == 0, result.stdout
    kinds = {w["filename"]: w["previous_kind"] for w in result.json["written"]}
    assert kinds == {A: "file", B: "symlink"}
    assert not (batch.outdir / B).is_symlink()
    assert outside.read_bytes() == b"not ours\n"
    assert (batch.outdir / A).read_bytes().startswith(b"---\n")
    leftovers = [p.name for p in batch.outdir.iterdir() if p.name.startswith(".")]
    assert leftovers == [".rvault-analysis.lock"]


# --------------------------------------------------------------------------- refusals


def _claimed(batch: Batch) -> None:
    claim = batch.talk(B)["_queue_claim"]
    for key in ("released_at", "release_reason", "result_status", "result_payload_sha256"):
        claim.pop(key)
    claim["state"] = "claimed"
    batch.talk(B)["status"] = "reprocessing-inflight"
    batch.write_db()


def _substituted(batch: Batch) -> None:
    returns = copy.deepcopy(batch.returns)
    returns[0]["rhetoric_notes"] += " A sentence persistence never saw."
    batch.write_returns(returns)


def _v1_claim(batch: Batch) -> None:
    claim = batch.talk(A)["_queue_claim"]
    v1 = {k: claim[k] for k in ("run_id", "batch_id", "claimed_at", "reprocess_generation")}
    v1.update(
        previous_status="pending",
        state="completed",
        released_at=claim["released_at"],
        release_reason="completed",
        result_status="processed",
    )
    batch.talk(A)["_queue_claim"] = v1
    batch.write_db()


def _partial(batch: Batch) -> None:
    batch.write_returns(batch.returns[:1])


def _superset(batch: Batch) -> None:
    extra = copy.deepcopy(batch.returns[0])
    extra["filename"] = "2024-09-09-z.md"
    batch.write_returns([*batch.returns, extra])


def _mixed(batch: Batch) -> None:
    returns = copy.deepcopy(batch.returns)
    returns[1]["queue_claim"]["batch_id"] = "26"
    batch.write_returns(returns)


def _duplicate(batch: Batch) -> None:
    batch.write_returns([*batch.returns, batch.returns[0]])


def _generation(batch: Batch) -> None:
    returns = copy.deepcopy(batch.returns)
    returns[0]["queue_claim"]["reprocess_generation"] = 2
    batch.write_returns(returns)


def _not_current(batch: Batch) -> None:
    talk = batch.talk(A)
    talk["pattern_scoring_generation_status"] = "legacy_unbaselineable"
    talk["pattern_scoring_generation_reasons"] = ["comparison_group_ambiguous:x"]
    del talk["pattern_scoring_schema_version"], talk["pattern_catalog_fingerprint"]
    batch.write_db()


def _fingerprint(batch: Batch) -> None:
    batch.talk(A)["pattern_catalog_fingerprint"] = "e" * 64
    batch.write_db()


def _status_changed(batch: Batch) -> None:
    batch.talk(A)["status"] = "processed_partial"
    batch.write_db()


def _case_collision(batch: Batch) -> None:
    (batch.outdir / A.upper()).write_bytes(b"someone else's file\n")


def _normalization_collision(batch: Batch) -> None:
    (batch.outdir / "caf\u00e9.md").write_bytes(b"composed\n")
    name = unicodedata.normalize("NFD", "caf\u00e9.md")
    returns = copy.deepcopy(batch.returns)
    talks = batch.talks
    for item in (returns[0], talks[0]):
        item["filename"] = name
    talks[0]["_queue_claim"]["adherence_baseline"]["excluded_filenames"] = sorted([name, B, C])
    for talk in talks[1:]:
        talk["_queue_claim"]["adherence_baseline"]["excluded_filenames"] = sorted([name, B, C])
    talks[0]["_queue_claim"]["result_payload_sha256"] = payload_sha256(returns[0])
    batch.write_db()
    batch.write_returns(returns)


def _directory_target(batch: Batch) -> None:
    (batch.outdir / B).mkdir()


def _fifo_target(batch: Batch) -> None:
    os.mkfifo(batch.outdir / B)


def _missing_outdir(batch: Batch) -> None:
    batch.outdir = batch.outdir / "no-such-parent" / "analyses"


def _dangling_outdir(batch: Batch) -> None:
    shutil.rmtree(batch.outdir)
    batch.outdir.symlink_to(batch.root / "gone")


def _outdir_is_file(batch: Batch) -> None:
    shutil.rmtree(batch.outdir)
    batch.outdir.write_bytes(b"not a directory\n")


def _not_strict(batch: Batch) -> None:
    batch.returns_path.write_text('[{"filename": "a", "filename": "b"}]\n')


def _returns_fifo(batch: Batch) -> None:
    batch.returns_path.unlink()
    os.mkfifo(batch.returns_path)


def _returns_directory(batch: Batch) -> None:
    batch.returns_path.unlink()
    batch.returns_path.mkdir()


def _database_symlink(batch: Batch) -> None:
    real = batch.root / "real-db.json"
    batch.db.rename(real)
    batch.db.symlink_to(real)


def _legacy_without_replay_reason(batch: Batch) -> None:
    make_legacy_v2(batch, A)
    batch.talk(A)["pattern_scoring_generation_reasons"] = ["source_inspection_absent"]
    batch.write_db()


def _legacy_keeps_fingerprint(batch: Batch) -> None:
    make_legacy_v2(batch, A)
    batch.talk(A)["pattern_catalog_fingerprint"] = "a" * 64
    batch.write_db()


def _video_talk(batch: Batch, video_id: str, path: str | None) -> None:
    talk = batch.talk(A)
    talk["slide_source"] = "video_extracted"
    talk["youtube_id"] = "dQw4w9WgXcQ"
    talk["structured_data"]["video_extraction"] = {"source_video_id": video_id}
    if path is None:
        talk.pop("slides_local_path")
    else:
        talk["slides_local_path"] = path
    batch.write_db()


def _foreign_recording(batch: Batch) -> None:
    _video_talk(batch, "AAAAAAAAAAA", "slides/AAAAAAAAAAA.pdf")


def _unpromoted_processed(batch: Batch) -> None:
    _video_talk(batch, "dQw4w9WgXcQ", None)


def _wrong_slides_path(batch: Batch) -> None:
    _video_talk(batch, "dQw4w9WgXcQ", "slides/1AbCdEfGhIjK.pdf")


def _ledger_line_zero(batch: Batch) -> None:
    citation = batch.talk(A)["pattern_observations"]["patterns_detected"][0]["evidence_citations"]
    citation[0]["line_start"] = 0
    batch.write_db()


def _ledger_outcome_missing(batch: Batch) -> None:
    del batch.talk(A)["pattern_observations"]["pattern_outcomes"]
    batch.write_db()


REFUSALS = [
    ("database_invalid", _ledger_line_zero),
    ("database_invalid", _ledger_outcome_missing),
    ("video_manifest_identity_mismatch", _foreign_recording),
    ("slides_local_path_mismatch", _unpromoted_processed),
    ("slides_local_path_mismatch", _wrong_slides_path),
    ("scoring_generation_mismatch", _legacy_without_replay_reason),
    ("scoring_generation_mismatch", _legacy_keeps_fingerprint),
    ("batch_not_completed", _claimed),
    ("receipt_mismatch", _substituted),
    ("receipt_unavailable", _v1_claim),
    ("batch_membership_mismatch", _partial),
    ("batch_membership_mismatch", _superset),
    ("batch_mixed_identity", _mixed),
    ("duplicate_return", _duplicate),
    ("queue_generation_mismatch", _generation),
    ("scoring_generation_mismatch", _not_current),
    ("catalog_fingerprint_mismatch", _fingerprint),
    ("talk_status_mismatch", _status_changed),
    ("target_collision", _case_collision),
    ("target_collision", _normalization_collision),
    ("target_is_directory", _directory_target),
    ("target_special_file", _fifo_target),
    ("output_directory_missing", _missing_outdir),
    ("output_directory_symlink", _dangling_outdir),
    ("output_directory_not_directory", _outdir_is_file),
    ("returns_duplicate_key", _not_strict),
    ("database_invalid", _database_symlink),
    ("returns_not_regular_file", _returns_fifo),
    ("returns_not_regular_file", _returns_directory),
]


def tree(root: Path, snapshot_tree: Callable[[Path], dict]) -> dict:
    """snapshot_tree of ``root``; a FIFO (which it would block opening) by kind and inode."""
    fifos = {p for p in root.rglob("*") if stat.S_ISFIFO(os.lstat(p).st_mode)}
    hidden = {p: root.parent / f"fifo-aside-{i}" for i, p in enumerate(sorted(fifos))}
    states = {}
    for path in fifos:
        st = os.lstat(path)
        states[path.relative_to(root).as_posix()] = ("fifo", st.st_ino, st.st_mtime_ns)
    # Move each FIFO out of the tree for the walk; renaming keeps its inode and mtime.
    for path, aside in hidden.items():
        path.rename(aside)
    try:
        states.update(snapshot_tree(root))
    finally:
        for path, aside in hidden.items():
            aside.rename(path)
    return states


@pytest.mark.parametrize(("code", "breaks"), REFUSALS, ids=[f.__name__ for _, f in REFUSALS])
def test_refusal_changes_nothing(
    cli: Callable[..., Any],
    batch: Batch,
    snapshot_tree: Callable[[Path], dict],
    code: str,
    breaks: Callable[[Batch], None],
) -> None:
    (batch.outdir / A).write_bytes(b"the analysis a speaker reads today\n")
    breaks(batch)
    before = tree(batch.root, snapshot_tree)
    result = write(cli, batch)
    assert result.returncode == 2, result.stdout
    error = result.json["error"]
    assert error["code"] == code, error
    assert error["message"]
    assert result.json["hint"]
    assert tree(batch.root, snapshot_tree) == before


def test_catalog_option_binds_the_fingerprint(
    cli: Callable[..., Any], batch: Batch, tmp_path: Path
) -> None:
    catalog = tmp_path / "catalog"
    shutil.copytree(default_catalog_dir(), catalog, ignore=shutil.ignore_patterns("__pycache__"))
    assert write(cli, batch, "--catalog", catalog).returncode == 0
    entry = catalog / "bookends.json"
    entry.write_bytes(entry.read_bytes().replace(b"\n", b" \n", 1))
    before = {p.name: p.read_bytes() for p in batch.outdir.glob("*.md")}
    result = write(cli, batch, "--catalog", catalog)
    assert result.returncode == 2
    assert result.json["error"]["code"] == "catalog_fingerprint_mismatch"
    assert {p.name: p.read_bytes() for p in batch.outdir.glob("*.md")} == before


def test_missing_output_directory_is_created(cli: Callable[..., Any], batch: Batch) -> None:
    shutil.rmtree(batch.outdir)
    result = write(cli, batch)
    assert result.returncode == 0, result.stdout
    assert result.json["output_directory_created"] is True
    assert sorted(p.name for p in batch.outdir.glob("*.md")) == [A, B]


def test_failed_first_commit_removes_the_directory_it_created(batch: Batch) -> None:
    from rvault_analysis_writer.write import WriteRequest, write_analyses
    from rvault_contracts.cli import Refusal

    shutil.rmtree(batch.outdir)

    def fail(step: str) -> None:
        if step == f"entries_after_install:{B}":
            raise OSError(5, "injected")

    with pytest.raises(Refusal) as failed:
        write_analyses(WriteRequest(batch.returns_path, batch.outdir, batch.db, fault=fail))
    assert failed.value.code == "bundle_rolled_back"
    assert not batch.outdir.exists()


def test_unwritable_output_directory_is_refused(snapshot_tree: Callable[[Path], dict]) -> None:
    """A real permission check: as root the CLI runs as ``nobody`` (setpriv), else as is."""
    import json
    import subprocess
    import sys
    import tempfile

    from rvault_testkit.plugin import console_script

    root = Path(tempfile.mkdtemp(prefix="aw-unwritable-", dir="/tmp"))
    try:
        root.chmod(0o755)
        batch = completed_batch(root)
        for path in [root, *root.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        (batch.outdir / A).write_bytes(b"kept\n")
        (batch.outdir / A).chmod(0o644)
        batch.outdir.chmod(0o555)
        argv = [console_script("rvault-analysis"), "write", str(batch.returns_path)]
        argv += [str(batch.outdir), "--db", str(batch.db)]
        if os.geteuid() == 0:
            argv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *argv]
        before = snapshot_tree(root)
        done = subprocess.run(argv, capture_output=True, check=False, cwd="/", env={
            "PATH": os.environ.get("PATH", ""), "HOME": "/tmp"})  # fmt: skip
        assert done.returncode == 2, (done.stdout, done.stderr, sys.executable)
        assert json.loads(done.stdout)["error"]["code"] == "output_directory_unwritable"
        assert snapshot_tree(root) == before
    finally:
        for path in [root, *root.rglob("*")]:
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o755)
        shutil.rmtree(root)


def test_legacy_replay_renders_labelled(cli: Callable[..., Any], batch: Batch) -> None:
    make_legacy_v2(batch, A)
    result = write(cli, batch)
    assert result.returncode == 0, result.stdout
    status = {w["filename"]: w["pattern_scoring_generation_status"] for w in result.json["written"]}
    assert status == {A: "legacy_unbaselineable", B: "current"}
    text = (batch.outdir / A).read_text(encoding="utf-8")
    assert 'evidence_basis: "legacy-unverified"' in text
    assert "**Legacy-unverified result**" in text
    assert "excluded from current numeric baselines, Section 15 aggregates" in text
    assert "**Legacy-unverified** (archival prose" in text
    assert "Citations (source-verified)" not in text
    assert "Citations (source-verified)" in (batch.outdir / B).read_text(encoding="utf-8")
    assert "the return carries no `catalog_feedback` (a legacy return)" in text


def test_video_extracted_slides_render_their_promoted_path(
    cli: Callable[..., Any], batch: Batch
) -> None:
    _video_talk(batch, "dQw4w9WgXcQ", "slides/dQw4w9WgXcQ.pdf")
    result = write(cli, batch)
    assert result.returncode == 0, result.stdout
    text = (batch.outdir / A).read_text(encoding="utf-8")
    assert 'slide_source: "video_extracted"' in text
    assert 'slides_local_path: "slides/dQw4w9WgXcQ.pdf"' in text


def test_unusable_catalog_is_refused(
    cli: Callable[..., Any], batch: Batch, tmp_path: Path, snapshot_tree: Callable[[Path], dict]
) -> None:
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    (catalog / "broken.json").write_text('{"id": "broken"}\n')
    before = snapshot_tree(tmp_path)
    result = write(cli, batch, "--catalog", catalog)
    assert result.returncode == 2
    assert result.json["error"]["code"] == "catalog_invalid"
    assert result.json["hint"]
    assert snapshot_tree(tmp_path) == before
