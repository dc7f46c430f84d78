"""One overview row per talk, the next action it needs, and the vault totals.

The row answers a speaker's three questions about a talk at a glance: what
is stored (status, score, scoring generation), what evidence backs it, and
what to do next. The next action is the first rule of :data:`NEXT_ACTIONS`
that matches, so the ordering is the policy and it reads as a table.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rvault_tracking_db.api import TERMINAL_SKIP_STATUSES

from rvault_analysis_writer.site.evidence import Evidence
from rvault_analysis_writer.site.receipts import Receipt, completed_receipt, in_flight

ANALYSED_STATUSES = ("processed", "processed_partial")
CURRENT = "current"
LEGACY = "legacy_unbaselineable"


@dataclass(frozen=True)
class TalkRow:
    filename: str
    page: str | None
    title: str
    date: str
    conference: str
    status: str
    score: int | None
    generation: str | None
    generation_reasons: tuple[str, ...]
    fingerprint: str | None
    receipt: Receipt | None
    evidence: Evidence
    next_action: str
    talk: Mapping[str, Any]

    @property
    def analysed(self) -> bool:
        return self.status in ANALYSED_STATUSES

    @property
    def current(self) -> bool:
        return self.analysed and self.generation == CURRENT


def _text(value: object, default: str = "") -> str:
    return value if isinstance(value, str) else default


def pattern_score(talk: Mapping[str, Any]) -> int | None:
    """The promoted scalar, else the nested ledger value (an int or ``{"score": n}``)."""
    for value in (talk.get("pattern_score"), _nested_score(talk)):
        if isinstance(value, Mapping):
            value = value.get("score")
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def _nested_score(talk: Mapping[str, Any]) -> object:
    observations = talk.get("pattern_observations")
    return observations.get("pattern_score") if isinstance(observations, Mapping) else None


Rule = Callable[["_Facts"], str | None]


@dataclass(frozen=True)
class _Facts:
    status: str
    generation: str | None
    fingerprint: str | None
    catalog_fingerprint: str
    receipt: Receipt | None
    claim: tuple[str, str] | None
    evidence: Evidence


def _skipped(f: _Facts) -> str | None:
    if f.status == "skipped_download_failed":
        return "add a local source or fix the download, then requeue"
    if f.status in TERMINAL_SKIP_STATUSES:
        return f"none ({f.status.replace('_', ' ')})"
    return None


def _claimed(f: _Facts) -> str | None:
    if f.claim is None:
        return None
    return f"finish batch {f.claim[0]}/{f.claim[1]}: validate and persist the worker return"


def _queued(f: _Facts) -> str | None:
    if f.status == "pending":
        return "claim it for a worker (rvault-db queue claim)"
    if f.status == "needs-reprocessing":
        return "claim it for reprocessing (rvault-db queue claim)"
    return None


def _unanalysed(f: _Facts) -> str | None:
    return None if f.status in ANALYSED_STATUSES else f"check the status {f.status!r}"


def _no_receipt(f: _Facts) -> str | None:
    if f.receipt is None or not f.receipt.bound:
        return "reprocess: no completed-claim receipt binds this analysis"
    return None


def _legacy(f: _Facts) -> str | None:
    if f.generation != CURRENT:
        return "reprocess under the current catalog (legacy result, excluded from baselines)"
    if f.fingerprint != f.catalog_fingerprint:
        return "reprocess: the pattern catalog changed since this talk was scored"
    return None


def _stale_transcript(f: _Facts) -> str | None:
    if f.evidence.transcript.state == "invalid":
        return "re-import the transcript: its receipts no longer match (then reprocess)"
    return None


def _partial(f: _Facts) -> str | None:
    if f.status == "processed_partial":
        return "add the missing evidence and reprocess (partial result)"
    return None


NEXT_ACTIONS: tuple[Rule, ...] = (
    _skipped,
    _claimed,
    _queued,
    _unanalysed,
    _no_receipt,
    _legacy,
    _stale_transcript,
    _partial,
)


def next_action(facts: _Facts) -> str:
    for rule in NEXT_ACTIONS:
        action = rule(facts)
        if action is not None:
            return action
    return "none"


def page_name(filename: str, taken: set[str]) -> str:
    """A portable, unique, lowercase page name for a talk (``talk-<slug>.html``).

    Filenames are a speaker's text: the slug keeps only ASCII letters,
    digits and ``-``; a digest suffix separates names that fold together.
    """
    stem = filename[:-3] if filename.endswith(".md") else filename
    ascii_stem = unicodedata.normalize("NFKD", stem).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_stem.lower()).strip("-")[:80] or "talk"
    name = f"talk-{slug}.html"
    if name in taken or slug != stem:
        digest = hashlib.sha256(filename.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        name = f"talk-{slug}-{digest}.html"
    taken.add(name)
    return name


def build_rows(
    talks: Sequence[Mapping[str, Any]],
    evidence: Sequence[Evidence],
    catalog_fingerprint: str,
) -> list[TalkRow]:
    """Rows sorted newest first (then by filename), each with its page name if analysed."""
    taken: set[str] = set()
    rows = []
    order = sorted(
        range(len(talks)),
        key=lambda i: (_text(talks[i].get("date")), _text(talks[i].get("filename"))),
        reverse=True,
    )
    for i in order:
        talk, found = talks[i], evidence[i]
        status = _text(talk.get("status"), "unknown")
        generation = talk.get("pattern_scoring_generation_status")
        reasons = talk.get("pattern_scoring_generation_reasons")
        receipt = completed_receipt(talk)
        facts = _Facts(
            status=status,
            generation=generation if isinstance(generation, str) else None,
            fingerprint=_text(talk.get("pattern_catalog_fingerprint")) or None,
            catalog_fingerprint=catalog_fingerprint,
            receipt=receipt,
            claim=in_flight(talk),
            evidence=found,
        )
        filename = _text(talk.get("filename"))
        analysed = status in ANALYSED_STATUSES
        rows.append(
            TalkRow(
                filename=filename,
                page=page_name(filename, taken) if analysed else None,
                title=_text(talk.get("title")) or filename,
                date=_text(talk.get("date")),
                conference=_text(talk.get("conference")),
                status=status,
                score=pattern_score(talk) if analysed else None,
                generation=facts.generation if analysed else None,
                generation_reasons=tuple(r for r in reasons if isinstance(r, str))
                if isinstance(reasons, list)
                else (),
                fingerprint=facts.fingerprint,
                receipt=receipt,
                evidence=found,
                next_action=next_action(facts),
                talk=talk,
            )
        )
    return rows


def totals(rows: Sequence[TalkRow]) -> dict[str, Any]:
    """Counts only: an average over mixed catalog identities would not be comparable."""
    statuses = Counter(row.status for row in rows)
    coverage: Counter[str] = Counter()
    for row in rows:
        coverage.update(name for name, present in row.evidence.sources.items() if present)
    return {
        "talks": len(rows),
        "analysed": sum(row.analysed for row in rows),
        "current": sum(row.current for row in rows),
        "legacy": sum(row.analysed and not row.current for row in rows),
        "needs_action": sum(not row.next_action.startswith("none") for row in rows),
        "statuses": sorted(statuses.items()),
        "coverage": [(name, coverage[name]) for name in rows[0].evidence.sources] if rows else [],
    }
