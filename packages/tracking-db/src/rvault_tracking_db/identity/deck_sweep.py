"""Re-checking every stored deck binding against the deck's own facts.

For each talk with a ``pptx_path``, the ``pptx_catalog`` receipt of that deck
names the extraction ``record-deck`` read (vault-relative path and SHA-256).
The extraction is read again (never the deck: no python-pptx here), its
facts taken through pptx-evidence's public api, and the binding proven
afresh. A binding that cannot be re-proven (no receipt, the extraction gone
or changed, pptx-evidence not installed) falls back to the proof stored on
the talk, and says why.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.strict_json import StrictJSONError, loads_strict

from rvault_tracking_db.capabilities import open_under_root
from rvault_tracking_db.identity import matching
from rvault_tracking_db.identity.deck_binding import FIELD, BindingProof, prove_binding

MAX_EXTRACTION_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True)
class BindingCheck:
    """One talk's deck binding as re-checked now."""

    talk_index: int
    filename: str | None
    pptx_path: str
    catalog_index: int | None
    catalog_talk: str | None
    proof: BindingProof | None
    extraction_sha256: str | None
    unavailable: str | None  # why the binding could not be re-proven
    stored: Mapping[str, Any] | None

    def record(self) -> dict[str, Any] | None:
        if self.proof is None:
            return None
        return self.proof.record(self.pptx_path, self.extraction_sha256)


def facts_reader() -> Any:
    """pptx-evidence's ``deck_identity_facts``, or None when it is not installed."""
    try:
        from rvault_pptx_evidence.api import deck_identity_facts
    except ModuleNotFoundError:
        return None
    return deck_identity_facts


def read_extraction(vault_root: Path, relative: str, sha256: str | None) -> tuple[Any, str | None]:
    """The decoded extraction and its digest, or ``(None, reason)``."""
    fd, code = open_under_root(vault_root, relative)
    if fd is None:
        return None, f"extraction_{code}"
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(MAX_EXTRACTION_BYTES + 1)
    digest = hashlib.sha256(data).hexdigest()
    if sha256 is not None and digest != sha256:
        return None, "extraction_changed"
    try:
        return loads_strict(data), digest
    except StrictJSONError:
        return None, "extraction_malformed"


class _TitleIndex:
    """The talks sharing a distinctive title word with a deck's title slide.

    Only such a talk can be the one a title slide names instead, so the proof
    compares against these, not against every talk of the vault.
    """

    def __init__(self, talks: Sequence[tuple[int, Mapping[str, Any]]]) -> None:
        self.by_word: dict[str, list[int]] = {}
        for position, (_, talk) in enumerate(talks):
            for word in matching.significant(talk.get("title")):
                self.by_word.setdefault(word, []).append(position)

    def named_by(self, text: object) -> list[int]:
        words = matching.significant(text)
        return sorted({p for w in words for p in self.by_word.get(w, ())})


def others_finder(
    talks: Sequence[tuple[int, Mapping[str, Any]]],
) -> Callable[[int], Callable[[object], list[Mapping[str, Any]]]]:
    """For a talk's index, the ``others`` of its proof: the talks a title-slide text may name.

    ``talks`` need carry only what :func:`prove_binding` reads of another talk
    (:func:`~rvault_tracking_db.identity.deck_binding.as_other`).
    """
    titles = _TitleIndex(talks)

    def for_talk(index: int) -> Callable[[object], list[Mapping[str, Any]]]:
        def others(text: object) -> list[Mapping[str, Any]]:
            return [talks[p][1] for p in titles.named_by(text) if talks[p][0] != index]

        return others

    return for_talk


def catalog_entries(database: Mapping[str, Any]) -> dict[str, tuple[int, Mapping[str, Any]]]:
    """Each catalogued deck path with its first receipt and that receipt's index."""
    out: dict[str, tuple[int, Mapping[str, Any]]] = {}
    for index, record in enumerate(database.get("pptx_catalog") or []):
        if isinstance(record, Mapping) and isinstance(record.get("pptx_path"), str):
            out.setdefault(record["pptx_path"], (index, record))
    return out


def check_binding(
    talk: Mapping[str, Any],
    others: Callable[[object], list[Mapping[str, Any]]],
    entry: tuple[int, Mapping[str, Any]] | None,
    vault_root: Path,
    reader: Any,
) -> tuple[BindingProof | None, str | None, str | None]:
    """``(proof, extraction_sha256, unavailable_reason)`` for one talk's deck."""
    if entry is None:
        return None, None, "no_catalog_record"
    artifact = (entry[1].get("visual_evidence") or {}).get("artifact") or {}
    if not isinstance(artifact.get("path"), str):
        return None, None, "no_extraction_recorded"
    if reader is None:
        return None, None, "not_rechecked"
    document, digest = read_extraction(vault_root, artifact["path"], artifact.get("sha256"))
    if not isinstance(document, Mapping):
        return None, None, digest
    facts = reader(document)
    return prove_binding(talk, facts, others(facts.get("title_text"))), digest, None


def sweep(
    database: Mapping[str, Any],
    talks: Sequence[tuple[int, Mapping[str, Any]]],
    vault_root: Path,
    *,
    recheck: bool = True,
) -> list[BindingCheck]:
    """Every talk's deck binding, re-proven where its extraction can be read.

    ``recheck=False`` reads no extraction: each binding is judged by the proof
    stored on the talk (what ``status`` shows without touching the decks).
    """
    catalog = catalog_entries(database)
    reader = facts_reader() if recheck else None
    others = others_finder(talks if reader is not None else ())
    checks = []
    for index, talk in talks:
        check = binding_check(index, talk, catalog.get, others(index), vault_root, reader)
        if check is not None:
            checks.append(check)
    return checks


def binding_check(
    index: int,
    talk: Mapping[str, Any],
    entry_of: Callable[[str], tuple[int, Mapping[str, Any]] | None],
    others: Callable[[object], list[Mapping[str, Any]]],
    vault_root: Path,
    reader: Any,
) -> BindingCheck | None:
    """One talk's deck binding (None: the talk has no deck); ``entry_of`` finds a deck's
    receipt (:func:`catalog_entries`). With no ``reader`` no extraction is read, nor
    ``others`` called: the light view, talk by talk."""
    path = talk.get("pptx_path")
    if not isinstance(path, str) or not path:
        return None
    entry = entry_of(path)
    proof, digest, unavailable = check_binding(talk, others, entry, vault_root, reader)
    stored = talk.get(FIELD)
    filename = talk.get("filename")
    return BindingCheck(
        talk_index=index,
        filename=filename if isinstance(filename, str) else None,
        pptx_path=path,
        catalog_index=None if entry is None else entry[0],
        catalog_talk=None if entry is None else entry[1].get("talk_filename"),
        proof=proof,
        extraction_sha256=digest,
        unavailable=unavailable,
        stored=stored if isinstance(stored, Mapping) else None,
    )
