"""``preflight --capture FILE``: the captured provider facts against the talks they name.

Before a reviewer stores an identity, the capture can already show that a
recording contradicts its talk (another title, an upload before the catalog
date, a duration off by more than the tolerance). Each proposal is compared
with every talk the capture lists under its video by the same rules as a
stored ``source_identity``; findings point into the capture
(``$["entries"][k]["proposal"][...]``) and name the talk. A proposal holds
provider facts only, so the missing speakers and recorded date it never
carries are not reported. A capture made from other database bytes is a
warning: its talk lists may be out of date.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rvault_contracts.strict_json import json_path

from rvault_tracking_db.preflight import identity
from rvault_tracking_db.preflight.findings import Finding, Findings, TalkRef

CAPTURE_STALE = "capture_stale"
_NOT_FOR_PROPOSALS = frozenset({identity.EVIDENCE_MISSING, identity.NOT_COMPARABLE})


def check_capture(
    capture: Mapping[str, Any],
    database_sha256: str | None,
    talks: Sequence[tuple[TalkRef, Mapping[str, Any]]],
    config: Mapping[str, Any],
    findings: Findings,
) -> None:
    if capture["database_sha256"] != database_sha256:
        findings.warn(
            CAPTURE_STALE,
            '$["database_sha256"]',
            "the capture was made from other database bytes; capture again",
            expected=database_sha256,
            actual=capture["database_sha256"],
        )
    by_name = {ref.filename: (ref, talk) for ref, talk in talks}
    for index, entry in enumerate(capture["entries"]):
        if entry["proposal"] is None:
            continue
        base = json_path("$", "entries", index, "proposal")
        for filename in entry["talks"]:
            if filename in by_name:
                ref, talk = by_name[filename]
                _compare(ref, talk, entry["proposal"], base, config, findings)


def named_talks(capture: Mapping[str, Any]) -> frozenset[str]:
    """The filenames :func:`check_capture` looks up: the talks of every entry with a proposal
    (all a preflight streaming the talks keeps of them for the review)."""
    return frozenset(
        filename
        for entry in capture["entries"]
        if entry["proposal"] is not None
        for filename in entry["talks"]
    )


def _compare(
    ref: TalkRef,
    talk: Mapping[str, Any],
    proposal: Mapping[str, Any],
    base: str,
    config: Mapping[str, Any],
    findings: Findings,
) -> None:
    local = Findings()
    identity.check_source_identity({**talk, "source_identity": proposal}, config, ref, local)
    prefix = ref.path("source_identity")
    for finding in local.items:
        if finding.code in _NOT_FOR_PROPOSALS:
            continue
        findings.items.append(_moved(finding, prefix, base))


def _moved(finding: Finding, prefix: str, base: str) -> Finding:
    return Finding(
        finding.severity,
        finding.code,
        base + finding.path.removeprefix(prefix),
        "capture: " + finding.message,
        finding.filename,
        finding.talk_index,
        finding.expected,
        finding.actual,
    )
