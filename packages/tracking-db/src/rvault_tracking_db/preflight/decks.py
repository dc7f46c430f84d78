"""Deck bindings in the preflight: the sweep's verdicts as findings.

A binding the deck contradicts is blocking (its slides would be another
talk's evidence), as is a catalog receipt naming another talk than the one
that uses the deck. A binding that is only plausible, or cannot be re-proven
and carries no stored proof, is a warning: unproven, not wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from rvault_contracts.strict_json import json_path

from rvault_tracking_db.capabilities import SourceRoots
from rvault_tracking_db.identity.deck_binding import CONTRADICTED, PROVEN, as_other
from rvault_tracking_db.identity.deck_sweep import (
    BindingCheck,
    binding_check,
    catalog_entries,
    facts_reader,
    others_finder,
    sweep,
)
from rvault_tracking_db.preflight.findings import Findings, TalkRef

CONTRADICTED_CODE = "deck_binding_contradicted"
UNPROVEN_CODE = "deck_binding_unproven"
DISAGREES_CODE = "deck_binding_disagrees"


def check_decks(
    database: Mapping[str, Any],
    talks: Sequence[tuple[TalkRef, Mapping[str, Any]]],
    roots: SourceRoots,
    findings: Findings,
    *,
    recheck: bool = True,
) -> None:
    refs = {ref.index: ref for ref, _ in talks}
    indexed = [(ref.index, talk) for ref, talk in talks]
    checks = sweep(database, indexed, Path(roots.vault_root), recheck=recheck)
    for check in checks:
        finding_for(check, refs[check.talk_index], findings)


class StoredBindings:
    """``check_decks(..., recheck=False)`` one talk at a time: the light view of a stream.

    Judges each binding by the proof stored on the talk (no extraction is
    read, so no other talk is consulted) through the sweep's own per-talk check.
    """

    def __init__(self, database: Mapping[str, Any], roots: SourceRoots) -> None:
        self._entry_of = catalog_entries(database).get
        self._vault_root = Path(roots.vault_root)
        self._findings = Findings()

    def add(self, ref: TalkRef, talk: Mapping[str, Any]) -> None:
        check = binding_check(ref.index, talk, self._entry_of, _no_others, self._vault_root, None)
        if check is not None:
            finding_for(check, ref, self._findings)

    def report(self, findings: Findings) -> None:
        """The bindings' findings, in talk order (``check_decks``'s)."""
        findings.items.extend(self._findings.items)


def _no_others(_title: object) -> list[Mapping[str, Any]]:
    """Never asked: a binding judged by its stored proof compares with no other talk."""
    return []


class _OthersNeeded(Exception):
    """A proof asked for the vault's other talks before all of them were read."""


def _not_yet(_title: object) -> list[Mapping[str, Any]]:
    raise _OthersNeeded


class Rechecks:
    """``check_decks(..., recheck=True)`` one talk at a time: the full view of a stream.

    Each binding is re-proven as its talk comes, through the sweep's own
    per-talk check. Only a proof that compares the deck's title slide with
    the vault's other talks (the check asks for ``others``: its talk's own
    title does not agree) waits for the last talk; that talk is kept until
    then and checked again with the sweep's ``others``. Of every other talk
    only what a proof reads of it is kept (``deck_binding.as_other``).
    """

    def __init__(self, database: Mapping[str, Any], roots: SourceRoots) -> None:
        self._entry_of = catalog_entries(database).get
        self._vault_root = Path(roots.vault_root)
        self._reader = facts_reader()
        self._others: list[tuple[int, Mapping[str, Any]]] = []
        # each talk with a deck, in order: its check, or the talk when it waits for the others
        self._checks: list[tuple[TalkRef, BindingCheck | Mapping[str, Any]]] = []

    def add(self, ref: TalkRef, talk: Mapping[str, Any]) -> None:
        if self._reader is not None:
            self._others.append((ref.index, as_other(talk)))
        try:
            check = self._check(ref, talk, _not_yet)
        except _OthersNeeded:
            self._checks.append((ref, talk))
            return
        if check is not None:
            self._checks.append((ref, check))

    def report(self, findings: Findings) -> None:
        """The bindings' findings, in talk order (``check_decks``'s)."""
        others = others_finder(self._others)
        for ref, kept in self._checks:
            check = (
                kept
                if isinstance(kept, BindingCheck)
                else self._check(ref, kept, others(ref.index))
            )
            assert check is not None  # a talk kept had a deck
            finding_for(check, ref, findings)

    def _check(
        self,
        ref: TalkRef,
        talk: Mapping[str, Any],
        others: Callable[[object], list[Mapping[str, Any]]],
    ) -> BindingCheck | None:
        return binding_check(
            ref.index, talk, self._entry_of, others, self._vault_root, self._reader
        )


def decision_of(check: BindingCheck) -> tuple[str | None, Any]:
    """The binding's decision now (re-proven, else stored for this deck) and its reasons."""
    if check.proof is not None:
        return check.proof.decision, list(check.proof.reasons)
    stored = check.stored
    if stored is not None and stored.get("pptx_path") == check.pptx_path:
        return stored.get("decision"), stored.get("reasons")
    return None, [check.unavailable]


def finding_for(check: BindingCheck, ref: TalkRef, findings: Findings) -> None:
    if check.catalog_talk is not None and check.catalog_talk != check.filename:
        assert check.catalog_index is not None
        findings.block(
            DISAGREES_CODE,
            json_path("$", "pptx_catalog", check.catalog_index, "talk_filename"),
            "the deck's catalog receipt binds it to another talk than the one that uses it",
            ref,
            expected=check.filename,
            actual=check.catalog_talk,
        )
    decision, reasons = decision_of(check)
    if decision == PROVEN:
        return
    path = ref.path("pptx_path")
    if decision == CONTRADICTED:
        findings.block(
            CONTRADICTED_CODE,
            path,
            "the deck's own title slide, footers or folders name another delivery",
            ref,
            expected="a deck whose facts agree with the talk",
            actual={"pptx_path": check.pptx_path, "reasons": reasons},
        )
    else:
        findings.warn(
            UNPROVEN_CODE,
            path,
            "nothing on the deck proves it is this talk's deck",
            ref,
            expected=PROVEN,
            actual={"decision": decision, "pptx_path": check.pptx_path, "reasons": reasons},
        )
