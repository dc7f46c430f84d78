"""The per-talk and cross-talk checks of an already-read database, and status's light view.

``rvault-db preflight`` runs them in full (:mod:`.run`); ``status`` and the
vault site show the light view (:func:`identity_by_talk`): identities,
collisions, rejections and each deck binding's stored proof, without opening
artifacts; :class:`LightView` makes it talk by talk, for a status that
streams the talks and keeps none, and with ``full=True`` makes the full view
talk by talk for a preflight that does the same (:mod:`.streamed`). The
light view imports only what it runs, so a status does not load the owner
read's locator, the capture review or the artifact probes.
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
    proof, without opening artifacts, probing PDFs or re-reading extractions
    (:class:`LightView` gives the same findings talk by talk).
    """
    config = config_of(database)
    roots = SourceRoots.from_config(vault_root, config)
    check_artifacts = _artifact_check(roots) if full else None
    for ref, talk in talks:
        check_identity(ref, talk, config, findings)
        if check_artifacts is not None:
            check_artifacts(ref, talk, findings)
    _check_collisions(collisions.recording_claims(talks), findings)
    decks.check_decks(database, talks, roots, findings, recheck=full)


def config_of(database: Mapping[str, Any]) -> Mapping[str, Any]:
    config = database.get("config")
    return config if isinstance(config, Mapping) else {}


def check_identity(
    ref: TalkRef, talk: Mapping[str, Any], config: Mapping[str, Any], findings: Findings
) -> None:
    """One talk against its own recording and its own rejected sources."""
    identity.check_youtube_id(talk, ref, findings)
    identity.check_source_identity(talk, config, ref, findings)
    collisions.check_rejections(ref, talk, findings)


def _check_collisions(claims: list[collisions.RecordingClaim], findings: Findings) -> None:
    collisions.check_duplicates(claims, findings)
    collisions.check_relations(claims, findings)


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


class LightView:
    """``check_talks(..., full=False)`` fed one talk at a time (a status streaming a vault);
    ``full=True``: ``check_talks``'s full view (a preflight streaming a vault).

    Each talk's own checks (and in the full view its artifact checks) run as
    it comes; of the talk only its :class:`~.collisions.RecordingClaim` is
    kept for the cross-talk checks, which run in :meth:`findings`, and what
    its deck binding's check needs (:class:`~.decks.StoredBindings`, or
    :class:`~.decks.Rechecks` in the full view). The findings come in
    ``check_talks``'s order: per-talk, collisions, deck bindings.
    """

    def __init__(
        self, database: Mapping[str, Any], vault_root: Path, *, full: bool = False
    ) -> None:
        """``database`` needs only its ``config`` and ``pptx_catalog``."""
        self._config = config_of(database)
        roots = SourceRoots.from_config(vault_root, self._config)
        self._artifacts = _artifact_check(roots) if full else None
        self._decks = (decks.Rechecks if full else decks.StoredBindings)(database, roots)
        self._talk_findings = Findings()
        self._claims: list[collisions.RecordingClaim] = []

    def add(self, ref: TalkRef, talk: Mapping[str, Any]) -> None:
        check_identity(ref, talk, self._config, self._talk_findings)
        if self._artifacts is not None:
            self._artifacts(ref, talk, self._talk_findings)
        self._claims.append(collisions.RecordingClaim.of(ref, talk))
        self._decks.add(ref, talk)

    @property
    def talk_count(self) -> int:
        """How many talks were added (``talks_of``'s length for a whole database)."""
        return len(self._claims)

    def findings(self) -> Findings:
        findings = Findings(list(self._talk_findings.items))
        _check_collisions(self._claims, findings)
        self._decks.report(findings)
        return findings

    def by_talk(self) -> dict[int, dict[str, Any]]:
        """Each talk's identity findings, keyed by its index in ``talks``.

        ``{"blocking": n, "warnings": n, "findings": [...]}`` for every talk
        that has any; the deck binding's stored decision comes with it.
        """
        out: dict[int, dict[str, Any]] = {}
        for finding in self.findings().sorted():
            if finding.talk_index is None:
                continue
            entry = out.setdefault(
                finding.talk_index, {"blocking": 0, "warnings": 0, "findings": []}
            )
            entry["blocking" if finding.severity == BLOCKING else "warnings"] += 1
            entry["findings"].append(finding.to_dict())
        return out


def identity_by_talk(database: Mapping[str, Any], vault_root: Path) -> dict[int, dict[str, Any]]:
    """Each talk's identity findings (the light view), keyed by its index in ``talks``."""
    view = LightView(database, vault_root)
    for ref, talk in talks_of(database):
        view.add(ref, talk)
    return view.by_talk()


def talk_ref(index: int, talk: Mapping[str, Any]) -> TalkRef:
    """A talk's reference: its index, and its filename when that is a string."""
    filename = talk.get("filename")
    return TalkRef(index, filename if isinstance(filename, str) else None)


def talks_of(database: Mapping[str, Any]) -> list[tuple[TalkRef, Mapping[str, Any]]]:
    """Each talk object of the database with its reference (index, filename when a string)."""
    items = database.get("talks")
    if not isinstance(items, list):
        return []
    return [(talk_ref(i, talk), talk) for i, talk in enumerate(items) if isinstance(talk, Mapping)]
