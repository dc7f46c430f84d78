"""Claiming a batch: selection, the one pre-mutation baseline, v5 claims, replay.

The whole operation is pure over a decoded database: it returns the new
database value (or ``None`` when nothing changes) and the claims it stands
on. The command layer binds it to the exact bytes it read with the writer
protocol. Order matters and is fixed:

1. an existing live batch with the same ``(run_id, batch_id)`` is either an
   exact replay (the stored claims are returned, nothing is written) or a
   refusal; a closed epoch with the same stamp is never reused;
2. the batch is selected and every member is checked (exists, unique,
   not held, claimable status, a non-empty capability list);
3. the baseline is built once from the untouched talks, with the batch
   excluded first;
4. only then are the selected talks copied and changed: a closed previous
   claim moves to ``_queue_claim_history``, ``reprocess_generation`` goes up
   by one, the status becomes ``reprocessing-inflight``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rvault_contracts.canonical import is_sha256_hex
from rvault_contracts.cli import Refusal
from rvault_contracts.suggest import closest, did_you_mean

from rvault_tracking_db.capabilities import SourceRoots, source_capabilities
from rvault_tracking_db.queue.baseline import (
    CURRENT_SCORING_SCHEMA,
    ELIGIBLE_STATUSES,
    Exclusion,
    build_baseline,
)
from rvault_tracking_db.queue.batches import (
    epoch_members,
    live_claim,
    live_members,
    mixed_batch_issues,
    talks_of,
)
from rvault_tracking_db.queue.claims import (
    CLAIMABLE_STATUSES,
    CURRENT_CLAIM_VERSION,
    INFLIGHT_STATUS,
    build_claim,
    claim_version,
)
from rvault_tracking_db.queue.issues import is_int, is_nonempty_str, jp


@dataclass(frozen=True)
class ClaimRequest:
    run_id: str
    batch_id: str
    claimed_at: str  # already canonical
    limit: int | None = None
    talks: tuple[str, ...] | None = None
    catalog_fingerprint: str | None = None


@dataclass
class ClaimOutcome:
    database: dict[str, Any] | None  # None: nothing to write
    members: list[tuple[str, dict[str, Any]]]
    replayed: bool
    baseline: dict[str, Any] | None
    exclusions: tuple[Exclusion, ...] = ()
    skipped: list[dict[str, str]] = field(default_factory=list)
    changed: list[int] = field(default_factory=list)


def _replay(request: ClaimRequest, database: Mapping[str, Any]) -> ClaimOutcome | None:
    members = live_members(database, request.run_id, request.batch_id)
    if not members:
        epoch = epoch_members(database, (request.run_id, request.batch_id, request.claimed_at))
        if epoch:
            raise Refusal(
                "epoch_already_closed",
                "this (run_id, batch_id, claimed_at) epoch is closed; claim with a new --now",
                epoch[0].path,
            )
        return None
    problems = mixed_batch_issues(members)
    if problems:
        raise Refusal(problems[0].code, problems[0].message, problems[0].path)
    stored_at = members[0].claim.get("claimed_at")
    filenames = sorted(m.filename for m in members)
    same_stamp = stored_at == request.claimed_at
    if request.talks is not None:
        same_selection = sorted(set(request.talks)) == filenames and len(request.talks) == len(
            filenames
        )
    else:
        same_selection = request.limit is not None and len(filenames) <= request.limit
    closed_same_epoch = [
        m
        for m in epoch_members(database, (request.run_id, request.batch_id, str(stored_at)))
        if m.claim.get("state") != "claimed" or m.location != "current"
    ]
    if closed_same_epoch:
        raise Refusal(
            "mixed_batch",
            "the live batch is lifecycle-split (some members already closed); recover it first",
            closed_same_epoch[0].path,
        )
    if not (same_stamp and same_selection):
        raise Refusal(
            "batch_already_claimed",
            f"batch ({request.run_id}, {request.batch_id}) is already claimed at {stored_at}",
            members[0].path,
        )
    if claim_version(members[0].claim) != CURRENT_CLAIM_VERSION:
        raise Refusal(
            "legacy_claim_replay",
            "the live batch holds legacy claims; recover it and issue a fresh v5 generation",
            members[0].path,
        )
    stored = [(m.filename, dict(m.claim)) for m in sorted(members, key=lambda m: m.filename)]
    baseline = stored[0][1].get("adherence_baseline")
    return ClaimOutcome(
        None, stored, True, dict(baseline) if isinstance(baseline, Mapping) else None
    )


def _index(talks: Sequence[Any]) -> dict[str, list[int]]:
    index: dict[str, list[int]] = {}
    for position, talk in enumerate(talks):
        if isinstance(talk, Mapping) and isinstance(talk.get("filename"), str):
            index.setdefault(talk["filename"], []).append(position)
    return index


def _select(
    request: ClaimRequest, talks: Sequence[Any], roots: SourceRoots
) -> tuple[list[int], list[dict[str, str]]]:
    if request.talks is not None:
        index = _index(talks)
        chosen: list[int] = []
        seen: set[str] = set()
        for arg_index, name in enumerate(request.talks):
            where = jp("$", "request", "talks", arg_index)
            if name in seen:
                raise Refusal("duplicate_talk", f"{name} is named twice", where)
            seen.add(name)
            positions = index.get(name, [])
            if not positions:
                known = [t.get("filename") for t in talks if isinstance(t, Mapping)]
                raise Refusal(
                    "talk_not_found",
                    f"no talk has filename {name}{did_you_mean(name, known)}",
                    "--talk",
                    closest=closest(name, known),
                    request_path=where,
                    hint="`rvault-db status DB` lists every talk and its filename",
                )
            if len(positions) > 1:
                raise Refusal(
                    "duplicate_filename",
                    f"{name} names several talks",
                    jp("$", "talks", positions[1], "filename"),
                )
            position = positions[0]
            talk = talks[position]
            if live_claim(talk) is not None:
                raise Refusal(
                    "talk_already_claimed",
                    f"{name} is already claimed",
                    jp("$", "talks", position, "_queue_claim"),
                    hint="`rvault-db queue DB inspect` shows its batch; recover that batch first",
                )
            if talk.get("status") not in CLAIMABLE_STATUSES:
                raise Refusal(
                    "talk_not_claimable",
                    f"{name} has status {talk.get('status')!r}, not {list(CLAIMABLE_STATUSES)}",
                    jp("$", "talks", position, "status"),
                    hint="only pending and needs-reprocessing talks are claimed",
                )
            if not source_capabilities(talk, roots):
                raise Refusal(
                    "talk_has_no_sources",
                    f"{name} has no verified local artifact and no active remote source",
                    jp("$", "talks", position),
                    hint="register a source (`rvault-db register-transcript`, `rvault-db sources`)",
                )
            chosen.append(position)
        return chosen, []
    assert request.limit is not None
    chosen = []
    skipped: list[dict[str, str]] = []
    index = _index(talks)
    for position, talk in enumerate(talks):
        if len(chosen) >= request.limit:
            break
        if not isinstance(talk, Mapping) or talk.get("status") not in CLAIMABLE_STATUSES:
            continue
        if live_claim(talk) is not None:
            continue
        name = talk.get("filename")
        if not isinstance(name, str) or len(index.get(name, [])) != 1:
            skipped.append({"filename": str(name), "reason": "duplicate_filename"})
            continue
        if not source_capabilities(talk, roots):
            skipped.append({"filename": name, "reason": "no_source_capabilities"})
            continue
        chosen.append(position)
    return chosen, skipped


FINGERPRINT_HINT = (
    "print the pattern catalog's fingerprint with `rvault-returns catalog` and pass it as "
    "--catalog-fingerprint HEX"
)


def derive_fingerprint(talks: Sequence[Any], excluded: set[str]) -> str:
    """The catalog fingerprint of the current generation, when the vault has exactly one."""
    seen = {
        talk.get("pattern_catalog_fingerprint")
        for talk in talks
        if isinstance(talk, Mapping)
        and talk.get("filename") not in excluded
        and talk.get("status") in ELIGIBLE_STATUSES
        and talk.get("pattern_scoring_generation_status") == "current"
        and talk.get("pattern_scoring_schema_version") == CURRENT_SCORING_SCHEMA
        and is_int(talk.get("pattern_scoring_schema_version"))
    }
    valid = sorted(fp for fp in seen if is_sha256_hex(fp))
    if len(valid) == 1:
        return valid[0]
    if not valid:
        raise Refusal(
            "catalog_fingerprint_required",
            "no current talk names the catalog fingerprint; pass --catalog-fingerprint",
            "--catalog-fingerprint",
            hint=FINGERPRINT_HINT,
        )
    raise Refusal(
        "catalog_fingerprint_ambiguous",
        f"current talks name {len(valid)} catalog fingerprints; pass --catalog-fingerprint",
        "--catalog-fingerprint",
        fingerprints=valid,
        hint=FINGERPRINT_HINT,
    )


def plan_claim(
    database: Mapping[str, Any], request: ClaimRequest, roots: SourceRoots
) -> ClaimOutcome:
    """Decide the claim (or replay) without touching the input value."""
    for name in ("run_id", "batch_id"):
        if not is_nonempty_str(getattr(request, name)):
            raise Refusal(
                "invalid_argument",
                f"--{name.replace('_', '-')} must be a non-empty string",
                jp("$", "request", name),
            )
    if request.catalog_fingerprint is not None and not is_sha256_hex(request.catalog_fingerprint):
        raise Refusal(
            "invalid_argument",
            "--catalog-fingerprint must be 64 lowercase hex",
            jp("$", "request", "catalog_fingerprint"),
        )
    replay = _replay(request, database)
    if replay is not None:
        return replay
    talks = talks_of(database)
    chosen, skipped = _select(request, talks, roots)
    if not chosen:
        return ClaimOutcome(None, [], False, None, (), skipped)
    batch = [talks[p]["filename"] for p in chosen]
    fingerprint = request.catalog_fingerprint or derive_fingerprint(talks, set(batch))
    result = build_baseline(
        talks, batch_filenames=batch, as_of=request.claimed_at, catalog_fingerprint=fingerprint
    )
    new_talks = list(talks)
    members: list[tuple[str, dict[str, Any]]] = []
    for position in chosen:
        talk = dict(talks[position])
        previous = talk.get("_queue_claim")
        if isinstance(previous, Mapping):
            history = talk.get("_queue_claim_history")
            talk["_queue_claim_history"] = [
                *(history if isinstance(history, list) else []),
                previous,
            ]
        prior_generation = talk.get("reprocess_generation")
        generation = (
            prior_generation if is_int(prior_generation) and prior_generation > 0 else 0
        ) + 1
        claim = build_claim(
            run_id=request.run_id,
            batch_id=request.batch_id,
            claimed_at=request.claimed_at,
            previous_status=talk["status"],
            reprocess_generation=generation,
            baseline=result.baseline,
        )
        talk["_queue_claim"] = claim
        talk["reprocess_generation"] = generation
        talk["status"] = INFLIGHT_STATUS
        new_talks[position] = talk
        members.append((talk["filename"], claim))
    new_database = dict(database)
    new_database["talks"] = new_talks
    members.sort(key=lambda item: item[0])
    return ClaimOutcome(
        new_database, members, False, result.baseline, result.exclusions, skipped, sorted(chosen)
    )
