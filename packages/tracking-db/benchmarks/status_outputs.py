"""Does ``rvault-db status`` still print the same bytes as an earlier tree did?

A speed change to status (lazy imports, cheaper checks) must not change a
single byte of what it prints, nor any refusal. This builds a few vaults
once, runs ``status --format json`` and ``--format table`` on each with the
code of an earlier tree (``--before DIR``: an export of that commit, e.g.
``git archive COMMIT contracts packages | tar -x -C DIR``) and with this
checkout, and compares exit status, stdout and stderr byte for byte:

- ``bench-20``: the 20-talk database of ``tools/bench_small_jobs.py``
  (testkit ``realistic_database(20)``, no evidence files on disk);
- ``example``/``example-claimed``: the spec's example database, unclaimed
  and with a live claim;
- ``evidence``: talks whose evidence is on disk (transcripts, a catalogued
  deck and its extraction, a promoted PDF, an attached recording, a file at
  a manifest path that is no manifest, a ledger citing files), so every
  owner reader runs;
- ``broken-ledger``: three analysed talks, one with a ledger that breaks
  its contract (a warning and a requeue);
- ``refused``: a database the owner read refuses (a duplicate key).

Usage: ``.venv/bin/python packages/tracking-db/benchmarks/status_outputs.py --before DIR``;
exit status 1 when any output differs (the differing ones are named).
"""

from __future__ import annotations

import argparse
import copy
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from rvault_contracts.canonical import artifact_bytes
from rvault_testkit.tracking_db.samples import example_database, realistic_database

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import _queue_builders as qb

YT = "dQw4w9WgXcQ"
SOURCES = ("contracts", "packages/*")


def _write(vault: Path, database: dict) -> Path:
    vault.mkdir(parents=True)
    path = vault / qb.DB_NAME
    path.write_bytes(artifact_bytes(database))
    return path


def _evidence_vault(vault: Path) -> Path:
    """Talks whose evidence files exist, so the transcript, video and pptx readers all run."""
    qb.write_transcript(vault, "transcripts/t.txt")
    qb.write_transcript(vault, "transcripts/yt.txt", "a transcript of the youtube talk\n")
    qb.write_pptx(vault / "Deck.pptx")
    qb.write_pdf(vault / "slides" / f"{YT}.pdf")
    recording = qb.write_mp4(vault / "recordings" / "talk.mp4")
    manifest = vault / "slides-rebuild" / YT / f"{YT}.video-extraction.json"
    manifest.parent.mkdir(parents=True)
    manifest.write_text('{"not": "a manifest"}\n', encoding="utf-8")
    catalog = copy.deepcopy(example_database()["pptx_catalog"][0])
    catalog["pptx_path"] = "Deck.pptx"
    caps = [{"capability": "local_transcript", "path": "transcripts/t.txt", "root": "vault"}]
    talks = [
        qb.bind_evidence(
            vault, qb.processed_talk("2023-01-01-done.md", 7, processed_date="2024-01-02")
        ),
        qb.pending_talk("2024-01-01-vimeo.md", video_url="https://vimeo.com/1"),
        qb.remote_talk(
            "2024-02-01-yt.md",
            YT,
            transcript_path="transcripts/yt.txt",
            slides_local_path=f"slides/{YT}.pdf",
            source_capabilities=[],
        ),
        qb.pending_talk(
            "2024-03-01-deck.md", transcript_path="transcripts/t.txt", pptx_path="Deck.pptx"
        ),
        qb.pending_talk(
            "2024-04-01-ready.md", transcript_path="transcripts/t.txt", source_capabilities=caps
        ),
        qb.pending_talk(
            "2024-05-01-media.md",
            local_media={
                "schema_version": 1,
                "duration_seconds": 1.0,
                "path": "recordings/talk.mp4",
                "sha256": qb.sha(recording.read_bytes()),
                "size_bytes": recording.stat().st_size,
            },
        ),
        qb.pending_talk("2024-06-01-dup.md", status="skipped_duplicate"),
    ]
    document = qb.database(talks)
    document["pptx_catalog"] = [catalog]
    vault.mkdir(parents=True, exist_ok=True)
    path = vault / qb.DB_NAME
    path.write_bytes(artifact_bytes(document))
    return path


def build(root: Path) -> dict[str, Path]:
    """Each vault's database path, built once under ``root``."""
    broken = realistic_database(3)
    broken["talks"][1]["pattern_observations"]["pattern_score"] = "high"
    refused = root / "refused"
    refused.mkdir()
    (refused / qb.DB_NAME).write_bytes(b'{"schema_version": 1, "schema_version": 1}\n')
    return {
        "bench-20": _write(root / "bench-20", realistic_database(20)),
        "example": _write(root / "example", example_database(claimed=False)),
        "example-claimed": _write(root / "example-claimed", example_database(claimed=True)),
        "evidence": _evidence_vault(root / "evidence"),
        "broken-ledger": _write(root / "broken-ledger", broken),
        "refused": refused / qb.DB_NAME,
    }


def outputs(databases: dict[str, Path], tree: Path | None) -> dict[str, bytes]:
    """Exit status, stdout and stderr of each status run, with ``tree``'s code first on the path."""
    env = dict(os.environ)
    if tree is not None:
        paths = [str(src) for pattern in SOURCES for src in sorted(tree.glob(f"{pattern}/src"))]
        env["PYTHONPATH"] = os.pathsep.join([*paths, env.get("PYTHONPATH", "")])
    found: dict[str, bytes] = {}
    for name, database in databases.items():
        for form in ("json", "table"):
            argv = [sys.executable, "-m", "rvault_tracking_db", "status", str(database)]
            done = subprocess.run([*argv, "--format", form], capture_output=True, env=env)
            found[f"{name} --format {form}"] = (
                f"exit {done.returncode}\n".encode() + done.stdout + b"\n--stderr--\n" + done.stderr
            )
    return found


def main(argv: list[str]) -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--before", type=Path, required=True, help="an export of the earlier tree")
    args = options.parse_args(argv)
    if not (args.before / "packages" / "tracking-db" / "src").is_dir():
        options.error(f"--before: no packages/tracking-db/src under {args.before}")
    with tempfile.TemporaryDirectory(prefix="rvault-status-outputs-") as tmp:
        databases = build(Path(tmp))
        before, after = outputs(databases, args.before.resolve()), outputs(databases, None)
    differ = [name for name in before if before[name] != after[name]]
    for name in before:
        print(f"{'DIFFERS' if name in differ else 'same   '}  {name}  ({len(after[name])} bytes)")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
