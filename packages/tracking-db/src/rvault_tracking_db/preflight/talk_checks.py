"""The per-talk and cross-talk checks of an already-read database, and status's light view.

``rvault-db preflight`` runs them in full (:mod:`.run`); ``status`` and the
vault site show the light view (:func:`identity_by_talk`): identities,
collisions, rejections and each deck binding's stored proof, without opening
artifacts. The light view imports only what it runs, so a status does not
load the owner read's locator, the capture review or the artifact probes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from rvault_tracking_db.capabilities import SourceRoots
from rvault_tracking_db.preflight import collisions, decks, identity
from rvault_tracking_db.preflight.findings import BLOCKING, Findings, TalkRef

ArtifactCheck = Callable[[TalkRef, Mapping[str, Any], Findings], None]


def check_talks(
    database: Mapping[str, Any],
    talks: list[tuple[TalkRef, Mapping[str, Any]]],
    vault_root: Path,
    findings: Findings,
    *,
    full: bool = True,
) -> None:
    """Every per-talk and cross-talk check over an already-read database.

    ``full=False`` is the light view ``status`` and the site show: the
    identity, collision and rejection checks and each deck binding's stored
    proof, without opening artifacts, probing PDFs or re-reading extractions.
    """
    config = database.get("config")
    config = config if isinstance(config, Mapping) else {}
    roots = SourceRoots.from_config(vault_root, config)
    check_artifacts = _artifact_check(roots) if full else None
    for ref, talk in talks:
        identity.check_youtube_id(talk, ref, findings)
        identity.check_source_identity(talk, config, ref, findings)
        collisions.check_rejections(ref, talk, findings)
        if check_artifacts is not None:
            check_artifacts(ref, talk, findings)
    collisions.check_duplicates(talks, findings)
    collisions.check_relations(talks, findings)
    decks.check_decks(database, talks, roots, findings, recheck=full)


def _artifact_check(roots: SourceRoots) -> ArtifactCheck:
    """The full view's artifact check of one talk, with one PDF prober and video reader.

    Imported here: the light view never opens an artifact.
    """
    from rvault_tracking_db.preflight import artifacts, pdfs, video

    probe = pdfs.pdf_prober()
    video_api = video.video_reader()

    def check(ref: TalkRef, talk: Mapping[str, Any], findings: Findings) -> None:
        artifacts.check_artifacts(ref, talk, roots, findings, probe, video_api)

    return check


def identity_by_talk(database: Mapping[str, Any], vault_root: Path) -> dict[int, dict[str, Any]]:
    """Each talk's identity findings (the light view), keyed by its index in ``talks``.

    ``{"blocking": n, "warnings": n, "findings": [...]}`` for every talk that
    has any; the deck binding's stored decision comes with it.
    """
    findings = Findings()
    check_talks(database, talks_of(database), vault_root, findings, full=False)
    out: dict[int, dict[str, Any]] = {}
    for finding in findings.sorted():
        if finding.talk_index is None:
            continue
        entry = out.setdefault(finding.talk_index, {"blocking": 0, "warnings": 0, "findings": []})
        entry["blocking" if finding.severity == BLOCKING else "warnings"] += 1
        entry["findings"].append(finding.to_dict())
    return out


def talks_of(database: Mapping[str, Any]) -> list[tuple[TalkRef, Mapping[str, Any]]]:
    """Each talk object of the database with its reference (index, filename when a string)."""
    items = database.get("talks")
    if not isinstance(items, list):
        return []
    out = []
    for index, talk in enumerate(items):
        if isinstance(talk, Mapping):
            filename = talk.get("filename")
            out.append((TalkRef(index, filename if isinstance(filename, str) else None), talk))
    return out
