"""``rvault-db status`` and the vault site say the same about every talk's evidence.

Both render tracking-db's one evidence summary (``api.talk_evidence``); before
it they asked the owners separately and disagreed (the site never asked the
pptx owner, took a directory at the manifest path for a manifest, and chose
the transcript path by another rule). The vault here holds every evidence
state a talk can be in: transcript missing, unverified (no receipts) and
valid (real ``rvault-transcript vtt-cleanup`` receipts); deck unset, not
catalogued, catalogued but gone (the pptx owner's verdict) and failed;
manifest missing, trusted (a real ``rvault-video extract``) and a directory
where the manifest belongs; slide PDF unset, current and trusted, unbound,
stale and missing; recording current and replaced. The status runs as the
installed command, the site's reader in process, and every lane is compared.
A second vault, persisted by the installed ``rvault-returns persist``, has a
transcript re-fetched after its analysis: status, normalize and the site name
the same stale evidence identities. A third vault persists a talk whose deck
(python-pptx) was extracted by ``rvault-pptx extract`` and recorded by
``rvault-db record-deck``; the deck edited afterwards makes the cited
extraction stale for status, ``rvault-analysis write`` and the site alike.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from _persist_producer import CLAIMED_AT, NAMES, RUN_DATE, owner_transcript, persisted_vault
from _queue_producer import claim
from _returns_producer import completed_return
from _support import pending_talk, write_current_database
from _video_producer import VIDEO_ID, extract
from rvault_analysis_writer.site.evidence import read_talk_evidence
from rvault_returns_persistence.catalog import load_catalog
from rvault_testkit.plugin import run_cli, run_cli_applied
from rvault_testkit.tracking_db.samples import example_pptx, example_pptx_failed
from rvault_tracking_db.api import SourceRoots, deck_catalog, deck_record
from rvault_video_extraction import api as video_api

OTHER_VIDEO = "ZyXwVuTsR_2"


def _vtt(words: int) -> str:
    lines = ["WEBVTT", ""]
    for i in range(words // 7):
        at = f"00:{i // 60:02d}:{i % 60:02d}"
        lines += [f"{at}.000 --> {at}.900", f"we discuss point {i} in evidence now", ""]
    return "\n".join(lines)


def _identity(path: Path) -> dict[str, Any]:
    data = path.read_bytes()
    return {"sha256": hashlib.sha256(data).hexdigest(), "size_bytes": len(data)}


def _deck(path: Path) -> None:
    from pptx import Presentation

    deck = Presentation()
    deck.slides.add_slide(deck.slide_layouts[0]).shapes.title.text = "Opening"
    deck.save(str(path))


def _talks(root: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Talks covering every evidence state, and the deck catalog they name."""
    trusted = video_api.read_manifest(
        root / video_api.manifest_path(VIDEO_ID), vault_root=root, expected_video_id=VIDEO_ID
    ).trusted_slide_region_path
    assert trusted is not None  # the manifest names it absolute; the talk record, vault-relative
    region = Path(trusted).relative_to(root).as_posix()
    (root / "slides").mkdir()
    (root / "slides" / "authored.pdf").write_bytes((root / region).read_bytes())
    stale_identity = _identity(root / "slides" / "authored.pdf")
    (root / "slides" / "authored.pdf").write_bytes((root / region).read_bytes() + b"\n%more\n")
    (root / video_api.manifest_path(OTHER_VIDEO)).mkdir(parents=True)  # not a manifest
    _deck(root / "Deck.pptx")
    recording = root / "slides-rebuild" / VIDEO_ID / f"{VIDEO_ID}.mp4"
    media = {"schema_version": 1, "path": recording.relative_to(root).as_posix(),
             "duration_seconds": 3.0, **_identity(recording)}  # fmt: skip
    (root / "recordings").mkdir()
    (root / "recordings" / "replaced.mp4").write_bytes(recording.read_bytes()[:-1])
    replaced = {**media, "path": "recordings/replaced.mp4"}

    bare = {"schema_version": 5, "filename": "2024-01-01-bare.md", "status": "pending"}
    unverified = pending_talk(root, "2024-02-01-unverified.md", "a transcript without receipts\n")
    unverified |= {"pptx_path": "Deck.pptx", "slides_local_path": region}
    video = pending_talk(root, "2024-03-01-video.md", "placeholder\n")
    video |= {"youtube_id": VIDEO_ID, "slides_local_path": region,
              "slide_source": "video_extracted", "slides_local_identity": _identity(root / region),
              "local_media": media, "pptx_path": "Gone.pptx"}  # fmt: skip
    stale = {"schema_version": 5, "filename": "2024-04-01-stale.md", "status": "pending",
             "youtube_id": OTHER_VIDEO, "slides_local_path": "slides/authored.pdf",
             "slides_local_identity": stale_identity, "local_media": replaced,
             "pptx_path": "Failed.pptx"}  # fmt: skip
    missing = {"schema_version": 5, "filename": "2024-05-01-missing.md", "status": "pending",
               "slides_local_path": "slides/absent.pdf",
               "slides_local_identity": stale_identity}  # fmt: skip
    gone = {**example_pptx(), "pptx_path": "Gone.pptx", "talk_filename": video["filename"]}
    failed = {**example_pptx_failed(), "pptx_path": "Failed.pptx"}
    return [bare, unverified, video, stale, missing], [gone, failed]


def _valid_transcript(root: Path, name: str) -> None:
    vtt = root / "transcripts" / "captions.vtt"
    vtt.write_text(_vtt(560), encoding="utf-8")
    out = root / "transcripts" / name
    result = run_cli("rvault-transcript", "vtt-cleanup", vtt, out, "--force",
                     "--vault-root", root, "--language", "en")  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


def _agree(row: dict[str, Any], site: Any) -> None:
    """Every lane of one talk: the status row and the site's view say the same."""
    transcript = row["transcript"]
    assert site.transcript.path == transcript["path"]
    assert site.transcript.state == transcript["state"]
    if transcript["path"] is not None:
        quality = (site.transcript.quality_code, site.transcript.timing_code)
        assert quality == (transcript["quality"], transcript["timing"])
    video = row["video"]
    assert (site.manifest.path, site.manifest.state, site.manifest.trusted) == (
        video["manifest"], video["status"], video["trusted"],
    )  # fmt: skip
    slides = row["slides"]
    assert site.slides.path == (None if slides is None else slides["path"])
    if slides is not None and slides["state"] == "slides_missing":
        assert not site.slides.readable
    deck = row["deck"]
    assert site.deck_state == (deck["state"] if site.deck else "missing")
    assert (site.summary.deck.evidence_class, site.summary.deck.regenerate) == (
        deck["evidence_class"], deck["regenerate"],
    )  # fmt: skip
    media = site.summary.media
    assert row["media"] == (None if media is None else {"path": media.path, "state": media.state})


def test_status_and_site_agree_on_every_evidence_state(tmp_path: Path) -> None:
    root, _ = extract(tmp_path, "--region", "0.03,0.12,0.66,0.88", "--region-verified")
    talks, catalog = _talks(root)
    _valid_transcript(root, "2024-03-01-video.md.txt")
    db = write_current_database(root, talks)
    document = json.loads(db.read_text())
    document["pptx_catalog"] = catalog
    db.write_text(json.dumps(document), encoding="utf-8")

    result = run_cli("rvault-db", "status", db, "--format", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    rows = {row["filename"]: row for row in result.json["talks"]}
    roots = SourceRoots.from_config(root, document["config"])
    records = deck_catalog(document)
    seen: dict[str, set[Any]] = {
        lane: set() for lane in ("transcript", "deck", "video", "slides", "media")
    }
    for talk in document["talks"]:
        row = rows[talk["filename"]]
        _agree(row, read_talk_evidence(talk, roots, deck_record(records, talk)))
        seen["transcript"].add(row["transcript"]["state"])
        seen["deck"].add(row["deck"]["state"])
        seen["video"].add((row["video"]["status"], row["video"]["trusted"]))
        seen["slides"].add(None if row["slides"] is None else row["slides"]["state"])
        seen["media"].add(None if row["media"] is None else row["media"]["state"])
    assert seen["transcript"] == {"missing", "unverified", "valid"}
    assert seen["deck"] == {"none", "not_catalogued", "extracted", "extraction_failed"}
    assert seen["video"] == {("missing", False), ("current", True), ("invalid", False)}
    assert seen["slides"] == {None, "unbound", "current", "slides_stale", "slides_missing"}
    assert seen["media"] == {None, "current", "media_stale"}
    video = read_talk_evidence(talks[2], roots, deck_record(records, talks[2]))
    assert video.slides.trusted and video.slides.reason == "trusted video-extracted slide region"
    assert rows[talks[2]["filename"]]["deck"]["evidence_class"] is not None  # the pptx owner's


_SEGMENT = re.compile(r'\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]')


def _at(document: Any, path: str) -> Any:
    """The value at a ``$[...]`` JSON path the reports use."""
    for index, key in _SEGMENT.findall(path[1:]):
        document = document[int(index)] if index else document[json.loads(f'"{key}"')]
    return document


def _stale_status(db: Path, document: Any) -> tuple[Any, set[tuple[str, Any]]]:
    """``rvault-db status`` of ``db``, and each stale identity it flags: (talk, digest cited)."""
    status = run_cli("rvault-db", "status", db, "--format", "json")
    assert status.returncode == 0, status.stdout + status.stderr
    flagged = {
        (row["filename"], _at(document, issue["path"]))
        for row in status.json["talks"]
        for issue in row["evidence_issues"]
        if issue["code"] == "evidence_identity_stale"
    }
    return status, flagged


def test_status_normalize_and_site_agree_on_evidence_replaced_after_persist(
    tmp_path: Path,
) -> None:
    """A transcript re-fetched after a real persist: status shows that talk (and only it)
    as needing reprocessing at the digests' JSON paths, normalize would requeue exactly
    it, and the site's ``stale_evidence`` names the same digests (one check, tracking-db's
    ``IdentityCheck``, behind all three)."""
    db, returns, _ = persisted_vault(tmp_path)
    document = json.loads(db.read_text(encoding="utf-8"))
    first = next(t for t in document["talks"] if t["filename"] == returns[0]["filename"])
    inspected = first["pattern_observations"]["source_inspection"][0]
    replaced = db.parent / inspected["artifact_path"]
    replaced.write_bytes(replaced.read_bytes() + b"a line added after the analysis\n")

    status, flagged = _stale_status(db, document)
    rows = {row["filename"]: row for row in status.json["talks"]}
    assert rows[first["filename"]]["next_action"]["code"] == "normalize"
    assert all(rows[r["filename"]]["evidence_issues"] == [] for r in returns[1:])

    site = run_cli("rvault-analysis", "site", db.parent / "report", "--db", db)
    assert site.returncode == 0, site.stdout + site.stderr
    reported = {(s["filename"], s["recorded_sha256"]) for s in site.json["stale_evidence"]}
    assert flagged == reported == {(first["filename"], inspected["artifact_sha256"])}
    roots = SourceRoots.from_config(db.parent, document["config"])
    summary = read_talk_evidence(first, roots, None).summary
    assert summary is not None
    assert [s.identity.sha256 for s in summary.stale_identities] == [inspected["artifact_sha256"]]

    normalize = run_cli("rvault-db", "queue", db, "normalize")
    assert normalize.returncode == 0, normalize.stdout + normalize.stderr
    requeued = {
        c["filename"] for c in normalize.json["changes"] if c["path"].endswith('["status"]')
    }
    assert requeued == {first["filename"]}


def _deck_vault(root: Path) -> tuple[Path, Path]:
    """(database, deck): the first talk's deck, a real python-pptx
    deck extracted by the installed ``rvault-pptx extract`` and recorded by ``rvault-db
    record-deck``, so the scaffold and the installed persist cite the extraction."""
    from pptx import Presentation

    vault = root / "vault"
    talks = []
    for name in NAMES:
        path = owner_transcript(vault, name.removesuffix(".md"))
        talks.append({"schema_version": 5, "filename": name, "status": "pending",
                      "transcript_path": path})  # fmt: skip
    deck, extraction = vault / "decks" / "talk.pptx", vault / "pptx-extractions" / "talk.json"
    deck.parent.mkdir()
    extraction.parent.mkdir()
    made = Presentation()
    for n in (1, 2):
        made.slides.add_slide(made.slide_layouts[1]).shapes.title.text = f"Step {n}"
    made.save(str(deck))
    result = run_cli("rvault-pptx", "extract", "decks/talk.pptx", "--no-ocr", "--out",
                     extraction, "--source-root", ".", cwd=vault)  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    talks[0]["pptx_path"] = "decks/talk.pptx"
    db = write_current_database(vault, talks)
    recorded = run_cli_applied("rvault-db", "record-deck", db, extraction)
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    claim(db, CLAIMED_AT, extra=("--catalog-fingerprint", load_catalog().fingerprint))
    returns = [completed_return(db, name) for name in NAMES]
    for n, ret in enumerate(returns, start=3):
        for lane in ("patterns_detected", "applicability_assessments"):
            for row in ret["pattern_observations"][lane]:
                for citation in row["evidence_citations"]:
                    citation["quote"] = f"in part {n} of the talk"
    (root / "returns.json").write_text(json.dumps(returns), encoding="utf-8")
    persisted = run_cli_applied("rvault-returns", "persist", db, root / "returns.json",
                                "--run-date", RUN_DATE)  # fmt: skip
    assert persisted.returncode == 0, persisted.stdout + persisted.stderr
    return db, deck


def test_status_write_and_site_agree_on_a_deck_edited_after_its_extraction(
    tmp_path: Path,
) -> None:
    """The extraction's bytes are unchanged, the deck it describes is not: status flags the
    cited extraction's digest, and ``write`` (given the database's deck catalog, as the
    site is) and the site report the same digest for the same talk, and no other."""
    from pptx import Presentation

    db, deck = _deck_vault(tmp_path)
    document = json.loads(db.read_text(encoding="utf-8"))
    first = next(t for t in document["talks"] if t["filename"] == NAMES[0])
    [cited] = [r for r in first["pattern_observations"]["source_inspection"]
               if r["source"] == "native_deck"]  # fmt: skip
    outdir = db.parent / "analyses"
    outdir.mkdir()
    write = ("rvault-analysis", "write", tmp_path / "returns.json", outdir, "--db", db)
    before = run_cli(*write)
    assert before.returncode == 0 and before.json["stale_evidence"] == [], before.stdout

    edited = Presentation(str(deck))
    edited.slides[1].shapes.title.text = "Step 2, rewritten after the extraction"
    edited.save(str(deck))
    _, flagged = _stale_status(db, document)
    written = run_cli(*write)
    assert written.returncode == 0, written.stdout + written.stderr
    site = run_cli("rvault-analysis", "site", db.parent / "report", "--db", db)
    assert site.returncode == 0, site.stdout + site.stderr
    for report in (written.json, site.json):
        reported = {(s["filename"], s["recorded_sha256"]) for s in report["stale_evidence"]}
        assert reported == flagged == {(NAMES[0], cited["artifact_sha256"])}
        assert {s["path"] for s in report["stale_evidence"]} == {cited["artifact_path"]}
    [warning] = [w for w in written.json["warnings"] if cited["artifact_path"] in w]
    assert "made from decks/talk.pptx, which has other bytes now" in warning


def test_a_current_manifest_vouches_for_its_recording_once(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """An analysed talk cites its downloaded recording (delivery_video): the video owner's
    reader re-checks it against the manifest's source receipt, so the evidence-identity
    check takes that digest instead of hashing the recording a second time; replaced, the
    manifest is stale and the identity is reported from the recording's own bytes."""
    from rvault_tracking_db import evidence_identity
    from rvault_tracking_db.api import OwnerReaders, talk_evidence

    root, _ = extract(tmp_path)
    recording = root / "slides-rebuild" / VIDEO_ID / f"{VIDEO_ID}.mp4"
    row = {"source": "delivery_video", "time_ranges": [[0, 3.0]], "duration_seconds": 3.0,
           "coverage_complete": True, "absence_capability_complete": False,
           "absence_capability_reason": "bare_delivery_video", "artifact_root": "vault",
           "artifact_path": recording.relative_to(root).as_posix(),
           "artifact_sha256": _identity(recording)["sha256"]}  # fmt: skip
    ledger = {"source_inspection": [row]}
    talk = {"schema_version": 5, "filename": "2024-03-01-video.md", "status": "processed",
            "youtube_id": VIDEO_ID, "pattern_observations": ledger}  # fmt: skip
    hashed: list[int] = []
    digest = evidence_identity.hashlib.file_digest

    def counting(handle: Any, name: str) -> Any:
        hashed.append(handle.fileno())
        return digest(handle, name)

    monkeypatch.setattr(evidence_identity.hashlib, "file_digest", counting)
    roots = SourceRoots(root)
    summary = talk_evidence(talk, roots, None, OwnerReaders.installed())
    assert summary.manifest.status == "current" and summary.stale_identities == ()
    assert hashed == []  # the video owner's check stood for it

    recording.write_bytes(recording.read_bytes() + b"\0")
    summary = talk_evidence(talk, roots, None, OwnerReaders.installed())
    assert summary.manifest.status == "stale"
    [stale] = summary.stale_identities
    assert (stale.identity.path, stale.code) == (row["artifact_path"], "evidence_changed")
    assert stale.actual_sha256 == _identity(recording)["sha256"] and len(hashed) == 1
