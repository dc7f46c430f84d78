"""Is an analysed talk's analysis still about the bytes it was made from?

Persist binds every inspected source to exact bytes: each
``pattern_observations.source_inspection`` row names its artifact (root,
path, SHA-256; a transcript also its quality and timing receipts) and a
``source_comparison`` row its ``artifact_identities``. The spec has current
readers "re-hash these identities and fail stale, missing, symlinked,
relocated ... evidence closed", and "missing, obsolete ... requeue the talk".
A transcript re-fetched (or a slide PDF, a deck extraction, a recording
replaced) after the analysis leaves a processed talk describing bytes that
are gone; this module says which identities no longer hold, so ``rvault-db
status`` shows the talk as needing reprocessing (``evidence_identity_stale``
at the digest's JSON path), ``queue normalize`` requeues it
(``reprocess_reason: evidence_identity_stale``) and the site reports the
same (:mod:`rvault_tracking_db.evidence` puts the verdict in the one
evidence summary both render).

Cost: what an owner already established is not re-read. A digest an owner
reader computed in this run (the transcript owner hashes the transcript to
judge its receipts; the promoted PDF's check; the deck extraction the pptx
verdict read) is compared as it is. A file an owner recorded with a size
(``local_media``, ``slides_local_identity``, the deck fingerprint) is judged
by its size first (a different size is stale without reading a byte) and,
for the attached recording, by its measured generation (inode and
modification time: the measured file, untouched, is not re-hashed). Only
what is left is hashed, through one no-follow descriptor below its root,
once per file per check (a memo keyed by the file's stat).

Standard library plus ``rvault_contracts``: the public api re-exports it.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from rvault_contracts.canonical import is_sha256_hex
from rvault_contracts.issues import WARNING, Issue
from rvault_contracts.strict_json import json_path
from rvault_contracts.writer import pending_bundle

from rvault_tracking_db.capabilities import (
    ROOT_PPTX,
    ROOT_VAULT,
    SourceRoots,
    open_under_root,
    relative_path_issue,
)

#: the warning code and the ``reprocess_reason`` normalize records
EVIDENCE_IDENTITY_STALE = "evidence_identity_stale"
CHANGED = "evidence_changed"
MISSING = "evidence_missing"
ANALYSED_STATUSES = ("processed", "processed_partial")

# (path key, digest key) of each identity one source_inspection row may bind
_PAIRS = (
    ("artifact_path", "artifact_sha256"),
    ("quality_artifact_path", "quality_artifact_sha256"),
    ("timing_artifact_path", "timing_artifact_sha256"),
)
_ROOTS = (ROOT_VAULT, ROOT_PPTX)

Key = tuple[str, str]
"""(root name, root-relative path): how an identity and an owner's record are matched."""


@dataclass(frozen=True)
class PersistedIdentity:
    """One digest persist recorded; ``member``: its JSON path inside the talk (from ``$``)."""

    source: str
    root: str
    path: str
    sha256: str
    member: str
    bundle: str | None = None
    """The row's own artifact (a transcript, for its receipts too): the lock target of
    the bundle its owner writes these files in."""

    @property
    def key(self) -> Key:
        return (self.root, self.path)


@dataclass(frozen=True)
class StaleIdentity:
    """A persisted identity the bytes no longer have (``code``: changed or missing).

    ``actual_sha256`` is the digest found, when it was computed (None for a
    file that is gone, or one whose size already differs from its owner's
    record and was therefore not read).
    """

    identity: PersistedIdentity
    code: str
    actual_sha256: str | None
    made_from: str | None = None
    """The file this artifact was made from, when that one changed and the artifact did
    not (a deck edited after its extraction): the artifact no longer describes it."""

    def issue(self, talk_path: str) -> Issue:
        """The per-talk warning at the digest's JSON path (``talk_path``: ``$["talks"][N]``)."""
        where = talk_path + self.identity.member[1:]
        now = "is gone, a link or unreadable" if self.code == MISSING else "has other bytes now"
        if self.made_from is not None:
            now = f"was made from {self.made_from}, which has other bytes now"
        return Issue(
            EVIDENCE_IDENTITY_STALE,
            where,
            f"the {self.identity.source} evidence {self.identity.path} {now} than the persisted "
            "analysis cites; reprocess the talk (rvault-db queue DB normalize requeues it) or "
            "restore the file",
            severity=WARNING,
        )


@dataclass(frozen=True)
class Receipt:
    """What an owner recorded about a file: its digest, size and (a recording) generation."""

    sha256: str
    size_bytes: int | None = None
    generation: tuple[int, int] | None = None
    made_from: Key | None = None
    """The file this one was derived from (a deck extraction's deck), which must still
    have the bytes its own receipt records when it is there to read."""


def is_analysed(talk: Mapping[str, Any]) -> bool:
    """Whether the talk's ledger is its current analysis (``processed``/``processed_partial``)."""
    return talk.get("status") in ANALYSED_STATUSES


def persisted_identities(talk: Mapping[str, Any]) -> list[PersistedIdentity]:
    """Every well-formed identity of the talk's ledger, each (root, path, digest) once.

    Rows a contract check would reject are judged as far as they are
    readable: a malformed digest or an unsafe path is the ledger check's
    finding (``ledger_schema_violation``), not this one's.
    """
    ledger = talk.get("pattern_observations")
    rows = ledger.get("source_inspection") if isinstance(ledger, Mapping) else None
    seen: set[tuple[str, str, str]] = set()
    found: list[PersistedIdentity] = []
    for identity in _identities(rows if isinstance(rows, list) else []):
        marker = (identity.root, identity.path, identity.sha256)
        if marker not in seen:
            seen.add(marker)
            found.append(identity)
    return found


def _identities(rows: list[Any]) -> Iterator[PersistedIdentity]:
    base = json_path("$", "pattern_observations", "source_inspection")
    for position, row in enumerate(rows):
        if not isinstance(row, Mapping):
            continue
        where = json_path(base, position)
        source = str(row.get("source"))
        artifact = row.get("artifact_path")
        for path_key, digest_key in _PAIRS:
            found = _identity(row, source, path_key, digest_key, where)
            if found is not None:
                yield replace(found, bundle=artifact if isinstance(artifact, str) else None)
        members = row.get("artifact_identities")
        for index, member in enumerate(members if isinstance(members, list) else []):
            if isinstance(member, Mapping):
                inner = json_path(where, "artifact_identities", index)
                found = _identity(member, str(member.get("source")), *_PAIRS[0], inner)
                if found is not None:
                    yield found


def _identity(
    row: Mapping[str, Any], source: str, path_key: str, digest_key: str, where: str
) -> PersistedIdentity | None:
    path, digest = row.get(path_key), row.get(digest_key)
    root = row.get("artifact_root", ROOT_VAULT)
    if not isinstance(path, str) or not path or root not in _ROOTS or not is_sha256_hex(digest):
        return None
    return PersistedIdentity(source, str(root), path, digest, json_path(where, digest_key))


def owner_receipts(talk: Mapping[str, Any], record: Mapping[str, Any] | None) -> dict[Key, Receipt]:
    """What the database's owner records say the talk's files are (no file is opened).

    The attached recording (``local_media``), the promoted PDF
    (``slides_local_identity``) and the talk's deck receipt (``pptx_catalog``:
    the extraction artifact's digest, the deck's fingerprint).
    """
    receipts: dict[Key, Receipt] = {}
    media = talk.get("local_media")
    if isinstance(media, Mapping) and isinstance(media.get("path"), str):
        found = _receipt(media)
        if found is not None:
            receipts[(ROOT_VAULT, media["path"])] = found
    slides = talk.get("slides_local_identity")
    if isinstance(slides, Mapping) and isinstance(talk.get("slides_local_path"), str):
        found = _receipt(slides)
        if found is not None:
            receipts[(ROOT_VAULT, talk["slides_local_path"])] = found
    evidence = record.get("visual_evidence") if isinstance(record, Mapping) else None
    if isinstance(evidence, Mapping) and isinstance(record, Mapping):
        deck = None
        fingerprint = evidence.get("source_fingerprint")
        if isinstance(fingerprint, Mapping) and isinstance(record.get("pptx_path"), str):
            found = _receipt({**fingerprint, "sha256": fingerprint.get("digest")})
            if found is not None:
                deck = (ROOT_PPTX, record["pptx_path"])
                receipts[deck] = found
        artifact = evidence.get("artifact")
        if isinstance(artifact, Mapping) and isinstance(artifact.get("path"), str):
            found = _receipt(artifact)
            if found is not None:
                receipts[(ROOT_VAULT, artifact["path"])] = replace(found, made_from=deck)
    return receipts


def _receipt(fields: Mapping[str, Any]) -> Receipt | None:
    digest, size = fields.get("sha256"), fields.get("size_bytes")
    if not is_sha256_hex(digest):
        return None
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        size = None
    generation = fields.get("generation")
    pair = None
    if isinstance(generation, Mapping):
        inode, mtime = generation.get("inode"), generation.get("mtime_ns")
        if isinstance(inode, int) and isinstance(mtime, int):
            pair = (inode, mtime)
    return Receipt(digest, size, pair)


_UNREAD = "unread"  # a file known to differ from its owner's record, not hashed


@dataclass
class IdentityCheck:
    """One run's judge of persisted identities (a memo: each file hashed at most once)."""

    roots: SourceRoots
    _memo: dict[Key, tuple[tuple[int, ...], str | None]] = field(default_factory=dict)

    def stale(
        self,
        talk: Mapping[str, Any],
        *,
        receipts: Mapping[Key, Receipt] | None = None,
        current: Mapping[Key, str | None] | None = None,
    ) -> list[StaleIdentity]:
        """The identities of the talk's ledger its files no longer have.

        ``current``: digests owner readers computed in this run (None: the
        file is gone); ``receipts``: :func:`owner_receipts`. Whether the
        answer matters is the caller's: only an analysed talk
        (:func:`is_analysed`) has an analysis to be stale.
        """
        receipts, current = receipts or {}, current or {}
        stale: list[StaleIdentity] = []
        for identity in persisted_identities(talk):
            if self._recovery_pending(identity):
                continue  # a torn write, not stale evidence: status names its recovery
            receipt = receipts.get(identity.key)
            if identity.key in current:
                actual = current[identity.key]
            else:
                actual = self._actual(identity, receipt)
            if actual != identity.sha256:
                code = MISSING if actual is None else CHANGED
                stale.append(StaleIdentity(identity, code, None if actual == _UNREAD else actual))
            elif receipt is not None and receipt.sha256 == identity.sha256:
                found = self._source_changed(identity, receipt, receipts, current)
                if found is not None:
                    stale.append(found)
        return stale

    def _recovery_pending(self, identity: PersistedIdentity) -> bool:
        """Whether the owner's bundle holding this file was torn by a kill and awaits its
        journal's recovery: its files are a mix of old and new until it is settled, so
        they can be judged only after (the spec's recovery-pending state, never stale)."""
        if identity.bundle is None or relative_path_issue(identity.bundle) is not None:
            return False  # an unsafe path is never looked beside (open_under_root refuses it)
        root = self.roots.root_for(identity.root)
        return pending_bundle(root / identity.bundle) is not None

    def _source_changed(
        self,
        identity: PersistedIdentity,
        receipt: Receipt,
        receipts: Mapping[Key, Receipt],
        current: Mapping[Key, str | None],
    ) -> StaleIdentity | None:
        """The artifact is current, but the file it was made from (still there) is not.

        As persist's own deck-audit check: a deck edited after its extraction
        makes the extraction stale evidence; a deck that is not there to read
        (another machine's deck folder) leaves the extraction as the evidence.
        """
        source = receipt.made_from
        made = receipts.get(source) if source is not None else None
        if source is None or made is None:
            return None
        recorded = PersistedIdentity("deck", source[0], source[1], made.sha256, identity.member)
        actual = current[source] if source in current else self._actual(recorded, made)
        if actual is None or actual == made.sha256:
            return None
        return StaleIdentity(identity, CHANGED, None, made_from=source[1])

    def _actual(self, identity: PersistedIdentity, receipt: Receipt | None) -> str | None:
        """The file's digest (None: gone; ``_UNREAD``: differs from a record that matches)."""
        fd, _ = open_under_root(self.roots.root_for(identity.root), identity.path)
        if fd is None:
            return None
        with os.fdopen(fd, "rb") as handle:
            st = os.fstat(handle.fileno())
            if receipt is not None and receipt.sha256 == identity.sha256:
                if receipt.size_bytes is not None and st.st_size != receipt.size_bytes:
                    return _UNREAD
                if receipt.generation == (st.st_ino, st.st_mtime_ns):
                    return receipt.sha256  # the measured file, untouched since
            stamp = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
            memo = self._memo.get(identity.key)
            if memo is not None and memo[0] == stamp:
                return memo[1]
            try:
                digest: str | None = hashlib.file_digest(handle, "sha256").hexdigest()
            except OSError:
                digest = None
        self._memo[identity.key] = (stamp, digest)
        return digest
