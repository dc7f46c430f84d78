"""A talk's persisted evidence ledger, checked through its own contract.

The spec keeps evidence ledgers in "their existing domain schema fields": a
ledger that declares ``evidence_schema_version`` N is the registered
``pattern-observations`` vN document that ``rvault-returns persist`` wrote
(today v2; ledger v1 is the archival v4 shape and has no contract). The talk
schemas do not ``$ref`` it (db-talk v5 constrains only the version), so this
assessment validates the ledger against that schema itself, through
``rvault_contracts`` rather than restating its fields here.

A broken ledger is one talk's evidence trouble, never the vault's: the spec
keeps "the database stays usable" for per-record evidence trouble and
requeues a talk whose evidence identities are missing or obsolete, so a
``ledger_schema_violation`` is a *warning* at the offending member's JSON
path. The talk's analysis is then no usable prior state: ``rvault-db status``
shows it as needing reprocessing, ``queue normalize`` moves an analysed talk
to ``needs-reprocessing`` (``reprocess_reason: evidence_ledger_invalid``),
and the adherence baseline of every claim leaves it out
(``pattern_observations_invalid``); every other talk still reads, claims and
persists. A ledger *version* the talk cannot carry, or an unsupported one,
stays fatal (a version is structure, as for every embedded generation).

Speed: a read of 10,000 talks checks thousands of ledgers, so each is first
offered to jsonschema-rs (:func:`rvault_contracts.fast_accept.fast_accepts`,
microseconds; the same implementation analysis-writer uses); only a ledger
it does not accept is validated by python-jsonschema, which alone decides
and words the issues. Both are imported on first use, so a database without
a v2 ledger pays nothing.
"""

from __future__ import annotations

from typing import Any

from rvault_contracts.issues import WARNING, Collector

from rvault_tracking_db.assessment import shapes

LEDGER_ARTIFACT = "pattern-observations"
#: Ledger versions with a registered contract (v1 has none).
LEDGER_CONTRACT_VERSIONS = shapes.versions(LEDGER_ARTIFACT)
LEDGER_SCHEMA_VIOLATION = "ledger_schema_violation"
#: Issues reported per ledger (the reader reports at most 50 in all).
MAX_LEDGER_ISSUES = 20


def assess_ledger(ledger: Any, path: str, issues: Collector, version: int) -> None:
    """Warn ``ledger_schema_violation`` once per schema issue of a ledger vN (paths from ``$``).

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
            "restore the ledger or reprocess the talk (rvault-db queue DB normalize requeues it)",
            severity=WARNING,
            validator=issue.validator,
        )


def ledger_conforms(ledger: Any, version: int) -> bool:
    """Whether a ledger vN passes its contract (a version without one always does)."""
    if version not in LEDGER_CONTRACT_VERSIONS:
        return True
    from rvault_contracts.fast_accept import fast_accepts

    if fast_accepts(LEDGER_ARTIFACT, version, ledger):
        return True
    from rvault_contracts.schemas import is_valid

    return is_valid(LEDGER_ARTIFACT, version, ledger)
