"""Receipt authorization: which persisted talks a return batch may render.

Rendering replaces what a speaker reads, so it is authorized only by the
completed receipt of the exact return that produced the persisted talk. The
whole batch must be completed (``persist`` closes it as one transaction), each
claim must hold a ``result_payload_sha256`` that the canonical encoding of
the return reproduces (a substituted payload is refused), and the scoring
generation stored on each talk must be the one the receipt-bound return and
the current catalog imply. Any failure refuses the whole batch before a
single file is touched.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.canonical import payload_sha256
from rvault_contracts.cli import Refusal
from rvault_returns_persistence.api import CatalogError, load_catalog
from rvault_tracking_db.api import DatabaseRefusal, claim_version, read_database, talk_video_key

from rvault_analysis_writer.ledger_check import ledger_contract, ledger_issues

RENDERED_STATUSES = ("processed", "processed_partial")
CURRENT = "current"
LEGACY = "legacy_unbaselineable"
CURRENT_SCORING_SCHEMA = 5


@dataclass(frozen=True)
class AuthorizedTalk:
    """One batch member with everything rendering may read."""

    filename: str
    ret: Mapping[str, Any]
    talk: Mapping[str, Any]
    claim: Mapping[str, Any]
    return_version: int | None
    receipt: str

    @property
    def rendered(self) -> bool:
        return self.ret.get("status") in RENDERED_STATUSES


@dataclass(frozen=True)
class Authorization:
    run_id: str
    batch_id: str
    talks: tuple[AuthorizedTalk, ...]
    database_sha256: str
    catalog_fingerprint: str
    catalog_source: str
    database: Mapping[str, Any]
    """The owner read the batch was authorized against (its sha256 above): ``write`` takes
    the source roots and deck catalog for its evidence check from this same snapshot."""


def _refuse(code: str, message: str, path: str | None, hint: str, **context: Any) -> Refusal:
    return Refusal(code, message, path, hint=hint, **context)


# --------------------------------------------------------------------------- returns


def returns_of(document: Any) -> list[dict[str, Any]]:
    """The returns of a batch file: an array, one return, or an object keyed by filename."""
    if isinstance(document, list):
        items = document
    elif isinstance(document, dict) and "filename" in document:
        items = [document]
    elif isinstance(document, dict):
        items = []
        for key, value in document.items():
            if not isinstance(value, dict) or value.get("filename") != key:
                raise _refuse(
                    "batch_key_mismatch",
                    f"returns keyed by filename: key {key!r} does not name its return",
                    f"$[{key!r}]",
                    "key each return by its exact filename, or pass an array",
                )
            items.append(value)
    else:
        raise _refuse(
            "returns_shape_invalid",
            "RETURNS.json must hold an array of returns, one return or an object keyed by filename",
            "$",
            "pass the same RETURNS.json that `rvault-returns persist` accepted",
        )
    if not items:
        raise _refuse(
            "batch_empty", "RETURNS.json holds no return", "$", "pass the batch's returns"
        )
    seen: set[str] = set()
    for index, item in enumerate(items):
        where = f"$[{index}]"
        claim = item.get("queue_claim") if isinstance(item, dict) else None
        if (
            not isinstance(item, dict)
            or not isinstance(item.get("filename"), str)
            or not isinstance(item.get("status"), str)
            or not isinstance(claim, dict)
            or not all(isinstance(claim.get(k), str) for k in ("run_id", "batch_id"))
        ):
            raise _refuse(
                "return_invalid",
                "a return needs filename, status and queue_claim {run_id, batch_id}",
                where,
                "pass the exact returns `rvault-returns persist` stored receipts for",
            )
        if item["filename"] in seen:
            raise _refuse(
                "duplicate_return",
                f"{item['filename']} appears twice in the batch",
                f"{where}.filename",
                "keep exactly one return per talk",
            )
        seen.add(item["filename"])
    identities = {(r["queue_claim"]["run_id"], r["queue_claim"]["batch_id"]) for r in items}
    if len(identities) != 1:
        raise _refuse(
            "batch_mixed_identity",
            f"the returns name {len(identities)} different (run_id, batch_id) batches",
            "$",
            "render one batch at a time",
            batches=sorted(list(i) for i in identities),
        )
    return items


# --------------------------------------------------------------------------- database


def _read(database_path: Path) -> tuple[dict[str, Any], str]:
    try:
        result = read_database(database_path)
    except DatabaseRefusal as exc:
        raise _refuse(
            "database_invalid",
            f"the tracking database cannot be read: {exc.message}",
            str(database_path),
            "check it with `rvault-db read DB`",
            owner_error={"code": exc.code, "message": exc.message, "path": exc.path},
        ) from None
    assert result.database is not None and result.sha256 is not None
    return result.database, result.sha256


def _members(database: Mapping[str, Any], run_id: str, batch_id: str) -> dict[str, Any]:
    """Talks whose current claim names the batch (any state)."""
    members = {}
    for talk in database.get("talks") or ():
        claim = talk.get("_queue_claim") if isinstance(talk, dict) else None
        if (
            isinstance(claim, dict)
            and claim.get("run_id") == run_id
            and claim.get("batch_id") == batch_id
        ):
            members[talk["filename"]] = talk
    return members


# --------------------------------------------------------------------------- receipts


def _check_claim(ret: Mapping[str, Any], talk: Mapping[str, Any], where: str) -> str:
    claim = talk["_queue_claim"]
    name = ret["filename"]
    if claim.get("state") != "completed":
        raise _refuse(
            "batch_not_completed",
            f"{name}: claim state is {claim.get('state')!r}, not completed",
            f"talks[{name}]._queue_claim.state",
            "persist the batch first (`rvault-returns persist`), or recover and reprocess it",
        )
    if ret["queue_claim"].get("reprocess_generation") != claim.get("reprocess_generation"):
        raise _refuse(
            "queue_generation_mismatch",
            f"{name}: the return's reprocess_generation is not the completed claim's",
            f"{where}.queue_claim.reprocess_generation",
            "render with the returns of the generation that was persisted",
        )
    receipt = claim.get("result_payload_sha256")
    if claim_version(claim) == 1 or not isinstance(receipt, str):
        raise _refuse(
            "receipt_unavailable",
            f"{name}: a completed v1 claim has no result_payload_sha256 to authorize rendering",
            f"talks[{name}]._queue_claim",
            "claim the talk again and process a fresh generation",
        )
    actual = payload_sha256(ret)
    if actual != receipt:
        raise _refuse(
            "receipt_mismatch",
            f"{name}: the return is not the payload persisted (receipt {receipt[:12]}..., "
            f"this return {actual[:12]}...)",
            where,
            "pass the exact return that `rvault-returns persist` stored; it was substituted",
            expected_sha256=receipt,
            actual_sha256=actual,
        )
    if claim.get("result_status") != ret.get("status"):
        raise _refuse(
            "result_status_mismatch",
            f"{name}: claim result_status {claim.get('result_status')!r} is not the return's "
            f"status {ret.get('status')!r}",
            f"{where}.status",
            "the database and the return disagree; re-run persistence for a fresh generation",
        )
    return receipt


# --------------------------------------------------------------------------- generation


def expected_generation(ret: Mapping[str, Any]) -> tuple[str, tuple[str, ...]]:
    """The scoring generation a persisted processed talk must carry for ``ret``.

    A receipt-bound v5 processed return (persistence validated it) is
    ``current``. Older returns are ``legacy_unbaselineable`` and must at
    least carry their version's replay reason; persistence may add
    artifact-derived reasons (ambiguous comparison groups, uncited legacy
    detections), which only it can compute.
    """
    version = ret.get("return_schema_version")
    if version == 5:
        return CURRENT, ()
    if isinstance(version, int) and not isinstance(version, bool) and 1 <= version < 5:
        return LEGACY, (f"return_schema_v{version}_replay_only",)
    return LEGACY, ()


def _check_generation(
    ret: Mapping[str, Any], talk: Mapping[str, Any], fingerprint: str, name: str
) -> None:
    status, required = expected_generation(ret)
    found = talk.get("pattern_scoring_generation_status")
    reasons = talk.get("pattern_scoring_generation_reasons")
    path = f"talks[{name}]"
    hint = "re-run `rvault-returns persist` on a fresh claim against the current catalog"

    def mismatch(field: str, expected: Any, actual: Any, message: str) -> Refusal:
        return _refuse(
            "scoring_generation_mismatch",
            f"{name}: {message}",
            f"{path}.{field}",
            hint,
            field=field,
            expected=expected,
            actual=actual,
        )

    if found != status:
        raise mismatch("pattern_scoring_generation_status", status, found, "wrong generation")
    if status == CURRENT:
        if reasons != []:
            raise mismatch(
                "pattern_scoring_generation_reasons", [], reasons, "current needs no reasons"
            )
        if talk.get("pattern_scoring_schema_version") != CURRENT_SCORING_SCHEMA:
            raise mismatch(
                "pattern_scoring_schema_version",
                CURRENT_SCORING_SCHEMA,
                talk.get("pattern_scoring_schema_version"),
                "current needs scoring schema 5",
            )
        if talk.get("pattern_catalog_fingerprint") != fingerprint:
            raise _refuse(
                "catalog_fingerprint_mismatch",
                f"{name}: scored against catalog {talk.get('pattern_catalog_fingerprint')!r}, "
                f"the current catalog is {fingerprint}",
                f"{path}.pattern_catalog_fingerprint",
                "render with the catalog the batch was scored with (--catalog), or reprocess",
                expected=fingerprint,
                actual=talk.get("pattern_catalog_fingerprint"),
            )
        return
    if (
        not isinstance(reasons, list)
        or not reasons
        or reasons != sorted(set(reasons))
        or not set(required) <= set(reasons)
    ):
        raise mismatch(
            "pattern_scoring_generation_reasons",
            sorted(required) or ["<at least one reason>"],
            reasons,
            "legacy needs exact sorted reasons including the return's replay reason",
        )
    for field in ("pattern_scoring_schema_version", "pattern_catalog_fingerprint"):
        if field in talk:
            raise mismatch(field, None, talk[field], "a legacy result keeps no current " + field)


# --------------------------------------------------------------------------- ledger


def _check_ledgers(members: list[AuthorizedTalk]) -> None:
    """A current ledger is rendered only if it is what its contract says persist wrote.

    The tracking-db read checks the talk record, not the ledger's own
    contract; a hand-edited or corrupted ledger (a citation at line 0, a
    missing outcome row) must not reach the speaker as source-verified.
    """
    failures = ledger_issues([(m.filename, m.talk) for m in members if m.rendered])
    for member in members:
        issues = failures.get(member.filename)
        if not issues:
            continue
        name = member.filename
        artifact, version = ledger_contract(member.talk) or ("pattern-observations", 2)
        first = issues[0]
        raise _refuse(
            "database_invalid",
            f"{name}: the persisted pattern_observations break {artifact} v{version}: "
            f"{first['path']}: {first['message']}",
            f"talks[{name}].pattern_observations{first['path'].removeprefix('$')}",
            "the ledger was changed after persistence; reprocess the talk",
            issues=[
                {"code": "ledger_schema_violation", "path": i["path"], "message": i["message"]}
                for i in issues
            ],
        )


# --------------------------------------------------------------------------- slides


def _check_slides(talk: Mapping[str, Any], name: str) -> None:
    """Video-extracted slide provenance must name the talk's own recording.

    The rendered header shows ``slides_local_path``; for ``video_extracted``
    slides it must be ``slides/{video_extraction.source_video_id}.pdf`` (and
    is required for ``processed``), and that manifest identity must be the
    talk's video key (its ``youtube_id``, or the stem of its attached recording),
    as persistence checked before it wrote.
    """
    if talk.get("slide_source") != "video_extracted":
        return
    structured = talk.get("structured_data")
    manifest = structured.get("video_extraction") if isinstance(structured, Mapping) else None
    video_id = manifest.get("source_video_id") if isinstance(manifest, Mapping) else None
    path = talk.get("slides_local_path")
    where = f"talks[{name}]"
    hint = "the persisted slide provenance is inconsistent; reprocess the talk"
    youtube = talk_video_key(talk)
    if video_id is not None and youtube is not None and video_id != youtube:
        raise _refuse(
            "video_manifest_identity_mismatch",
            f"{name}: the video manifest is for {video_id!r}, the talk's youtube_id is {youtube!r}",
            f"{where}.structured_data.video_extraction.source_video_id",
            hint,
        )
    expected = f"slides/{video_id}.pdf" if isinstance(video_id, str) else None
    if (path is not None or talk.get("status") == "processed") and path != expected:
        raise _refuse(
            "slides_local_path_mismatch",
            f"{name}: video-extracted slides_local_path is {path!r}, expected {expected!r}",
            f"{where}.slides_local_path",
            hint,
        )


# --------------------------------------------------------------------------- entry point


def authorize(
    document: Any, *, database_path: Path, catalog_dir: Path | None = None
) -> Authorization:
    """Refuse unless every return of the batch is the receipt-bound persisted one."""
    returns = returns_of(document)
    run_id = returns[0]["queue_claim"]["run_id"]
    batch_id = returns[0]["queue_claim"]["batch_id"]
    database, database_sha = _read(database_path)
    try:
        catalog = load_catalog(catalog_dir)
    except CatalogError as exc:
        raise _refuse(
            "catalog_invalid",
            f"the pattern catalog cannot be used: {exc}",
            None if catalog_dir is None else str(catalog_dir),
            "check it with `rvault-returns catalog`",
        ) from None
    members = _members(database, run_id, batch_id)
    names = {r["filename"] for r in returns}
    missing = sorted(set(members) - names)
    extra = sorted(names - set(members))
    if missing or extra:
        raise _refuse(
            "batch_membership_mismatch",
            f"batch ({run_id}, {batch_id}): returns for {len(names)} talks, "
            f"{len(members)} talks carry the batch claim",
            "$",
            "pass exactly the returns of every batch member",
            missing_returns=missing,
            not_members=extra,
        )
    authorized = []
    for index, ret in enumerate(returns):
        name = ret["filename"]
        talk = members[name]
        receipt = _check_claim(ret, talk, f"$[{index}]")
        if ret["status"] in RENDERED_STATUSES:
            if talk.get("status") != ret["status"]:
                raise _refuse(
                    "talk_status_mismatch",
                    f"{name}: persisted status {talk.get('status')!r} is not {ret['status']!r}",
                    f"talks[{name}].status",
                    "the talk changed after persistence; reprocess it",
                )
            _check_generation(ret, talk, catalog.fingerprint, name)
            _check_slides(talk, name)
        version = ret.get("return_schema_version")
        authorized.append(
            AuthorizedTalk(
                name,
                ret,
                talk,
                talk["_queue_claim"],
                version if isinstance(version, int) and not isinstance(version, bool) else None,
                receipt,
            )
        )
    _check_ledgers(authorized)
    return Authorization(
        run_id,
        batch_id,
        tuple(sorted(authorized, key=lambda t: t.filename)),
        database_sha,
        catalog.fingerprint,
        "default" if catalog_dir is None else "custom",
        database,
    )
