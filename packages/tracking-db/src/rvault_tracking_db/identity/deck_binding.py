"""Proving that a deck belongs to the talk it is bound to.

A deck becomes evidence for whichever talk the record names, and every later
check runs after that choice; a deck bound to the wrong talk feeds it wrong
slides and patterns with nothing downstream able to notice. So the binding is
judged from facts on both sides: the deck's title-slide text, footers,
hashtags, file name and folders (``rvault_pptx_evidence.api.deck_identity_facts``)
against the talk's title, conference and date.

Signals are ``agree``, ``conflict`` or ``unknown``. Two rules shape the
decision:

- A conflict vetoes: a title slide that names another talk of the vault (and
  not this one), or a deck that names only other years than the delivery's,
  is ``contradicted``. A title slide that names no talk at all (a sponsor or
  "hello" slide) proves nothing either way.
- Only a distinctive signal proves: the title agreeing, or the conference
  agreeing in the delivery year. A matching year or file name alone is
  ``plausible``, never ``proven``: reused talk families have near-identical
  file names and every talk of a year shares its year.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from rvault_tracking_db.identity import matching
from rvault_tracking_db.identity.matching import AGREE, CONFLICT, UNKNOWN

SCHEMA_VERSION = 1
FIELD = "deck_binding"
PROVEN = "proven"
PLAUSIBLE = "plausible"
CONTRADICTED = "contradicted"
DECISIONS = (PROVEN, PLAUSIBLE, CONTRADICTED)
_FILENAME_OVERLAP = 2


@dataclass(frozen=True)
class BindingProof:
    decision: str
    reasons: tuple[str, ...]
    signals: dict[str, str]

    def record(self, pptx_path: str, extraction_sha256: str | None) -> dict[str, Any]:
        """The talk's ``deck_binding`` value: the proof bound to the extraction it read."""
        return {
            "decision": self.decision,
            "extraction_sha256": extraction_sha256,
            "pptx_path": pptx_path,
            "reasons": list(self.reasons),
            "schema_version": SCHEMA_VERSION,
            "signals": dict(sorted(self.signals.items())),
        }


def _deck_words(facts: Mapping[str, Any]) -> frozenset[str]:
    parts = [facts.get("title_text") or ""]
    parts += [*(facts.get("footers") or []), *(facts.get("folders") or [])]
    text = " ".join(parts)
    return matching.significant(text) | frozenset(facts.get("hashtags") or [])


def _venue(talk: Mapping[str, Any], facts: Mapping[str, Any]) -> str:
    """The conference's words on the deck, or its name run together (``#devoxx24``)."""
    wanted = matching.significant(talk.get("conference"))
    if not wanted:
        return UNKNOWN
    deck = _deck_words(facts)
    compact = "".join(matching.words(talk.get("conference")))
    if wanted <= deck or (len(compact) > 3 and any(w.startswith(compact) for w in deck)):
        return AGREE
    return UNKNOWN


def _year(talk: Mapping[str, Any], facts: Mapping[str, Any]) -> str:
    year = matching.catalog_year(talk.get("date"))
    seen: set[int] = set()
    for text in (
        facts.get("title_text"),
        *(facts.get("footers") or []),
        *(facts.get("folders") or []),
        facts.get("file_stem"),
    ):
        seen |= matching.years_in(text)
    if year is None or not seen:
        return UNKNOWN
    return AGREE if year in seen else CONFLICT


def _filename(talk: Mapping[str, Any], facts: Mapping[str, Any]) -> str:
    stem = matching.significant(facts.get("file_stem"))
    talk_words = matching.significant(talk.get("title")) | matching.significant(
        str(talk.get("filename") or "").removesuffix(".md")
    )
    return AGREE if len(stem & talk_words) >= _FILENAME_OVERLAP else UNKNOWN


def _title(
    talk: Mapping[str, Any], facts: Mapping[str, Any], others: Iterable[Mapping[str, Any]]
) -> str:
    text = facts.get("title_text")
    if matching.titles_agree(talk.get("title"), text) == AGREE:
        return AGREE
    if any(matching.titles_agree(o.get("title"), text) == AGREE for o in others):
        return CONFLICT
    return UNKNOWN


def as_other(talk: Mapping[str, Any]) -> dict[str, Any]:
    """All :func:`prove_binding` reads of one of ``others`` (its title, by :func:`_title`):
    what a preflight streaming the talks keeps of each for the proofs of the others."""
    return {"title": talk.get("title")}


def prove_binding(
    talk: Mapping[str, Any], facts: Mapping[str, Any], others: Iterable[Mapping[str, Any]] = ()
) -> BindingProof:
    """The decision, its reasons (stable codes) and each signal's verdict.

    ``others``: the vault's other talks, whose titles the deck may name instead.
    """
    signals = {
        "title": _title(talk, facts, others),
        "venue": _venue(talk, facts),
        "delivery_year": _year(talk, facts),
        "filename_similarity": _filename(talk, facts),
    }
    conflicts = tuple(f"{name}_conflicts" for name, v in signals.items() if v == CONFLICT)
    if conflicts:
        return BindingProof(CONTRADICTED, conflicts, signals)
    if signals["title"] == AGREE:
        return BindingProof(PROVEN, ("title_agrees",), signals)
    if signals["venue"] == AGREE and signals["delivery_year"] == AGREE:
        return BindingProof(PROVEN, ("venue_and_year_agree",), signals)
    agreeing = tuple(f"{name}_agrees" for name, v in signals.items() if v == AGREE)
    return BindingProof(PLAUSIBLE, agreeing or ("no_agreeing_signal",), signals)
