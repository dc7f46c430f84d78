"""``classify_pptx_visual_evidence``: does a catalogued deck need (re)extraction?

tracking-db's ``record_pptx`` and preflight hold a ``pptx_catalog`` record
and observe the live state (the deck's current fingerprint, the artifact
file's current digest and its reading through this package's reader); this
decides from both, so no consumer re-derives the rules. Classes:

* ``legacy_unbound``: a v1 record; its ``visual_extracted`` names no
  extractor generation. Regenerate.
* ``never_extracted``: ``visual_evidence`` is null. Regenerate.
* ``receipt_malformed``: the receipt's shape is wrong; never trusted. Regenerate.
* ``source_missing``: the deck is gone; nothing can be extracted. No regeneration.
* ``source_changed``: the deck's bytes differ from the receipt's fingerprint. Regenerate.
* ``extractor_outdated``: another extractor schema or pipeline. Regenerate.
* ``failed_current``: the current extractor already failed on these exact
  bytes; rerunning gives the same refusal. No regeneration until the deck changes.
* ``artifact_missing`` / ``artifact_changed`` / ``artifact_unusable``: the
  produced artifact is gone, has other bytes than recorded, or does not read
  as current evidence of this deck. Regenerate.
* ``current``: nothing to do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from rvault_pptx_evidence.versions import PIPELINE_VERSION, SCHEMA_VERSION

_SHA256 = re.compile(r"[0-9a-f]{64}")
REGENERATE = frozenset(
    {
        "legacy_unbound",
        "never_extracted",
        "receipt_malformed",
        "source_changed",
        "extractor_outdated",
        "artifact_missing",
        "artifact_changed",
        "artifact_unusable",
    }
)


@dataclass(frozen=True)
class LiveObservation:
    """What the caller saw just now.

    ``source_fingerprint``: ``{"algorithm": "sha256", "digest", "size_bytes"}``
    of the deck's current bytes, or None when the deck is missing.
    ``artifact_sha256``: SHA-256 of the artifact file's current bytes, or None
    when it is missing. ``artifact_reading``: the :class:`ExtractionReading`
    of those bytes (``api.read_extraction``), or None.
    """

    source_fingerprint: dict[str, Any] | None
    artifact_sha256: str | None = None
    artifact_reading: Any | None = None


@dataclass(frozen=True)
class VisualEvidenceClass:
    klass: str
    regenerate: bool
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"class": self.klass, "regenerate": self.regenerate, "reason": self.reason}


def _decision(klass: str, reason: str) -> VisualEvidenceClass:
    return VisualEvidenceClass(klass, klass in REGENERATE, reason)


def _fingerprint_ok(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and set(value) == {"algorithm", "digest", "size_bytes"}
        and value["algorithm"] == "sha256"
        and isinstance(value["digest"], str)
        and _SHA256.fullmatch(value["digest"]) is not None
        and isinstance(value["size_bytes"], int)
        and not isinstance(value["size_bytes"], bool)
        and value["size_bytes"] >= 0
    )


def receipt_problems(receipt: Any) -> list[str]:
    """Shape of a ``visual_evidence`` receipt (pptx_catalog v2); empty when well-formed."""
    if not isinstance(receipt, dict):
        return ["visual_evidence is not an object"]
    expected = {
        "outcome",
        "extractor_schema_version",
        "pipeline_version",
        "source_fingerprint",
        "artifact",
    }
    problems = []
    if set(receipt) != expected:
        problems.append(f"visual_evidence keys must be exactly {sorted(expected)}")
        return problems
    version = receipt["extractor_schema_version"]
    if receipt["outcome"] not in ("succeeded", "failed"):
        problems.append("outcome is not succeeded or failed")
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        problems.append("extractor_schema_version is not a non-negative integer")
    if not isinstance(receipt["pipeline_version"], str) or not receipt["pipeline_version"].strip():
        problems.append("pipeline_version is not a non-empty string")
    if not _fingerprint_ok(receipt["source_fingerprint"]):
        problems.append("source_fingerprint is not a sha256 fingerprint")
    artifact = receipt["artifact"]
    if receipt["outcome"] == "failed" and artifact is not None:
        problems.append("a failed receipt names an artifact")
    if receipt["outcome"] == "succeeded" and not (
        isinstance(artifact, dict)
        and set(artifact) == {"path", "sha256"}
        and isinstance(artifact["path"], str)
        and artifact["path"]
        and isinstance(artifact["sha256"], str)
        and _SHA256.fullmatch(artifact["sha256"]) is not None
    ):
        problems.append("a succeeded receipt must name artifact {path, sha256}")
    return problems


def classify_pptx_visual_evidence(
    record: dict[str, Any], observed: LiveObservation
) -> VisualEvidenceClass:
    """Decide from a ``pptx_catalog`` record (v1 or v2) plus live observations."""
    if record.get("schema_version", 1) == 1 and "visual_evidence" not in record:
        return _decision("legacy_unbound", "a v1 record names no extractor generation")
    receipt = record.get("visual_evidence")
    if receipt is None:
        return _decision("never_extracted", "no extraction has been attempted")
    problems = receipt_problems(receipt)
    if problems:
        return _decision("receipt_malformed", problems[0])
    if observed.source_fingerprint is None:
        return _decision("source_missing", "the deck no longer exists at pptx_path")
    if observed.source_fingerprint != receipt["source_fingerprint"]:
        return _decision("source_changed", "the deck's bytes differ from the receipt")
    if (receipt["extractor_schema_version"], receipt["pipeline_version"]) != (
        SCHEMA_VERSION,
        PIPELINE_VERSION,
    ):
        return _decision(
            "extractor_outdated",
            f"extracted by schema v{receipt['extractor_schema_version']} /"
            f" pipeline {receipt['pipeline_version']}; current is v{SCHEMA_VERSION} /"
            f" {PIPELINE_VERSION}",
        )
    if receipt["outcome"] == "failed":
        return _decision("failed_current", "the current extractor refused these exact bytes")
    if observed.artifact_sha256 is None:
        return _decision("artifact_missing", "the recorded artifact does not exist")
    if observed.artifact_sha256 != receipt["artifact"]["sha256"]:
        return _decision("artifact_changed", "the artifact's bytes differ from the receipt")
    reading = observed.artifact_reading
    document = getattr(reading, "document", None)
    if (
        reading is None
        or getattr(reading, "status", None) != "current"
        or not isinstance(document, dict)
        or document.get("input_fingerprint") != receipt["source_fingerprint"]
    ):
        return _decision(
            "artifact_unusable", "the artifact does not read as current evidence of this deck"
        )
    return _decision("current", "the receipt, deck and artifact agree")


def visual_evidence_receipt(
    document: dict[str, Any], artifact_path: str, artifact_sha256: str
) -> dict[str, Any]:
    """The ``pptx_catalog`` v2 ``visual_evidence`` receipt for a written extraction."""
    return {
        "outcome": "succeeded",
        "extractor_schema_version": document["schema_version"],
        "pipeline_version": document["pipeline_version"],
        "source_fingerprint": dict(document["input_fingerprint"]),
        "artifact": {"path": artifact_path, "sha256": artifact_sha256},
    }


def failed_receipt(source_fingerprint: dict[str, Any]) -> dict[str, Any]:
    """The receipt for a deck the current extractor refused."""
    return {
        "outcome": "failed",
        "extractor_schema_version": SCHEMA_VERSION,
        "pipeline_version": PIPELINE_VERSION,
        "source_fingerprint": dict(source_fingerprint),
        "artifact": None,
    }
