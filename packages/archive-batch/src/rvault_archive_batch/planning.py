"""``rvault-batch plan``: the acquisition tasks a vault needs, from ``rvault-db status``.

The database owner's status report already decides, per talk, what blocks it
(its next action) and what the owners' readers say about the evidence on
disk (transcript state, deck verdict, manifest status). The plan turns those
rows into independent tasks:

* ``transcript`` when the talk has no usable transcript, or one on disk that
  the database does not name yet: Whisper on the talk's recording, else the
  YouTube captions (``rvault-transcript fetch`` validates an existing bundle
  instead of replacing it, so a rerun after a lost registration is cheap);
* ``deck`` when the catalogued deck is not extracted or the pptx owner says
  it must be regenerated (the rule behind status's ``extract_deck``);
* ``slides`` when a recording that shows the delivery exists and no manifest
  does.

A talk under a live claim, analysed, otherwise not claimable, awaiting a
torn bundle's recovery, or whose attached recording was replaced (its
evidence would change: a person decides) is skipped with the status's own
next action; so is a talk whose artifacts are current, which
makes a rerun resume where the last batch stopped. A talk's recording is the
attached recording (``local_media``, ``rvault-db attach-media``), else the
contract download path ``slides-rebuild/{youtube_id}/{youtube_id}.mp4``,
which the batch attaches in its transaction. Slides are extracted only from a
recording with a video stream: the attached one when tracking-db's
``recording_shows_video`` says so, else the contract download; an audio-only
recording (a WAV attached beside a YouTube talk) shows nothing to extract.
They are keyed like every reader of the manifest keys them
(``talk_video_key``: the YouTube ID, else the attached recording's stem).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from rvault_contracts.cli import Refusal
from rvault_tracking_db import api as db_api

from rvault_archive_batch.owner_tools import run_tool

REPORT_VERSION = 1
GIB = 1024**3
#: what one task of each kind may hold at its peak (Dask resource ``memory``, bytes);
#: measured peaks are in the README's benchmark table, these leave headroom.
MEMORY = {"transcript": 2 * GIB, "slides": 1 * GIB, "deck": GIB // 2}
ACQUIRING = ("attach_media", "register_transcript", "extract_deck", "normalize", "claim")


@dataclass(frozen=True)
class Task:
    """One acquisition for one talk; plain data so it pickles to any worker."""

    talk: str
    kind: str
    source: str
    args: dict[str, Any]
    memory_bytes: int

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.talk}"

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, **asdict(self)}


@dataclass
class BatchPlan:
    database_path: str
    database_sha256: str
    vault_root: str
    tasks: list[Task] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        kinds: dict[str, int] = {}
        for task in self.tasks:
            kinds[task.kind] = kinds.get(task.kind, 0) + 1
        return {
            "schema_version": REPORT_VERSION,
            "ok": True,
            "command": "plan",
            "database_path": self.database_path,
            "database_sha256": self.database_sha256,
            "tasks": [t.to_dict() for t in self.tasks],
            "skipped": self.skipped,
            "totals": {
                "tasks": len(self.tasks),
                "by_kind": dict(sorted(kinds.items())),
                "skipped_talks": len(self.skipped),
            },
        }


def database_path(vault: Path) -> Path:
    """VAULT may name the vault root or its ``tracking-database.json``."""
    return vault if vault.name == "tracking-database.json" else vault / "tracking-database.json"


def read_status(database: Path) -> dict[str, Any]:
    """The ``db-status-report`` v1 from the database owner's own command."""
    run = run_tool("rvault-db", "status", database, "--format", "json")
    if run.returncode != 0 or run.document is None:
        error = run.error
        raise Refusal(
            error["code"],
            f"rvault-db status: {error.get('message')}",
            str(database),
            hint=run.hint or "run rvault-db status on the vault and fix what it reports",
        )
    return run.document


def build_plan(vault: Path, max_talks: int | None = None) -> BatchPlan:
    """The batch for ``vault``; with ``max_talks``, only the first talks that need work.

    A bounded batch bounds what one registration carries (and what a lost
    driver would leave unregistered); the talks left over are skipped as
    ``deferred`` and planned by the next batch.
    """
    database = database_path(vault)
    status = read_status(database)
    read = db_api.read_database(database)  # a DatabaseRefusal is a Refusal: exit 2 as is
    if read.sha256 != status["sha256"]:
        raise Refusal(
            "database_changed_while_planning",
            "the tracking database changed between the status read and the owner read",
            str(database),
            hint="another writer is active; run rvault-batch plan again when it is done",
        )
    vault_root = Path(read.database_path).parent
    assert read.database is not None
    talks = {t.get("filename"): t for t in read.database.get("talks") or [] if isinstance(t, dict)}
    config = read.database.get("config") or {}
    plan = BatchPlan(read.database_path, status["sha256"], str(vault_root))
    for row in status["talks"]:
        if max_talks is not None and len({t.talk for t in plan.tasks}) >= max_talks:
            text = "beyond --max-talks; the next batch plans it"
            plan.skipped.append({"talk": row["filename"], "reason": "deferred", "text": text})
            continue
        _plan_talk(plan, row, talks.get(row["filename"]) or {}, config, vault_root)
    return plan


def _plan_talk(
    plan: BatchPlan,
    row: Mapping[str, Any],
    talk: Mapping[str, Any],
    config: Mapping[str, Any],
    vault_root: Path,
) -> None:
    filename = row["filename"]
    action = row["next_action"]
    # a recording replaced since it was attached needs a person: its evidence would change
    replaced = (row.get("media") or {}).get("state") not in (None, "current")
    if action["code"] not in ACQUIRING or replaced:
        plan.skipped.append({"talk": filename, "reason": action["code"], "text": action["text"]})
        return
    video_id = db_api.talk_video_id(talk)
    media = db_api.talk_local_media(talk)
    recording = str(media["path"]) if media else _recording(vault_root, video_id)
    tasks = [
        _transcript_task(row, talk, video_id, recording, media),
        _deck_task(row, config),
        _slides_task(row, db_api.talk_video_key(talk), _filmed(vault_root, media, video_id)),
    ]
    found = [t for t in tasks if t is not None and not _deck_planned(plan, t)]
    if not found:
        plan.skipped.append({"talk": filename, "reason": "current", "text": action["text"]})
    plan.tasks.extend(found)


def _deck_planned(plan: BatchPlan, task: Task) -> bool:
    """A deck two talks share is extracted once (its catalog record is per deck)."""
    return task.kind == "deck" and any(
        t.kind == "deck" and t.args["deck"] == task.args["deck"] for t in plan.tasks
    )


def _recording(vault_root: Path, video_id: str | None) -> str | None:
    if video_id is None:
        return None
    relative = f"slides-rebuild/{video_id}/{video_id}.mp4"
    path = vault_root / relative
    return relative if path.is_file() and not path.is_symlink() else None


def _filmed(vault_root: Path, media: Mapping[str, Any] | None, video_id: str | None) -> str | None:
    """The recording slides are extracted from: one that shows the delivery.

    The attached recording when it has a video stream (the db-local-media v2
    ``streams``, a v1 record probed), else the contract download of the
    YouTube video. An audio-only attached recording is still the transcript's
    source, never the slides': it has no frame to extract, while the talk's
    video may well be on disk.
    """
    if media is not None and db_api.recording_shows_video(vault_root, media):
        return str(media["path"])
    return _recording(vault_root, video_id)


def _transcript_task(
    row: Mapping[str, Any],
    talk: Mapping[str, Any],
    video_id: str | None,
    recording: str | None,
    media: Mapping[str, Any] | None,
) -> Task | None:
    state = row["transcript"]
    on_disk = state["state"] not in ("missing", "invalid")
    if on_disk and talk.get("transcript_path") == state["path"]:
        return None
    label = video_id or PurePosixPath(row["filename"]).stem
    args: dict[str, Any] = {
        "out": f"transcripts/{label}.txt",
        "existing_source": talk.get("transcript_source") or "unknown",
        "label": label,
    }
    if recording is not None:
        # an unattached recording is attached in the same batch transaction, so the
        # transcript's receipts are bound to the bytes the database records
        duration = media["duration_seconds"] if media else db_api.talk_duration_seconds(talk)
        args |= {"recording": recording, "attach": media is None, "duration_seconds": duration}
        source = "recording"
    elif video_id is not None:
        source = "captions"
    else:
        return None
    return Task(row["filename"], "transcript", source, args, MEMORY["transcript"])


def _deck_task(row: Mapping[str, Any], config: Mapping[str, Any]) -> Task | None:
    deck = row["deck"]
    if deck["pptx_path"] is None or (deck["state"] == "extracted" and not deck["regenerate"]):
        return None
    root = config.get("pptx_source_dir")
    if not isinstance(root, str) or not root:
        return None
    relative = str(PurePosixPath(deck["pptx_path"]).with_suffix(""))
    args = {
        "deck": deck["pptx_path"],
        "deck_root": root,
        "out": f"pptx/{relative}.extraction.json",
    }
    return Task(row["filename"], "deck", "pptx", args, MEMORY["deck"])


def _slides_task(
    row: Mapping[str, Any], video_id: str | None, recording: str | None
) -> Task | None:
    """``video_id`` is the talk's video key (the manifest's name), ``recording`` a filmed one."""
    if recording is None or video_id is None or row["video"]["status"] != "missing":
        return None
    args = {"video_id": video_id, "recording": recording, "outdir": f"slides-rebuild/{video_id}"}
    return Task(row["filename"], "slides", "recording", args, MEMORY["slides"])
