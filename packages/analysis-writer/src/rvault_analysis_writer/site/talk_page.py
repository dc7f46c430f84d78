"""What one talk page shows: the analysis as ``write`` sees it, plus proof and slides.

The page is built from the same talk view model as the Markdown analysis
(:func:`rvault_analysis_writer.talk_view.build_view`), so provenance, legacy
labels and citation wording cannot disagree between the file and the page.
The completed claim on the talk is the receipt; the return version it
authorized decides the evidence basis (a v1/v2 claim names no single return
version, so its result is never presented as source-verified). The site
has no return document, so ``catalog_feedback`` (the return-only side
channel) is not shown here; it lives in the Markdown analysis.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rvault_returns_persistence.api import Catalog
from rvault_tracking_db.api import authorized_return_versions

from rvault_analysis_writer.site.outcomes import OutcomeRow, outcome_counts, outcome_rows
from rvault_analysis_writer.site.overview import TalkRow
from rvault_analysis_writer.talk_view import TalkView, build_view


@dataclass(frozen=True)
class TalkPage:
    row: TalkRow
    view: TalkView
    receipt_bound: bool
    outcomes: list[OutcomeRow]
    outcome_counts: list[tuple[str, int]]
    thumbnails: list[str]
    thumbnail_note: str | None


def _claim(talk: Mapping[str, Any]) -> Mapping[str, Any]:
    claim = talk.get("_queue_claim")
    return claim if isinstance(claim, Mapping) and claim.get("state") == "completed" else {}


def talk_view(talk: Mapping[str, Any]) -> TalkView:
    claim = _claim(talk)
    versions = authorized_return_versions(claim) if claim else ()
    return build_view(
        talk,
        claim=claim,
        return_version=versions[0] if len(versions) == 1 else None,
        catalog_feedback=None,
    )


def talk_page(row: TalkRow, catalog: Catalog, thumbnails: list[str], note: str | None) -> TalkPage:
    view = talk_view(row.talk)
    outcomes = outcome_rows(view, catalog)
    return TalkPage(
        row=row,
        view=view,
        receipt_bound=row.receipt is not None and row.receipt.bound,
        outcomes=outcomes,
        outcome_counts=outcome_counts(outcomes),
        thumbnails=thumbnails,
        thumbnail_note=note,
    )
