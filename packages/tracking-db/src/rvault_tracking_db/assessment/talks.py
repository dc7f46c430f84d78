"""Talk records v1-v5 with their embedded version axes.

Talks are open records: historical lineages carry fields this owner does not
interpret, and migration must preserve them. What is checked is every field
the toolkit interprets, ``transcript_source`` absent-vs-enum (never null),
the source-rejection records, and the embedded generations that must not be
read with an older identity: queue claims v1-v5, adherence baselines v1/v2,
source identity v1, local media v1, evidence ledgers v1/v2 and scoring schema <= 5. A ledger
whose version has a registered contract (v2) is also validated against it
(:mod:`rvault_tracking_db.assessment.ledger`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from rvault_contracts.issues import Collector

from rvault_tracking_db.assessment import checks, shapes
from rvault_tracking_db.assessment.ledger import assess_ledger
from rvault_tracking_db.assessment.local_media import assess_local_media
from rvault_tracking_db.assessment.model import child, is_int
from rvault_tracking_db.assessment.records import assess_source_rejection
from rvault_tracking_db.slides_identity import slides_identity

TALK = "db-talk"
TALK_VERSIONS = shapes.versions(TALK)
CURRENT_TALK_VERSION = max(TALK_VERSIONS)
CLAIM_VERSIONS = shapes.versions("queue-claim")
BASELINE_VERSIONS = shapes.versions("adherence-baseline")
EVIDENCE_LEDGER_VERSIONS = (1, 2)
SCORING_SCHEMA_VERSIONS = tuple(
    v for v in shapes.enum(TALK, CURRENT_TALK_VERSION, "pattern_scoring_schema_version") if v
)
TRANSCRIPT_SOURCES = shapes.enum(TALK, CURRENT_TALK_VERSION, "transcript_source")
RELATION_TYPES = tuple(
    shapes.node(TALK, CURRENT_TALK_VERSION, "properties", "source_relation", "anyOf", 1)[
        "properties"
    ]["type"]["enum"]
)

# Every interpreted field the schemas type as string-or-null (the same set in v1-v5).
_NULLABLE_STRINGS = shapes.typed(TALK, CURRENT_TALK_VERSION, "string", "null")

# The queue owner's validator: claim_issues(claim, *, path, filename) -> issues
# with ``code``, ``path`` (already rooted at ``path``) and ``message``.
ClaimChecker = Callable[..., list[Any]]


def deep_claim_checker() -> ClaimChecker:
    """The queue owner's claim validator, imported on use (the queue imports this package)."""
    from rvault_tracking_db.queue.claims import claim_issues

    return claim_issues


def assess_talks(
    talks: Iterable[Any],
    issues: Collector,
    missing: int | None,
    checker: ClaimChecker | None,
    clean: Mapping[int, Any] | None = None,
) -> None:
    """Every talk's findings in order, plus duplicate filenames: the one talk loop.

    ``talks`` may be a stream (the streamed read hands talks over one at a
    time and drops them), so only filenames are kept. ``clean`` maps an index
    to a talk already assessed without issues there: that very object is not
    walked again.
    """
    seen: set[str] = set()
    for index, talk in enumerate(talks):
        path = f'$["talks"][{index}]'
        if clean is None or index not in clean or clean[index] is not talk:
            assess_talk(talk, path, issues, missing_version=missing, claim_checker=checker)
        filename = talk.get("filename") if isinstance(talk, dict) else None
        if isinstance(filename, str):
            if filename in seen:
                issues.add(
                    "duplicate_talk_filename",
                    child(path, "filename"),
                    f"talk filename {filename!r} appears more than once",
                )
            seen.add(filename)


def assess_talk(
    talk: Any,
    path: str,
    issues: Collector,
    *,
    missing_version: int | None,
    claim_checker: ClaimChecker | None,
) -> int | None:
    if not checks.require_object(talk, path, issues, "talk"):
        return None
    version = checks.version_of(
        talk, path, TALK_VERSIONS, issues, missing=missing_version, what="talk"
    )
    if version is None:
        return None
    filename = talk.get("filename")
    if not isinstance(filename, str) or not filename.strip():
        issues.add(
            checks.MISSING_FIELD if "filename" not in talk else checks.INVALID_VALUE,
            child(path, "filename"),
            "a talk needs a non-empty filename",
        )
    elif not _one_component(filename):
        issues.add(
            checks.INVALID_VALUE,
            child(path, "filename"),
            "a talk filename is one file name: no '/', '\\', NUL or control characters, "
            "and not '.' or '..' (consumers build vault paths from it)",
        )
    for key in _NULLABLE_STRINGS:
        if key in talk and talk[key] is not None and not isinstance(talk[key], str):
            checks.check_type(talk, key, path, issues, ("string", "null"))
    if "status" in talk:
        checks.check_nonempty_string(talk, "status", path, issues)
    _assess_transcript_source(talk, path, issues, version)
    if "reprocess_generation" in talk:
        checks.check_count(talk, "reprocess_generation", path, issues)
    if "co_presenter" in talk:
        checks.check_type(talk, "co_presenter", path, issues, ("boolean",))
    _assess_source_identity(talk, path, issues)
    assess_local_media(talk, path, issues)
    _assess_slides_identity(talk, path, issues)
    _assess_relation(talk, path, issues)
    _assess_rejections(talk, path, issues, missing_version)
    _assess_claims(
        talk, path, issues, claim_checker, filename if isinstance(filename, str) else None
    )
    _assess_scoring_axes(talk, path, issues, version)
    return version


def _assess_transcript_source(
    talk: dict[str, Any], path: str, issues: Collector, version: int
) -> None:
    if "transcript_source" not in talk:
        if version == 1:
            issues.add(
                checks.MISSING_FIELD,
                child(path, "transcript_source"),
                "talk v1 requires transcript_source; only v2+ may omit an unknown provenance",
            )
        return
    value = talk["transcript_source"]
    if value is None:
        issues.add(
            "null_transcript_source",
            child(path, "transcript_source"),
            "unknown transcript provenance is an absent key, never null",
        )
    elif value not in TRANSCRIPT_SOURCES:
        issues.add(
            checks.INVALID_VALUE,
            child(path, "transcript_source"),
            f"transcript_source must be one of {list(TRANSCRIPT_SOURCES)}",
        )


def _assess_source_identity(talk: dict[str, Any], path: str, issues: Collector) -> None:
    identity = talk.get("source_identity")
    if identity is None:
        return
    ipath = child(path, "source_identity")
    if not checks.require_object(identity, ipath, issues, "source_identity"):
        return
    checks.version_of(identity, ipath, (1,), issues, missing=None, what="source_identity")


def _assess_slides_identity(talk: dict[str, Any], path: str, issues: Collector) -> None:
    """An object (db-talk v5); a malformed one is its talk's warning: its PDF is unbound."""
    if "slides_local_identity" not in talk:
        return
    ipath = child(path, "slides_local_identity")
    value = talk["slides_local_identity"]
    if not checks.require_object(value, ipath, issues, "slides_local_identity"):
        return
    if slides_identity(talk) is None:
        issues.warn(
            "slides_identity_invalid",
            ipath,
            "slides_local_identity needs a lowercase hex sha256 and a size_bytes count; "
            "register the PDF again (rvault-db register-slides)",
        )


def _assess_relation(talk: dict[str, Any], path: str, issues: Collector) -> None:
    relation = talk.get("source_relation")
    if relation is None:
        return
    rpath = child(path, "source_relation")
    if not checks.require_object(relation, rpath, issues, "source_relation"):
        return
    checks.closed_fields(
        relation, rpath, issues, required=("type", "target_filename"), what="source_relation"
    )
    checks.check_enum(relation, "type", rpath, issues, RELATION_TYPES)
    checks.check_nonempty_string(relation, "target_filename", rpath, issues)


def _assess_rejections(
    talk: dict[str, Any], path: str, issues: Collector, missing: int | None
) -> None:
    if "source_rejections" not in talk:
        return
    rejections = talk["source_rejections"]
    rpath = child(path, "source_rejections")
    if not isinstance(rejections, list):
        issues.add(checks.WRONG_TYPE, rpath, "source_rejections must be an array")
        return
    for index, record in enumerate(rejections):
        assess_source_rejection(record, child(rpath, index), issues, missing_version=missing)


def _assess_claims(
    talk: dict[str, Any],
    path: str,
    issues: Collector,
    claim_checker: ClaimChecker | None,
    filename: str | None,
) -> None:
    claim = talk.get("_queue_claim")
    if claim is not None:
        _assess_claim(claim, child(path, "_queue_claim"), issues, claim_checker, filename)
    if "_queue_claim_history" in talk:
        history = talk["_queue_claim_history"]
        hpath = child(path, "_queue_claim_history")
        if not isinstance(history, list):
            issues.add(checks.WRONG_TYPE, hpath, "_queue_claim_history must be an array")
            return
        for index, old in enumerate(history):
            _assess_claim(old, child(hpath, index), issues, claim_checker, filename)


def _assess_claim(
    claim: Any,
    path: str,
    issues: Collector,
    claim_checker: ClaimChecker | None,
    filename: str | None,
) -> None:
    if not checks.require_object(claim, path, issues, "queue claim"):
        return
    before = len(issues.items)
    checks.version_of(claim, path, CLAIM_VERSIONS, issues, missing=1, what="queue claim")
    baseline = claim.get("adherence_baseline")
    if baseline is not None:
        bpath = child(path, "adherence_baseline")
        if checks.require_object(baseline, bpath, issues, "adherence baseline"):
            checks.version_of(
                baseline, bpath, BASELINE_VERSIONS, issues, missing=1, what="adherence baseline"
            )
    if len(issues.items) != before or claim_checker is None:
        return
    for problem in claim_checker(claim, path=path, filename=filename):
        issues.add(str(problem.code), str(problem.path or path), str(problem.message))


def _assess_scoring_axes(talk: dict[str, Any], path: str, issues: Collector, version: int) -> None:
    # Paths are built only for an issue: this runs for every talk of the vault.
    if "pattern_scoring_schema_version" in talk:
        value = talk["pattern_scoring_schema_version"]
        if value is not None and not is_int(value):
            issues.add(
                checks.INVALID_VERSION,
                child(path, "pattern_scoring_schema_version"),
                "pattern_scoring_schema_version must be an integer",
            )
        elif value is not None and value not in SCORING_SCHEMA_VERSIONS:
            issues.add(
                checks.UNSUPPORTED,
                child(path, "pattern_scoring_schema_version"),
                f"pattern scoring schema {value} is not supported",
            )
    observations = talk.get("pattern_observations")
    if not isinstance(observations, dict) or "evidence_schema_version" not in observations:
        return
    value = observations["evidence_schema_version"]
    lpath = child(path, "pattern_observations")
    if not is_int(value):
        issues.add(
            checks.INVALID_VERSION,
            child(lpath, "evidence_schema_version"),
            "evidence_schema_version must be an integer",
        )
    elif value not in EVIDENCE_LEDGER_VERSIONS:
        issues.add(
            checks.UNSUPPORTED,
            child(lpath, "evidence_schema_version"),
            f"evidence ledger v{value} is not supported",
        )
    elif version == 5 and value != 2:
        issues.add(
            checks.INVALID_VALUE,
            child(lpath, "evidence_schema_version"),
            "talk v5 carries evidence ledger v2",
        )
    elif version == 4 and value != 1:
        issues.add(
            checks.INVALID_VALUE,
            child(lpath, "evidence_schema_version"),
            "talk v4 keeps evidence ledger v1",
        )
    else:
        assess_ledger(observations, lpath, issues, value)


def _one_component(filename: str) -> bool:
    """The db-talk schemas' filename rule: a single path component, safe to join to a directory."""
    if filename in (".", ".."):
        return False
    return not any(c in "/\\" or ord(c) < 0x20 or ord(c) == 0x7F for c in filename)
