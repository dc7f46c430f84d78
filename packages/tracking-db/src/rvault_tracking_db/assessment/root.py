"""The database root: schema 0 (implicit legacy) and 1 (current).

Schema 0 is the unversioned corpus: absent record versions map to their
validated historical v1 shapes and absent arrays are simply absent. Schema 1
requires the eight owner state fields and an explicit version on every
owner record, so nothing current is ever inferred.
"""

from __future__ import annotations

import re
from typing import Any

from rvault_contracts.issues import Collector

from rvault_tracking_db.assessment import checks
from rvault_tracking_db.assessment.config import assess_config
from rvault_tracking_db.assessment.model import Assessment, child
from rvault_tracking_db.assessment.pptx import assess_pptx
from rvault_tracking_db.assessment.records import (
    assess_confirmed_intent,
    assess_goal,
    assess_qr,
    assess_resource,
    assess_thumbnail,
)
from rvault_tracking_db.assessment.talks import ClaimChecker, assess_talks, deep_claim_checker

ROOT_VERSIONS = (1,)
CURRENT_ROOT_VERSION = 1
COMMENT_PREFIX = "_comment_"

# The owned arrays and the checker of their records, in document order.
RECORD_ARRAYS = {
    "pptx_catalog": assess_pptx,
    "qr_codes": assess_qr,
    "resources": assess_resource,
    "thumbnails": assess_thumbnail,
    "confirmed_intents": assess_confirmed_intent,
    "improvement_goals": assess_goal,
}
OWNED_ARRAYS = ("talks", *RECORD_ARRAYS)
STATE_FIELDS = ("config", *OWNED_ARRAYS)


def root_version(document: dict[str, Any], issues: Collector) -> int | None:
    """0 for the implicit legacy root, 1 for current, ``None`` when unusable."""
    if "schema_version" not in document:
        return 0
    return checks.version_of(document, "$", ROOT_VERSIONS, issues, missing=None, what="database")


def assess_database(
    document: dict[str, Any],
    *,
    database_parent: str | None = None,
    claim_checker: ClaimChecker | bool | None = True,
    derived_from: tuple[dict[str, Any], Assessment] | None = None,
) -> Assessment:
    """Assess a strictly decoded database. Never raises on bad data.

    ``database_parent`` enables the ``vault_storage_path`` equality check;
    ``claim_checker`` is the queue owner's deep claim validator (``True``
    looks it up, ``None``/``False`` checks only the version axes).

    ``derived_from`` is the (document, assessment) a candidate was built
    from, assessed with the same claim checker. A talk's issues depend only
    on the talk, its index and the root version, so a talk that is still the
    very same object at the same index and had no issue there is not walked
    again: a typed plan over a large vault re-assesses only what it touched.
    """
    checker: ClaimChecker | None
    if claim_checker is True:
        checker = deep_claim_checker()
    elif claim_checker is False:
        checker = None
    else:
        checker = claim_checker
    issues = Collector()
    version = root_version(document, issues)
    if version is None:
        return Assessment(None, tuple(issues.items))
    missing = 1 if version == 0 else None
    if version == 1:
        for key in document:
            if (
                key != "schema_version"
                and key not in STATE_FIELDS
                and not key.startswith(COMMENT_PREFIX)
            ):
                issues.add(
                    checks.UNKNOWN_FIELD, child("$", key), f"database v1 does not allow {key!r}"
                )
        for key in STATE_FIELDS:
            if key not in document:
                issues.add(checks.MISSING_FIELD, child("$", key), f"database v1 requires {key!r}")
    if "config" in document:
        assess_config(
            document["config"],
            '$["config"]',
            issues,
            missing_version=missing,
            database_parent=database_parent,
        )
    talks = document.get("talks")
    if "talks" in document:
        if isinstance(talks, list):
            assess_talks(talks, issues, missing, checker, _clean_talks(derived_from, version))
        else:
            issues.add(checks.WRONG_TYPE, '$["talks"]', "talks must be an array")
    for key, assess in RECORD_ARRAYS.items():
        if key not in document:
            continue
        records = document[key]
        kpath = child("$", key)
        if not isinstance(records, list):
            issues.add(checks.WRONG_TYPE, kpath, f"{key} must be an array")
            continue
        for index, record in enumerate(records):
            assess(record, f"{kpath}[{index}]", issues, missing_version=missing)
    return Assessment(version, tuple(issues.items))


_TALK_PATH = re.compile(r'\$\["talks"\]\[(\d+)\]')


def _clean_talks(
    derived_from: tuple[dict[str, Any], Assessment] | None, version: int
) -> dict[int, Any]:
    """index -> talk object of the prior document that was assessed without issue."""
    if derived_from is None:
        return {}
    prior, assessment = derived_from
    talks = prior.get("talks")
    if assessment.root_version != version or not isinstance(talks, list):
        return {}
    flagged: set[int] = set()
    for issue in assessment.issues:
        if issue.path == '$["talks"]':
            return {}
        if matched := _TALK_PATH.match(issue.path):
            flagged.add(int(matched.group(1)))
    return {i: talk for i, talk in enumerate(talks) if i not in flagged}
