"""The ``rvault-db queue`` actions: a request in, one ``queue-report`` v1 document out.

Three of the four actions write, and they write the same way: under the
apply protocol's session (lock, exact input digest, dry run by default) the
action's planner turns the database into a candidate, the candidate is
encoded and checked by the owner read (:func:`.store.candidate_bytes`) and
installed only with ``--apply``. :func:`_plan_and_install` is that sequence
once; each action names only its planner and its own report fields.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from rvault_contracts.cli import Refusal
from rvault_contracts.writer import WriteReport

from rvault_tracking_db.apply_protocol import ApplyRequest, Session, session
from rvault_tracking_db.assessment.trouble import by_talk, merge
from rvault_tracking_db.capabilities import SourceRoots
from rvault_tracking_db.queue import store
from rvault_tracking_db.queue.claim import ClaimRequest, plan_claim
from rvault_tracking_db.queue.inspect import StreamedInspection, inspect_queue
from rvault_tracking_db.queue.normalize import identity_trouble, plan_normalize
from rvault_tracking_db.queue.recover import plan_recover
from rvault_tracking_db.queue.streamed_claim import StreamedClaim
from rvault_tracking_db.queue.streamed_normalize import StreamedNormalize
from rvault_tracking_db.queue.streamed_plan import StreamedPlan
from rvault_tracking_db.queue.streamed_recover import StreamedRecover
from rvault_tracking_db.reader import ReadResult
from rvault_tracking_db.streamed_read import stream_or_read

REPORT_VERSION = 1

Planner = Callable[[ReadResult, Session], Any]
"""An action's planner: the read database (and its session) -> an outcome whose
``database`` is the candidate (None when nothing changes) and ``changed`` the
talks it touched."""


@dataclass(frozen=True)
class RecoverRequest:
    run_id: str
    batch_id: str
    released_at: str


def _base(command: str, result: ReadResult) -> dict[str, Any]:
    return {
        "schema_version": REPORT_VERSION,
        "ok": True,
        "command": command,
        "database_path": result.database_path,
        "root_schema_version": store.root_version(result),
    }


def _outcome(current: Session, planned: bytes | None, write: WriteReport | None) -> dict[str, Any]:
    fields = current.outcome(planned, write, dry_run_state="dry_run")
    del fields["write"]
    return fields


def _candidate(result: ReadResult, outcome: Any) -> bytes | None:
    """The planner's candidate assessed and encoded (None: nothing changes)."""
    if outcome.database is None:
        return None
    return store.candidate_bytes(result, outcome.database, changed=outcome.changed)


def _plan_and_install(
    database: str | Path,
    apply: ApplyRequest,
    command: str,
    planner: Planner,
    *,
    bind_late: bool = False,
    current_root: bool = True,
    read: Callable[[str | os.PathLike[str]], ReadResult] | None = None,
    encode: Callable[[ReadResult, Any], bytes | None] = _candidate,
) -> tuple[dict[str, Any], Any]:
    """The report's common fields and the planner's outcome, the candidate installed
    when the request applies (the apply protocol decides).

    ``read`` and ``encode``: a command that plans while it reads (normalize's
    stream) passes its read and the bytes it planned.
    """
    with session(database, apply, bind_late=bind_late, read=read) as current:
        result = current.result
        assert result.exists
        if current_root:
            current.require_current_root(f"queue {command}")
        outcome = planner(result, current)
        planned = encode(result, outcome)
        write = current.install(planned) if planned is not None else None
    report = _base(command, result)
    report.update(_outcome(current, planned, write))
    return report, outcome


class _Streamed(Protocol):
    """A command's streamed read: its plan, when the stream planned it."""

    plan: StreamedPlan[Any] | None


def _encoder(streamed: _Streamed) -> Callable[[ReadResult, Any], bytes | None]:
    """The bytes to install: the streamed plan's candidate, else the whole read's."""

    def encode(result: ReadResult, outcome: Any) -> bytes | None:
        plan = streamed.plan
        return plan.candidate() if plan is not None else _candidate(result, outcome)

    return encode


def inspect(database: str | Path) -> dict[str, Any]:
    """Statuses, claims v1-v5 and epochs, read only (as the talks stream where it can)."""
    result, view = stream_or_read(database, lambda _path, _data: StreamedInspection())
    report = _base("inspect", result)
    report["input_sha256"] = result.sha256
    if view is not None:
        report.update(view.report())
    else:
        assert result.database is not None
        report.update(inspect_queue(result.database))
    return report


def normalize(database: str | Path, apply: ApplyRequest) -> dict[str, Any]:
    """Derive ``source_capabilities`` and settle legacy statuses.

    Planned as the read streams the talks where it can (:mod:`.streamed_normalize`),
    else on the whole read; the same report and bytes either way.
    """
    streamed = StreamedNormalize()

    def planner(result: ReadResult, current: Session) -> Any:
        if streamed.plan is not None:
            return streamed.plan.decided()
        assert result.database is not None and result.assessment is not None
        roots = SourceRoots.from_config(current.vault_root, result.database.get("config"))
        trouble = merge(
            by_talk(result.assessment.warnings), identity_trouble(result.database, roots)
        )
        return plan_normalize(result.database, roots, trouble)

    report, outcome = _plan_and_install(
        database, apply, "normalize", planner, read=streamed.read, encode=_encoder(streamed)
    )
    streamed.plan = None  # its bytes, before the report's entries are made
    report.update(outcome.report_fields())
    return report


def _nothing_claimable(skipped: list[dict[str, str]]) -> Refusal:
    reasons: dict[str, int] = {}
    for entry in skipped:
        reasons[entry["reason"]] = reasons.get(entry["reason"], 0) + 1
    why = ", ".join(f"{count} {reason}" for reason, count in sorted(reasons.items()))
    message = "no talk can be claimed: " + (
        f"the candidates were skipped ({why})"
        if why
        else "no talk is pending or needs-reprocessing without a live claim"
    )
    return Refusal(
        "nothing_to_claim",
        message,
        '$["talks"]',
        skipped=skipped,
        hint=(
            "run `rvault-db status DB` to see each talk's next action; a talk needs a "
            "registered source (`rvault-db sources`, `register-transcript`) and "
            "`rvault-db queue DB normalize` before it can be claimed"
        ),
    )


def claim(database: str | Path, apply: ApplyRequest, request: ClaimRequest) -> dict[str, Any]:
    """Claim a batch under schema v5 with one adherence baseline.

    Decided as the read streams the talks where it can (:mod:`.streamed_claim`),
    else on the whole read; the same report, bytes and refusals either way.
    """
    streamed = StreamedClaim(request)

    def planner(result: ReadResult, current: Session) -> Any:
        if streamed.plan is not None:
            outcome = streamed.plan.decided()
        else:
            assert result.database is not None
            roots = SourceRoots.from_config(current.vault_root, result.database.get("config"))
            outcome = plan_claim(result.database, request, roots)
        if not outcome.members:
            raise _nothing_claimable(outcome.skipped)
        return outcome

    # bind_late: an exact replay writes nothing, so a retry after a lost response
    # (still quoting the pre-claim digest) gets the stored claims back.
    report, outcome = _plan_and_install(
        database,
        apply,
        "claim",
        planner,
        bind_late=True,
        read=streamed.read,
        encode=_encoder(streamed),
    )
    streamed.plan = None
    report.update(
        {
            "run_id": request.run_id,
            "batch_id": request.batch_id,
            "claimed_at": outcome.members[0][1]["claimed_at"],
            "replayed": outcome.replayed,
            "member_count": len(outcome.members),
            "members": [{"filename": name, "claim": claim} for name, claim in outcome.members],
            "adherence_baseline": outcome.baseline,
            "baseline_exclusions": [e.to_dict() for e in outcome.exclusions],
            "skipped": outcome.skipped,
        }
    )
    return report


def recover(database: str | Path, apply: ApplyRequest, request: RecoverRequest) -> dict[str, Any]:
    """Close a stranded batch and restore its members' statuses (any root version).

    Decided as the read streams the talks where it can (:mod:`.streamed_recover`),
    else on the whole read; the same report, bytes and refusals either way.
    """
    streamed = StreamedRecover(request.run_id, request.batch_id, request.released_at)

    def planner(result: ReadResult, current: Session) -> Any:
        if streamed.plan is not None:
            return streamed.plan.decided()
        assert result.database is not None
        return plan_recover(
            result.database,
            run_id=request.run_id,
            batch_id=request.batch_id,
            released_at=request.released_at,
        )

    report, outcome = _plan_and_install(
        database,
        apply,
        "recover",
        planner,
        current_root=False,
        read=streamed.read,
        encode=_encoder(streamed),
    )
    streamed.plan = None
    report.update(
        {
            "run_id": request.run_id,
            "batch_id": request.batch_id,
            "released_at": request.released_at,
            "released": outcome.released,
        }
    )
    return report
