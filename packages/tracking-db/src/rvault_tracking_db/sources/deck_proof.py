"""``record-deck --talk``: prove the binding before the plan is built.

The deck's facts come from the extraction ``record-deck`` just read, through
pptx-evidence's public api; the proof is made against the talk record as it
is now. A contradicted binding is refused here, before any plan exists (so
nothing is written and the dry run shows why); a proven or plausible one
becomes a ``set_deck_binding`` lane change after ``register_pptx``, so the
talk keeps the proof next to its ``pptx_path``. Without pptx-evidence
installed no proof can be made: the binding is recorded unproven (no
``deck_binding``), and status and preflight say so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rvault_contracts.cli import Refusal, progress

from rvault_tracking_db.identity.deck_binding import CONTRADICTED, FIELD, prove_binding
from rvault_tracking_db.identity.deck_sweep import facts_reader
from rvault_tracking_db.sources.plan import MISSING_MARKER, SET_DECK_BINDING


def binding_change(
    talk: Mapping[str, Any] | None,
    others: list[Mapping[str, Any]],
    filename: str,
    document: Mapping[str, Any],
    extraction_sha256: str,
) -> dict[str, Any] | None:
    """The ``set_deck_binding`` change for ``filename``, or None when no proof can be made."""
    reader = facts_reader()
    if talk is None or reader is None:
        if reader is None:
            progress("rvault-pptx-evidence is not installed: the deck binding stays unproven")
        return None
    proof = prove_binding(talk, reader(document), others)
    if proof.decision == CONTRADICTED:
        raise Refusal(
            "deck_binding_contradicted",
            f"the deck {document['pptx_path']!r} names another delivery than {filename}: "
            + ", ".join(proof.reasons),
            "--talk",
            proof=proof.record(document["pptx_path"], extraction_sha256),
            hint="bind the deck to the talk its title slide, footers and folders name "
            "(`rvault-db status DB` lists the talks), or correct that talk's title or date",
        )
    return {
        "kind": SET_DECK_BINDING,
        "filename": filename,
        "expect": talk.get(FIELD, MISSING_MARKER),
        "value": proof.record(document["pptx_path"], extraction_sha256),
    }
