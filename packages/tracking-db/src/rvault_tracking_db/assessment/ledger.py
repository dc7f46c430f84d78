"""A talk's persisted evidence ledger, checked through its own contract.

The spec keeps evidence ledgers in "their existing domain schema fields": a
ledger that declares ``evidence_schema_version`` N is the registered
``pattern-observations`` vN document that ``rvault-returns persist`` wrote
(today v2; ledger v1 is the archival v4 shape and has no contract). The talk
schemas do not ``$ref`` it (db-talk v5 constrains only the version), so this
assessment validates the ledger against that schema itself, through
``rvault_contracts`` rather than restating its fields here.

A broken ledger is fatal, like every other talk field the owner interprets:
the spec's one per-record exception is the PPTX visual-evidence receipt,
whose shape is "never fatal at the database assessment"; nothing says so of
a ledger, and a current talk is rendered, queued into baselines and counted
as source-verified evidence from exactly this object, so a talk whose ledger
breaks its contract is a malformed record and the database is no usable
prior state until the talk is reprocessed.

Speed: a read of 10,000 talks checks thousands of ledgers, so each is first
offered to jsonschema-rs (:func:`rvault_contracts.fast_accept.fast_accepts`,
microseconds; the same implementation analysis-writer uses); only a ledger
it does not accept is validated by python-jsonschema, which alone decides
and words the issues. Both are imported on first use, so a database without
a v2 ledger pays nothing.
"""

from __future__ import annotations

from typing import Any

from rvault_contracts.issues import Collector

from rvault_tracking_db.assessment import shapes

LEDGER_ARTIFACT = "pattern-observations"
#: Ledger versions with a registered contract (v1 has none).
LEDGER_CONTRACT_VERSIONS = shapes.versions(LEDGER_ARTIFACT)
LEDGER_SCHEMA_VIOLATION = "ledger_schema_violation"
#: Issues reported per ledger (the reader reports at most 50 in all).
MAX_LEDGER_ISSUES = 20


def assess_ledger(ledger: Any, path: str, issues: Collector, version: int) -> None:
    """Add one ``ledger_schema_violation`` per schema issue of a ledger vN (paths from ``$``).

    ``path`` is the JSON path of the talk's ``pattern_observations``;
    ``version`` the ``evidence_schema_version`` it declares (already checked
    to be supported and to fit the talk version).
    """
    if version not in LEDGER_CONTRACT_VERSIONS:
        return
    from rvault_contracts.fast_accept import fast_accepts

    if fast_accepts(LEDGER_ARTIFACT, version, ledger):
        return
    from rvault_contracts.schemas import schema_issues

    for issue in schema_issues(LEDGER_ARTIFACT, version, ledger)[:MAX_LEDGER_ISSUES]:
        issues.add(
            LEDGER_SCHEMA_VIOLATION,
            path + issue.path[1:],
            f"pattern_observations break {LEDGER_ARTIFACT} v{version} "
            f"({issue.validator}): {issue.message}; it is not what persist wrote: "
            "restore the ledger or reprocess the talk",
            validator=issue.validator,
        )
