"""From a validated return to the persisted pattern_observations (evidence ledger).

The worker supplies locators; the engine supplies every fact a reader later
trusts: where a quote is, which exact artifact a slide number or an interval
was checked against, how far each inspection reached, whether a source can
establish an absence, and the exhaustive outcome of every observable entry.
Model-supplied locations never survive: each citation is rebuilt from its
worker locator plus what :mod:`verified_artifacts` proved. v5 gets evidence
ledger v2 (``pattern-observations`` v2); an archival v4 return keeps ledger
v1 (its own score object, no outcomes) with the same canonical rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rvault_contracts.canonical import payload_sha256
from rvault_contracts.cli import Refusal
from rvault_contracts.issues import Collector
from rvault_contracts.strict_json import json_path as child

from rvault_returns_persistence.catalog import Catalog, CatalogEntry, Gate
from rvault_returns_persistence.checks.detections import LANES
from rvault_returns_persistence.checks.inspection import (
    Inspection,
    check_inspection,
    range_complete,
)
from rvault_returns_persistence.checks.protocol import expected_reason
from rvault_returns_persistence.context import return_context
from rvault_returns_persistence.database import Snapshot
from rvault_returns_persistence.persist_gate import Member
from rvault_returns_persistence.quote_locator import near_miss, segment_span
from rvault_returns_persistence.verified_artifacts import EvidenceRefusal, VerifiedArtifacts
from rvault_returns_persistence.vocabulary import COMPARISON, RANGE_KEY

LEDGER_VERSION = {4: 1, 5: 2}
OPPORTUNITY_SCHEMA = "opportunity-coverage/v1"
COUNT_KEY = {
    "transcript": "line_count",
    "static_slides": "page_count",
    "native_deck": "page_count",
    "delivery_video": "duration_seconds",
}
SLIDE_SOURCES = ("native_deck", "static_slides")


@dataclass
class Ledger:
    """The persisted observations plus the metadata citations to stamp after the merge."""

    observations: dict[str, Any]
    metadata_citations: list[dict[str, Any]] = field(default_factory=list)


def absence_capability(source: str, complete: bool, video_extracted: bool) -> tuple[bool, str]:
    """The engine-owned absence gate of one inspection row (spec reason values)."""
    if source == COMPARISON:
        return False, "comparison_alignment_unverified"
    if source == "native_deck":
        return False, "bare_native_deck"
    if source == "delivery_video":
        return False, "bare_delivery_video"
    if source == "static_slides" and video_extracted:
        return False, "nonexhaustive_video_extraction"
    if not complete:
        return False, "incomplete_range_coverage"
    if source == "transcript":
        return True, "authorized_transcript"
    return True, "authorized_rendered_static"


class LedgerBuilder:
    def __init__(
        self,
        *,
        ret: dict[str, Any],
        version: int,
        path: str,
        catalog: Catalog,
        inspection: Inspection,
        evidence: VerifiedArtifacts,
        video_extracted: bool,
        talk: dict[str, Any],
    ) -> None:
        self.ret = ret
        self.version = version
        self.path = child(path, "pattern_observations")
        self.catalog = catalog
        self.inspection = inspection
        self.evidence = evidence
        self.video_extracted = video_extracted
        self.talk = talk
        self.metadata: list[dict[str, Any]] = []

    # ------------------------------------------------------------------ inspection

    def _inspection_row(self, record: dict[str, Any], r_path: str) -> dict[str, Any]:
        source = record["source"]
        if source == COMPARISON:
            members = sorted(record["evidence_sources_used"])
            identities = []
            for member in members:
                bound = self._bounded(member, r_path)
                identities.append({"source": member, **bound.identity.fields()})
            complete = record["comparison_scope"] == "full" and all(
                m in self.inspection.complete for m in members
            )
            capable, reason = absence_capability(source, complete, self.video_extracted)
            return {
                **record,
                "artifact_identities": identities,
                "absence_capability_complete": capable,
                "absence_capability_reason": reason,
                "coverage_complete": complete,
            }
        bound = self._bounded(source, r_path)
        ranges = record[RANGE_KEY[source]]
        complete = range_complete(source, ranges, bound.bound)
        capable, reason = absence_capability(source, complete, self.video_extracted)
        row = {
            **record,
            COUNT_KEY[source]: bound.bound,
            "absence_capability_complete": capable,
            "absence_capability_reason": reason,
            "coverage_complete": complete,
            **bound.identity.fields(),
        }
        if source == "transcript":
            transcript = self.evidence.transcript
            row["quality_artifact_path"] = transcript.quality.path
            row["quality_artifact_sha256"] = transcript.quality.sha256
            if transcript.timing is not None:
                row["timing_artifact_path"] = transcript.timing.path
                row["timing_artifact_sha256"] = transcript.timing.sha256
        return row

    def _bounded(self, source: str, r_path: str) -> Any:
        saved = self.evidence.path
        self.evidence.path = r_path
        try:
            return self.evidence.bounded(source)
        finally:
            self.evidence.path = saved

    # ------------------------------------------------------------------ citations

    def _citation(self, cit: dict[str, Any], c_path: str) -> dict[str, Any]:
        channel = cit["channel"]
        source = cit["source"]
        if channel in ("transcript", "timed_transcript"):
            return self._quote(cit, c_path, timed=channel == "timed_transcript")
        if channel in ("slides", "slide_sequence"):
            bound = self._bounded(source, c_path)
            if cit["slide_numbers"][-1] > bound.bound:
                raise EvidenceRefusal(
                    "slide_number_out_of_range",
                    f"the {source} artifact has {bound.bound} slides",
                    child(c_path, "slide_numbers"),
                    hint="cite slide numbers of the inspected artifact",
                )
            return {**cit, "slide_count": bound.bound, **bound.identity.fields()}
        if channel == "video":
            bound = self._bounded("delivery_video", c_path)
            if cit["end_seconds"] > bound.bound + 1.0:
                raise EvidenceRefusal(
                    "video_interval_out_of_range",
                    f"the verified video lasts {bound.bound} seconds",
                    child(c_path, "end_seconds"),
                    hint="cite an interval inside the reviewed video",
                )
            return {**cit, "duration_seconds": bound.bound, **bound.identity.fields()}
        stamped = {**cit, "value": _metadata_value(self.talk, cit["field"])}
        stamped["owner_value_after_return"] = None  # set once the merged talk exists
        self.metadata.append(stamped)
        return stamped

    def _quote(self, cit: dict[str, Any], c_path: str, *, timed: bool) -> dict[str, Any]:
        saved = self.evidence.path
        self.evidence.path = c_path
        try:
            transcript = self.evidence.transcript
        finally:
            self.evidence.path = saved
        match, occurrences = transcript.text.find_once(cit["quote"])
        if match is None:
            code = "citation_quote_ambiguous" if occurrences > 1 else "citation_quote_not_found"
            near = near_miss(transcript.text, cit["quote"]) if occurrences == 0 else None
            message = (
                "the normalized quote occurs more than once in the transcript"
                if occurrences > 1
                else "the normalized quote does not occur in the transcript"
                + (f"; {near.describe()}" if near is not None else "")
            )
            raise EvidenceRefusal(
                code,
                f"{message} ({transcript.identity.path})",
                child(c_path, "quote"),
                hint="quote the exact source-language words, long enough to occur once",
            )
        out = {
            key: value
            for key, value in cit.items()
            if key not in ("start_seconds", "end_seconds")  # model-supplied locations
        }
        out.update(line_start=match.line_start, line_end=match.line_end)
        out.update(transcript.identity.fields())
        if timed:
            span = (
                segment_span(transcript.segments, match, transcript.text)
                if transcript.timing is not None
                else None
            )
            if span is None or transcript.timing is None:
                raise EvidenceRefusal(
                    "timed_transcript_unavailable",
                    "a timed_transcript citation needs a current timing receipt v2 whose "
                    "segments cover the quote",
                    child(c_path, "channel"),
                    hint="cite through the transcript channel, or fetch a timed transcript",
                )
            out.update(
                start_seconds=span[0],
                end_seconds=span[1],
                timing_artifact_path=transcript.timing.path,
                timing_artifact_sha256=transcript.timing.sha256,
            )
        return out

    def _sourced(self, record: dict[str, Any], r_path: str) -> dict[str, Any]:
        c_path = child(r_path, "evidence_citations")
        citations = [
            self._citation(cit, child(c_path, i))
            for i, cit in enumerate(record["evidence_citations"])
        ]
        return {**record, "evidence_citations": citations}

    # ------------------------------------------------------------------ rows

    def _not_evaluable(self, record: dict[str, Any]) -> dict[str, Any]:
        entry = self.catalog.get(record["pattern_id"])
        assert entry is not None  # validated
        reason = record["reason_code"]
        gate: Gate | None
        if reason == "missing_required_source_coverage":
            gate = entry.absence_evaluable_from
        elif reason == "missing_applicability_source_coverage":
            gate = entry.applicability_evaluable_from
        else:  # positive-only: no group can establish an absence; pending: no gate at all
            gate = None
        required = _groups(gate)
        inspected = self.inspection.inspected
        row: dict[str, Any] = {
            "available_source_groups": [g for g in required if set(g) <= inspected],
            "capability_fact": {
                "absence_capable_sources": sorted(self.inspection.capable),
                "complete_sources": sorted(self.inspection.complete),
                "inspected_sources": sorted(inspected),
            },
            "dimensions": list(entry.dimensions),
            "pattern_id": entry.id,
            "reason_code": reason,
            "required_source_groups": required,
        }
        count = self._slide_count(entry)
        if count is not None:
            row["slide_count"] = count
        return row

    def _implied_not_evaluable(self, po: dict[str, Any]) -> list[dict[str, str]]:
        """Rows a v5 worker may omit: an entry assessed applicable whose absence gate no
        complete absence-capable source satisfies is still not evaluable (validation lets the
        row be omitted because the scaffold cannot know the assessment's result)."""
        if self.version != 5:
            return []
        listed = {r["pattern_id"] for r in po["not_evaluable"]}
        detected = {r["pattern_id"] for lane, _ in LANES for r in po[lane]}
        assessments = {
            r["pattern_id"]: r["result"] for r in po.get("applicability_assessments", [])
        }
        implied = []
        for entry in sorted(self.catalog.observable(), key=lambda e: e.id):
            if entry.id in listed or entry.id in detected:
                continue
            if assessments.get(entry.id) != "applicable":
                continue
            reason = expected_reason(entry, 5, self.inspection, assessments)
            if reason is not None:
                implied.append({"pattern_id": entry.id, "reason_code": reason})
        return implied

    def _slide_count(self, entry: CatalogEntry) -> int | None:
        named = {s for alt in (entry.evaluable_from or ()) for s in alt}
        found = self.evidence.found
        if "native_deck" in named and found.deck_slides is not None:
            return found.deck_slides
        if "static_slides" in named and found.pdf_pages is not None:
            return found.pdf_pages
        return None

    # ------------------------------------------------------------------ ledger

    def build(self) -> Ledger:
        po = self.ret["pattern_observations"]
        out: dict[str, Any] = dict(po)
        i_path = child(self.path, "source_inspection")
        out["source_inspection"] = [
            self._inspection_row(record, child(i_path, i))
            for i, record in enumerate(po["source_inspection"])
        ]
        for lane in ("patterns_detected", "antipatterns_detected"):
            l_path = child(self.path, lane)
            rows = []
            for i, record in enumerate(po[lane]):
                entry = self.catalog.get(record["pattern_id"])
                assert entry is not None
                row = self._sourced(record, child(l_path, i))
                row["dimensions"] = list(entry.dimensions)
                rows.append(row)
            out[lane] = rows
        if self.version == 5:
            a_path = child(self.path, "applicability_assessments")
            out["applicability_assessments"] = [
                self._sourced(record, child(a_path, i))
                for i, record in enumerate(po["applicability_assessments"])
            ]
        rows = [*po["not_evaluable"], *self._implied_not_evaluable(po)]
        out["not_evaluable"] = sorted(
            (self._not_evaluable(r) for r in rows), key=lambda r: r["pattern_id"]
        )
        out["evidence_schema_version"] = LEDGER_VERSION[self.version]
        if self.version == 5:
            out.update(outcomes(self.catalog, out))
        return Ledger(out, self.metadata)


def _groups(gate: Gate | None) -> list[list[str]]:
    return sorted(sorted(alt) for alt in gate) if gate else []


def _metadata_value(talk: dict[str, Any], name: str) -> Any:
    if name in talk:
        return talk[name]
    structured = talk.get("structured_data")
    if isinstance(structured, dict) and name in structured:
        return structured[name]
    return None


def stamp_metadata(ledger: Ledger, merged_talk: dict[str, Any]) -> None:
    """``owner_value_after_return``: the persisted owner value once the return is applied."""
    for citation in ledger.metadata_citations:
        citation["owner_value_after_return"] = _metadata_value(merged_talk, citation["field"])


def outcomes(catalog: Catalog, ledger: dict[str, Any]) -> dict[str, Any]:
    """The exhaustive outcome matrix, its opportunity identity, id lists and the score.

    Validation guarantees the lanes are consistent (a nondetected entry without a
    not_evaluable row is one whose absence gate a complete absence-capable source
    satisfies), so every observable entry falls in exactly one outcome.
    """
    patterns = sorted(r["pattern_id"] for r in ledger["patterns_detected"])
    antipatterns = sorted(r["pattern_id"] for r in ledger["antipatterns_detected"])
    detected = set(patterns) | set(antipatterns)
    not_evaluable = sorted(r["pattern_id"] for r in ledger["not_evaluable"])
    not_applicable = {
        r["pattern_id"]
        for r in ledger.get("applicability_assessments", [])
        if r["result"] == "not_applicable"
    }
    rows = []
    for entry in sorted(catalog.observable(), key=lambda e: e.id):
        if entry.id in detected:
            outcome = "detected"
        elif entry.id in not_evaluable:
            outcome = "not_evaluable"
        elif entry.id in not_applicable:
            outcome = "not_applicable"
        else:
            outcome = "undetected"
        rows.append({"outcome": outcome, "pattern_id": entry.id})
    return {
        "antipattern_ids": antipatterns,
        "not_evaluable_ids": not_evaluable,
        "opportunity_coverage_identity": opportunity_identity(rows),
        "pattern_ids": patterns,
        "pattern_outcomes": rows,
        "pattern_score": len(patterns) - len(antipatterns),
    }


def opportunity_identity(rows: list[dict[str, str]]) -> str:
    """SHA-256 of the matrix as opportunities (detected and undetected are both evaluable)."""
    evaluable = ("detected", "undetected")
    folded = [
        [r["pattern_id"], "evaluable" if r["outcome"] in evaluable else r["outcome"]] for r in rows
    ]
    return payload_sha256({"rows": folded, "schema": OPPORTUNITY_SCHEMA})


def canonicalize(member: Member, snapshot: Snapshot, catalog: Catalog) -> Ledger | None:
    """Step 3 of persist: a processed receipted (v4, v5) return's canonical ledger.

    The receipt is re-read against the vault as it is now: validation passed on
    the same inputs, so any issue means an artifact moved under the batch
    (``artifact_changed``). Replay versions 1-3 and skipped returns carry no
    ledger (None): their observations are persisted as returned.
    """
    if member.status.startswith("skipped_") or member.version not in LEDGER_VERSION:
        return None
    issues = Collector()
    ctx = return_context(
        member.path, member.ret, version=member.version, status=member.status,
        talk=member.talk, claim=member.claim, db=snapshot.db, catalog=catalog,
        vault_root=snapshot.vault_root, issues=issues,
    )  # fmt: skip
    po = member.ret["pattern_observations"]
    inspection = check_inspection(ctx, po, f"{member.path}.pattern_observations")
    if issues.items:
        first = issues.items[0]
        raise Refusal(
            "artifact_changed",
            f"an artifact changed since validation: {first.code}: {first.message}",
            first.path,
            hint="re-validate the batch against the current vault",
        )
    evidence = VerifiedArtifacts(
        vault_root=snapshot.vault_root,
        pptx_root=snapshot.pptx_root,
        talk=member.talk,
        found=ctx.artifacts,
        pptx_record=snapshot.db.talk_deck(member.talk),
        path=member.path,
    )
    extracted_source = member.ret.get("slide_source") == "video_extracted"
    return LedgerBuilder(
        ret=member.ret,
        version=member.version,
        path=member.path,
        catalog=catalog,
        inspection=inspection,
        evidence=evidence,
        video_extracted=ctx.artifacts.pdf_is_video_extracted or extracted_source,
        talk=member.talk,
    ).build()
