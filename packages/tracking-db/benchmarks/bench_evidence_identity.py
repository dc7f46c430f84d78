"""What checking analysed talks' evidence identities costs ``status`` and ``normalize``.

A vault of ``--talks`` processed talks, each with a transcript of
``--transcript-kb`` KiB and a 1 KiB quality receipt on disk, its ledger
bound to both by their real SHA-256 (as persist binds them); one talk in a
hundred has its transcript replaced afterwards. Measured in process, best of
``--repeat`` (wall and this process's CPU time, which a loaded machine
inflates less), page cache warm (the files were just written):

* ``normalize``'s path (``queue.normalize.identity_trouble``): no owner
  reader runs, so every cited file is hashed once;
* ``status`` (``status.build_status``, the transcript owner's reader
  installed) with the identity check, and with it switched off: the
  transcript digest the owner reader computed is reused, so the check adds
  one small receipt hash per talk.

Run: ``.venv/bin/python packages/tracking-db/benchmarks/bench_evidence_identity.py``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rvault_testkit.tracking_db.root import minimal_config, root_database
from rvault_testkit.tracking_db.samples import example_ledger
from rvault_tracking_db import evidence
from rvault_tracking_db.capabilities import SourceRoots
from rvault_tracking_db.queue.normalize import identity_trouble
from rvault_tracking_db.reader import read_database
from rvault_tracking_db.status import build_status


def _talk(vault: Path, index: int, size: int) -> dict[str, Any]:
    name = f"talk-{index:05d}"
    transcript, quality = f"transcripts/{name}.txt", f"transcripts/{name}.quality.json"
    words = (f"line {index} of a talk about evidence and its bytes\n" * (size // 48 + 1))[:size]
    (vault / transcript).write_text(words, encoding="utf-8")
    (vault / quality).write_text(json.dumps({"receipt": name, "pad": "x" * 1000}))
    ledger = example_ledger([{"pattern_id": "p0", "outcome": "undetected"}])
    row = ledger["source_inspection"][0]
    row["artifact_path"], row["quality_artifact_path"] = transcript, quality
    row["artifact_sha256"] = hashlib.sha256((vault / transcript).read_bytes()).hexdigest()
    row["quality_artifact_sha256"] = hashlib.sha256((vault / quality).read_bytes()).hexdigest()
    return {"schema_version": 5, "filename": f"2020-01-01-{name}.md", "title": name,
            "status": "processed", "transcript_path": transcript,
            "pattern_observations": ledger}  # fmt: skip


def _vault(root: Path, talks: int, size: int) -> Path:
    (root / "transcripts").mkdir(parents=True)
    records = [_talk(root, i, size) for i in range(talks)]
    for record in records[::100]:
        path = root / record["transcript_path"]
        path.write_bytes(path.read_bytes() + b"re-fetched\n")
    db = root / "tracking-database.json"
    db.write_text(json.dumps(root_database(records, config=minimal_config())), encoding="utf-8")
    return db


def _best(repeat: int, run: Callable[[], Any]) -> tuple[str, Any]:
    """Best wall and CPU seconds of ``repeat`` runs (CPU: this process, robust to load)."""
    wall = cpu = float("inf")
    result = None
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = run()
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    return f"{wall:.2f} s wall, {cpu:.2f} s CPU", result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--talks", type=int, default=2000)
    parser.add_argument("--transcript-kb", type=int, default=60)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = _vault(Path(tmp), args.talks, args.transcript_kb * 1024)
        read = read_database(db)
        assert read.database is not None
        roots = SourceRoots(db.parent)
        took, trouble = _best(args.repeat, lambda: identity_trouble(read.database, roots))
        print(f"normalize identity check: {took}, {len(trouble)} talks stale")
        took, report = _best(args.repeat, lambda: build_status(read))
        stale = sum(1 for r in report["talks"] if r["evidence_issues"])
        print(f"status with the check: {took}, {stale} talks stale")
        original = evidence.IdentityCheck.stale
        evidence.IdentityCheck.stale = lambda self, talk, **kw: []  # type: ignore[method-assign]
        try:
            took, _ = _best(args.repeat, lambda: build_status(read))
        finally:
            evidence.IdentityCheck.stale = original  # type: ignore[method-assign]
        print(f"status without it:     {took}")


if __name__ == "__main__":
    main()
