"""What one Dask task does on a worker: the owner's tool, its reader, its plan fragment.

Every task is a pure function of one talk's inputs. It runs the owner's
console script (which writes the artifact through that owner's writer, so a
killed task leaves no torn file), reads the result back through the owner's
public ``api``, and asks tracking-db for the source-plan changes that would
register it (the shortcut's dry run: lock-free, it writes nothing). Only the
driver applies those changes, once per batch.

Outcomes are plain dictionaries. A refusal (exit 2) is final and reported
with its code; anything else that fails raises :class:`TransientTaskError`,
which Dask retries up to the batch's cap.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rvault_contracts.canonical import artifact_bytes
from rvault_contracts.errors import Refusal

from rvault_archive_batch.owner_tools import ToolRun, run_tool


class TransientTaskError(RuntimeError):
    """A failure that may pass on another try (crash, kill, I/O); Dask retries it."""


class _Refused(Refusal):
    """A final answer: an owner refused (exit 2), or its reader rejected what it wrote."""

    def __init__(self, run: ToolRun | None, code: str, message: str) -> None:
        super().__init__(code, message)
        self.run = run

    def error(self) -> dict[str, Any]:
        """The failed outcome's ``error``: the owner's code and hint, and which command."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.run is not None:
            error["command"] = " ".join(self.run.command[:2])
            if self.run.hint is not None:
                error["hint"] = self.run.hint
        return error


class _Steps:
    """The owner commands of one task, their cost summed for the report."""

    def __init__(self) -> None:
        self.runs: list[ToolRun] = []

    def run(self, name: str, *args: Any, stdin: bytes | None = None) -> dict[str, Any]:
        result = run_tool(name, *args, stdin=stdin)
        self.runs.append(result)
        if result.refused:
            error = result.error
            raise _Refused(result, error["code"], error.get("message", ""))
        if result.returncode != 0 or result.document is None:
            error = result.error
            raise TransientTaskError(
                f"{' '.join(result.command[:2])}: {error['code']}: {error.get('message', '')}"
            )
        return result.document

    def cost(self) -> dict[str, Any]:
        return {
            "owner_seconds": round(sum(r.seconds for r in self.runs), 3),
            "owner_cpu_seconds": round(sum(r.cpu_seconds for r in self.runs), 3),
            "peak_rss_bytes": max((r.peak_rss_bytes for r in self.runs), default=0),
            "commands": [" ".join(r.command[:2]) for r in self.runs],
        }


def _attach(task: dict[str, Any], vault: Path, database: Path, steps: _Steps) -> dict | None:
    """The attach_media change for an unattached recording (hashed and probed by tracking-db)."""
    if not task["args"].get("attach"):
        return None
    return steps.run("rvault-db", "attach-media", database, "--talk", task["talk"],
                     vault / task["args"]["recording"])  # fmt: skip


def _transcript(task: dict[str, Any], vault: Path, database: Path, steps: _Steps) -> dict:
    from rvault_transcript.api import validate_fetch_result

    args = task["args"]
    (vault / args["out"]).parent.mkdir(exist_ok=True)  # the contract's transcripts/ folder
    command: list[Any] = [args["label"], "--out", vault / args["out"], "--vault-root", vault]
    command += ["--existing-source", args["existing_source"]]
    attached = _attach(task, vault, database, steps) if task["source"] == "recording" else None
    if task["source"] == "recording":
        seconds = args.get("duration_seconds")
        if attached is not None:
            seconds = attached["plan"]["mutations"][0]["value"]["duration_seconds"]
        command += ["--audio", vault / args["recording"]]
        if seconds is not None:
            command += ["--duration-seconds", f"{seconds:.3f}"]
    fetched = steps.run("rvault-transcript", "fetch", *command)
    issues = validate_fetch_result(fetched)
    if issues:
        raise _Refused(None, "invalid_fetch_result", "; ".join(i.code for i in issues))
    report = steps.run("rvault-db", "register-transcript", database, "--talk", task["talk"],
                       "-", "--fetch-result", stdin=artifact_bytes(fetched))  # fmt: skip
    if attached is not None:
        report["plan"]["mutations"] = attached["plan"]["mutations"] + report["plan"]["mutations"]
    summary = {k: fetched.get(k) for k in ("method", "language", "word_count", "transcript_source")}
    return {"artifacts": [args["out"]], "facts": summary, "registration": report}


def _deck(task: dict[str, Any], vault: Path, database: Path, steps: _Steps) -> dict:
    from rvault_pptx_evidence.api import read_extraction

    args = task["args"]
    out = vault / args["out"]
    out.parent.mkdir(parents=True, exist_ok=True)
    root = Path(args["deck_root"])
    steps.run("rvault-pptx", "extract", root / args["deck"], "--out", out, "--source-root", root)
    reading = read_extraction(out.read_bytes())
    if reading.status != "current":
        raise _Refused(None, "extraction_not_current", f"{args['out']}: {reading.status}")
    report = steps.run("rvault-db", "record-deck", database, out, "--talk", task["talk"])
    return {"artifacts": [args["out"]], "facts": reading.to_dict(), "registration": report}


def _slides(task: dict[str, Any], vault: Path, database: Path, steps: _Steps) -> dict:
    from rvault_video_extraction.api import manifest_path, read_manifest

    args = task["args"]
    video_id = args["video_id"]
    steps.run(
        "rvault-video",
        "extract",
        vault / args["recording"],
        vault / args["outdir"],
        video_id,
        "--vault-root",
        vault,
    )
    relative = manifest_path(video_id)
    report = read_manifest(vault / relative, vault_root=vault, expected_video_id=video_id)
    if not report.usable:
        raise _Refused(None, "manifest_unusable", f"{relative}: {report.status}")
    facts = {"status": report.status, "trusted": bool(report.trusted)}
    return {"artifacts": [relative], "facts": facts, "registration": None}


RUNNERS: dict[str, Callable[[dict[str, Any], Path, Path, _Steps], dict]] = {
    "transcript": _transcript,
    "deck": _deck,
    "slides": _slides,
}


def run_task(task: dict[str, Any], vault_root: str, database_path: str) -> dict[str, Any]:
    """Run one planned task on this worker; the outcome the driver registers from."""
    steps = _Steps()
    started = time.perf_counter()
    outcome: dict[str, Any] = {"key": task["key"], "talk": task["talk"], "kind": task["kind"]}
    try:
        result = RUNNERS[task["kind"]](task, Path(vault_root), Path(database_path), steps)
    except _Refused as refused:
        outcome |= {"state": "failed", "error": refused.error()}
    else:
        registration = result.pop("registration")
        outcome |= {"state": "done", **result}
        outcome["mutations"] = registration["plan"]["mutations"] if registration else []
        outcome["read_sha256"] = registration["input_sha256"] if registration else None
    outcome["seconds"] = round(time.perf_counter() - started, 3)
    outcome |= steps.cost()
    return outcome
