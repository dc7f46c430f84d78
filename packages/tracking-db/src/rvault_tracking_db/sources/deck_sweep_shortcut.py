"""``deck-bindings``: re-prove every stored deck binding and record the proofs that changed.

Each talk's deck is judged again from the extraction its catalog receipt
names (:func:`~rvault_tracking_db.identity.deck_sweep.sweep`), against the
talk record as it is now: a talk renamed or re-dated since ``record-deck``
may have moved from proven to plausible, or a legacy binding may get its
first proof. Every proof that differs from the stored one becomes one
``set_deck_binding`` change (expectation-bound, dry run first). A binding
that is now contradicted is never recorded (the lane refuses it): it is
listed on stderr and ``rvault-db preflight`` blocks on it until the deck or
the talk is corrected.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rvault_contracts.cli import Refusal, progress
from rvault_contracts.strict_json import json_equal

from rvault_tracking_db.apply_protocol import Session
from rvault_tracking_db.identity.deck_binding import CONTRADICTED, FIELD
from rvault_tracking_db.identity.deck_sweep import sweep
from rvault_tracking_db.sources.plan import MISSING_MARKER, SET_DECK_BINDING


@dataclass(frozen=True)
class DeckSweepRequest:
    def build(self, session: Session) -> dict[str, Any]:
        database = session.result.database or {}
        talks = [
            (i, t) for i, t in enumerate(database.get("talks") or []) if isinstance(t, Mapping)
        ]
        by_index = dict(talks)
        changes = []
        for check in sweep(database, talks, session.vault_root):
            record = check.record()
            if record is None or check.filename is None:
                continue
            if record["decision"] == CONTRADICTED:
                progress(
                    f"deck-bindings: {check.filename}: {check.pptx_path} is contradicted "
                    f"({', '.join(record['reasons'])}); not recorded"
                )
                continue
            stored = by_index[check.talk_index].get(FIELD)
            if stored is not None and json_equal(stored, record):
                continue
            changes.append({
                "kind": SET_DECK_BINDING,
                "filename": check.filename,
                "expect": MISSING_MARKER if stored is None else stored,
                "value": record,
            })  # fmt: skip
        if not changes:
            raise Refusal(
                "bindings_current",
                "every re-provable deck binding already has its current proof",
                "$",
                hint="`rvault-db preflight VAULT` lists contradicted and unproven bindings",
            )
        return {"schema_version": 1, "mutations": changes}
