"""Which rules a worker return of each version runs, in order.

A return tied to its talk and claim first has its claim identity checked
(``ReturnRules.claim``); a skipped return then only its envelope
(:func:`check_skipped_return`); a processed return every rule of its
version (``ReturnRules.processed``). The current (v5) rules are the modules
of this package; the replay versions swap in the rules of :mod:`.legacy`
where their contract differed, so no rule branches on the version.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rvault_contracts.strict_json import json_path as child
from rvault_tracking_db import api as tracking

from rvault_returns_persistence.catalog import CatalogEntry
from rvault_returns_persistence.checks import legacy
from rvault_returns_persistence.checks.deck_audit import check_deck_audit
from rvault_returns_persistence.checks.envelope import (
    check_adherence,
    check_claim_identity,
    check_clear_fields,
    check_processed_date,
    check_provenance,
    check_queue_claim,
    check_required,
    check_skipped,
    check_substantive_prose,
    check_text_blocks,
    check_transcript_only_partial,
)
from rvault_returns_persistence.checks.feedback import check_feedback
from rvault_returns_persistence.checks.inspection import Inspection
from rvault_returns_persistence.checks.not_evaluable import ReasonRule, current_reason
from rvault_returns_persistence.checks.patterns import check_pattern_observations
from rvault_returns_persistence.checks.structured import check_structured, check_verbatim
from rvault_returns_persistence.checks.video import check_video_extraction
from rvault_returns_persistence.context import ReturnContext
from rvault_returns_persistence.vocabulary import STATUSES, STATUSES_SKIPPED

Check = Callable[[ReturnContext], None]


@dataclass(frozen=True)
class ReturnRules:
    """One worker-return version's protocol."""

    claim: Check  # the queue_claim rule, for every return tied to its active claim
    processed: tuple[Check, ...]  # a processed return's rules, in order


CURRENT = ReturnRules(
    claim=check_queue_claim,
    processed=(
        check_required,
        check_substantive_prose,
        check_text_blocks,
        check_adherence,
        check_provenance,
        check_transcript_only_partial,
        check_clear_fields,
        check_structured,
        check_deck_audit,
        check_verbatim,
        check_video_extraction,
        check_pattern_observations,
        check_feedback,
    ),
)
_V2_V3 = ReturnRules(
    claim=check_queue_claim,
    processed=(
        legacy.check_required_v2_v4,
        check_substantive_prose,
        check_text_blocks,
        legacy.check_adherence_text,
        check_provenance,
        check_clear_fields,
        check_structured,
        check_verbatim,
        check_video_extraction,
        legacy.check_observations_v2_v3,
        legacy.schema_backstop,
    ),
)
RULES: dict[int, ReturnRules] = {
    1: ReturnRules(
        claim=check_claim_identity,
        processed=(
            check_text_blocks,
            legacy.check_adherence_text,
            check_provenance,
            check_clear_fields,
            legacy.check_structured_v1,
            legacy.check_verbatim_v1,
            check_video_extraction,
            legacy.schema_backstop,
        ),
    ),
    2: _V2_V3,
    3: _V2_V3,
    4: ReturnRules(
        claim=check_queue_claim,
        processed=(
            legacy.check_required_v2_v4,
            check_substantive_prose,
            check_text_blocks,
            legacy.check_adherence_text,
            check_provenance,
            check_clear_fields,
            check_structured,
            check_deck_audit,
            check_verbatim,
            check_video_extraction,
            legacy.check_observations_v4,
            legacy.schema_backstop,
        ),
    ),
    5: CURRENT,
}
REASONS: dict[int, ReasonRule] = {4: legacy.v4_reason, 5: current_reason}


def check_return(ctx: ReturnContext, config: Any) -> None:
    """The claim rule, then the skipped or processed rules of the return's version.

    ``config`` is the tracking database's ``config`` (where a terminal status's
    sources live). A return whose status is unknown is checked no further: the
    status decides which contract it is held to.
    """
    rules = RULES[ctx.version]
    rules.claim(ctx)
    if ctx.status not in STATUSES:
        return
    if ctx.status in STATUSES_SKIPPED:
        check_skipped_return(ctx, config)
        return
    for check in rules.processed:
        check(ctx)


def check_skipped_return(ctx: ReturnContext, config: Any) -> None:
    """A skipped return: its closed envelope, the terminal status's own rules, its date."""
    check_skipped(ctx)
    for problem in tracking.check_terminal_status(
        ctx.status, ctx.talk, vault_root=ctx.vault_root, config=config
    ):
        ctx.add(problem["code"], child(ctx.path, "status"), problem["message"])
    if "processed_date" in ctx.ret:
        check_processed_date(ctx, ctx.ret["processed_date"])


def expected_reason(
    entry: CatalogEntry, version: int, inspection: Inspection, assessments: dict[str, str]
) -> str | None:
    """The not_evaluable reason a nondetected observable entry of a receipted (v4, v5)
    return must carry (None: undetected or not_applicable)."""
    return REASONS[version](entry, inspection, assessments)
