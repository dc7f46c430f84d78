"""Claiming a batch: selection, the one pre-mutation baseline, v5 claims, replay.

The whole operation is pure: it returns the new database value (or
``None`` when nothing changes) and the claims it stands on. It is decided
on a :class:`ClaimView` given the talks one at a time (what each talk
contributes to the decision, the few talks it may change kept whole), so
``queue claim`` decides the same way on a decoded database
(:func:`plan_claim`) and as the read streams the talks
(:mod:`.streamed_claim`). The command layer binds it to the exact bytes it
read with the writer protocol. Order matters and is fixed:

1. an existing live batch with the same ``(run_id, batch_id)`` is either an
   exact replay (the stored claims are returned, nothing is written) or a
   refusal; a closed epoch with the same stamp is never reused;
2. the batch is selected and every member is checked (exists, unique,
   not held, claimable status, a non-empty capability list);
3. the baseline is built once from the untouched talks, with the batch
   excluded first (from each talk's :class:`~.baseline.Standing`);
4. only then are the selected talks copied and changed: a closed previous
   claim moves to ``_queue_claim_history``, ``reprocess_generation`` goes up
   by one, the status becomes ``reprocessing-inflight``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
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
    Standing,
    baseline_of,
    standing,
)
from rvault_tracking_db.queue.batches import (
    Member,
    live_claim,
    mixed_batch_issues,
    talk_members,
    talks_of,
)
from rvault_tracking_db.queue.claims import (
    CLAIMABLE_STATUSES,
    CURRENT_CLAIM_VERSION,
    INFLIGHT_STATUS,
    STATE_CLAIMED,
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
    database: dict[str, Any] | None  # None: nothing to write (or a streamed plan: see updated)
    members: list[tuple[str, dict[str, Any]]]
    replayed: bool
    baseline: dict[str, Any] | None
    exclusions: tuple[Exclusion, ...] = ()
    skipped: list[dict[str, str]] = field(default_factory=list)
    changed: list[int] = field(default_factory=list)
    updated: dict[int, dict[str, Any]] = field(default_factory=dict)  # the claimed talks


def _replay(
    request: ClaimRequest,
    members: list[Member],
    epoch: Callable[[tuple[str, str, str]], list[Member]],
) -> ClaimOutcome | None:
    """The exact replay of a live batch, a refusal, or None (no live batch).

    ``members``: the batch's live claims; ``epoch(key)``: one epoch's claims.
    """
    if not members:
        closed = epoch((request.run_id, request.batch_id, request.claimed_at))
        if closed:
            raise Refusal(
                "epoch_already_closed",
                "this (run_id, batch_id, claimed_at) epoch is closed; claim with a new --now",
                closed[0].path,
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
        for m in epoch((request.run_id, request.batch_id, str(stored_at)))
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
        _index_talk(index, position, talk)
    return index


def _index_talk(index: dict[str, list[int]], position: int, talk: Any) -> None:
    if isinstance(talk, Mapping) and isinstance(talk.get("filename"), str):
        index.setdefault(talk["filename"], []).append(position)


def _select_named(
    names: Sequence[str],
    index: Mapping[str, list[int]],
    talks: Mapping[int, Any],
    known: list[Any],
    roots: SourceRoots,
) -> list[int]:
    """``--talk``: each named talk's position, or the first reason one cannot be claimed.

    ``talks`` holds (at least) the talks with a named filename; ``known`` every
    talk's filename, for the closest-name hint.
    """
    chosen: list[int] = []
    seen: set[str] = set()
    for arg_index, name in enumerate(names):
        where = jp("$", "request", "talks", arg_index)
        if name in seen:
            raise Refusal("duplicate_talk", f"{name} is named twice", where)
        seen.add(name)
        positions = index.get(name, [])
        if not positions:
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
    return chosen


def _limit_verdict(
    talk: Any, index: Mapping[str, list[int]], roots: SourceRoots
) -> dict[str, str] | bool:
    """``--limit``: True when the talk is taken, its skipped entry, or False (passed over).

    ``index`` holds every talk seen so far (a later talk of the same filename
    would make this one a duplicate too: a streaming caller checks at the end).
    """
    if not isinstance(talk, Mapping) or talk.get("status") not in CLAIMABLE_STATUSES:
        return False
    if live_claim(talk) is not None:
        return False
    name = talk.get("filename")
    if not isinstance(name, str) or len(index.get(name, [])) != 1:
        return {"filename": str(name), "reason": "duplicate_filename"}
    if not source_capabilities(talk, roots):
        return {"filename": name, "reason": "no_source_capabilities"}
    return True


FINGERPRINT_HINT = (
    "print the pattern catalog's fingerprint with `rvault-returns catalog` and pass it as "
    "--catalog-fingerprint HEX"
)


def _current_generation(talk: Any) -> bool:
    """Whether ``talk``'s catalog fingerprint names the current generation."""
    return (
        isinstance(talk, Mapping)
        and talk.get("status") in ELIGIBLE_STATUSES
        and talk.get("pattern_scoring_generation_status") == "current"
        and talk.get("pattern_scoring_schema_version") == CURRENT_SCORING_SCHEMA
        and is_int(talk.get("pattern_scoring_schema_version"))
    )


def choose_fingerprint(seen: Iterable[Any]) -> str:
    """The catalog fingerprint of the current generation, when the vault has exactly one.

    ``seen``: the fingerprints the current talks outside the batch name.
    """
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


def _check_request(request: ClaimRequest) -> None:
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


class ClaimView:
    """The claim decided on what each talk contributes, given talk by talk.

    :meth:`add` keeps, per talk, only what the decision reads: the batch's
    claims (replay and epoch lookups), the filename (selection, the
    closest-name hint), the fingerprint a current talk names, its baseline
    :class:`~.baseline.Standing`, and whole only the few talks a claim may
    change. :meth:`plan` decides on that in :func:`plan_claim`'s fixed order.
    :func:`plan_claim` feeds it the decoded talks; ``queue claim`` feeds it
    the talks as the read streams them (:mod:`.streamed_claim`).

    ``index``: every talk's filename positions when known up front; without
    it the index grows as talks come, and a caller must decline a vault with
    a repeated filename (a ``--limit`` talk took the index as it stood).
    """

    def __init__(
        self,
        request: ClaimRequest,
        roots: SourceRoots,
        index: dict[str, list[int]] | None = None,
    ) -> None:
        self.request = request
        self.roots = roots
        self.index: dict[str, list[int]] = {} if index is None else index
        self._growing = index is None
        self._named = frozenset(request.talks or ())
        self.known: list[Any] = []  # every talk's filename (talk_not_found's hint)
        self.batch: list[Member] = []  # claims of (run_id, batch_id), any state or epoch
        self.kept: dict[int, Any] = {}  # talks --talk names or --limit took, whole
        self.taken: list[int] = []
        self.skipped: list[dict[str, str]] = []
        self.fingerprints: Counter[Any] = Counter()
        self.standings: list[Standing] = []
        self.count = 0

    def add(self, position: int, talk: Any) -> None:
        """Talk ``position`` (every talk in order, from the first)."""
        self.count += 1
        self.batch.extend(talk_members(position, talk, self._of_batch, current_only=False))
        if self._growing:
            _index_talk(self.index, position, talk)
        if isinstance(talk, Mapping):
            self.known.append(talk.get("filename"))
        self._select(position, talk)
        if self.request.catalog_fingerprint is None and _current_generation(talk):
            self.fingerprints[talk.get("pattern_catalog_fingerprint")] += 1
        self.standings.append(standing(talk))

    def _of_batch(self, claim: Mapping[str, Any]) -> bool:
        return (
            claim.get("batch_id") == self.request.batch_id
            and claim.get("run_id") == self.request.run_id
        )

    def _select(self, position: int, talk: Any) -> None:
        if self.request.talks is not None:
            name = talk.get("filename") if isinstance(talk, Mapping) else None
            if isinstance(name, str) and name in self._named:
                self.kept[position] = talk
            return
        assert self.request.limit is not None
        if len(self.taken) >= self.request.limit:
            return
        verdict = _limit_verdict(talk, self.index, self.roots)
        if verdict is True:
            self.taken.append(position)
            self.kept[position] = talk
        elif verdict:
            self.skipped.append(verdict)

    def _live(self) -> list[Member]:
        return [
            m
            for m in self.batch
            if m.location == "current" and m.claim.get("state") == STATE_CLAIMED
        ]

    def _epoch(self, key: tuple[str, str, str]) -> list[Member]:
        assert key[:2] == (self.request.run_id, self.request.batch_id)
        return [m for m in self.batch if m.claim.get("claimed_at") == key[2]]

    def plan(self) -> ClaimOutcome:
        """Decide the claim (or replay) without touching the talks given."""
        request = self.request
        _check_request(request)
        replay = _replay(request, self._live(), self._epoch)
        if replay is not None:
            return replay
        if request.talks is not None:
            chosen = _select_named(request.talks, self.index, self.kept, self.known, self.roots)
        else:
            chosen = self.taken
        if not chosen:
            return ClaimOutcome(None, [], False, None, (), self.skipped)
        batch = [self.kept[p]["filename"] for p in chosen]
        fingerprint = request.catalog_fingerprint or choose_fingerprint(self._named_outside(chosen))
        left_out = set(chosen)
        result = baseline_of(
            (s for p, s in enumerate(self.standings) if p not in left_out),
            batch_filenames=batch,
            as_of=request.claimed_at,
            catalog_fingerprint=fingerprint,
        )
        updated = {p: claimed_talk(self.kept[p], request, result.baseline) for p in chosen}
        members = sorted(
            ((talk["filename"], talk["_queue_claim"]) for talk in updated.values()),
            key=lambda item: item[0],
        )
        return ClaimOutcome(
            None,
            members,
            False,
            result.baseline,
            result.exclusions,
            self.skipped,
            sorted(chosen),
            updated,
        )

    def _named_outside(self, chosen: list[int]) -> set[Any]:
        """The fingerprints current talks outside the batch name."""
        counts = Counter(self.fingerprints)
        for position in chosen:
            talk = self.kept[position]
            if _current_generation(talk):
                counts[talk.get("pattern_catalog_fingerprint")] -= 1
        return {fp for fp, count in counts.items() if count > 0}


def claimed_talk(
    talk: Mapping[str, Any], request: ClaimRequest, baseline: Mapping[str, Any]
) -> dict[str, Any]:
    """A copy of ``talk`` claimed: the previous claim to history, generation + 1, in flight."""
    claimed = dict(talk)
    previous = claimed.get("_queue_claim")
    if isinstance(previous, Mapping):
        history = claimed.get("_queue_claim_history")
        claimed["_queue_claim_history"] = [
            *(history if isinstance(history, list) else []),
            previous,
        ]
    prior_generation = claimed.get("reprocess_generation")
    generation = (prior_generation if is_int(prior_generation) and prior_generation > 0 else 0) + 1
    claimed["_queue_claim"] = build_claim(
        run_id=request.run_id,
        batch_id=request.batch_id,
        claimed_at=request.claimed_at,
        previous_status=claimed["status"],
        reprocess_generation=generation,
        baseline=baseline,
    )
    claimed["reprocess_generation"] = generation
    claimed["status"] = INFLIGHT_STATUS
    return claimed


def plan_claim(
    database: Mapping[str, Any], request: ClaimRequest, roots: SourceRoots
) -> ClaimOutcome:
    """Decide the claim (or replay) without touching the input value."""
    _check_request(request)
    talks = talks_of(database)
    view = ClaimView(request, roots, _index(talks))
    for position, talk in enumerate(talks):
        view.add(position, talk)
    outcome = view.plan()
    if outcome.updated:
        new_talks = list(talks)
        for position, talk in outcome.updated.items():
            new_talks[position] = talk
        outcome.database = {**database, "talks": new_talks}
    return outcome
