"""``rvault-returns catalog [--full] [--catalog DIR]`` and ``catalog show ID``.

A queue claim binds its adherence baseline to one catalog fingerprint
(``rvault-db queue claim --catalog-fingerprint``); this prints the exact value
the validator will compute, together with a per-entry summary a worker or a
reviewer can read, so nobody hashes catalog files by hand. ``--full`` prints
every entry whole (name, summary, gates with their effective defaults,
``not_applicable_when`` condition ids) and ``show ID`` one entry, so a worker
never reads package files to learn a gate.
"""

from __future__ import annotations

import argparse
from typing import Any

from rvault_contracts.cli import EXIT_OK, Refusal, emit

from rvault_returns_persistence.catalog import CatalogEntry, Gate
from rvault_returns_persistence.commands.common import add_catalog_argument, open_catalog


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "catalog",
        help="validate the pattern catalog; print its fingerprint and entries (show ID: one)",
    )
    parser.add_argument("action", nargs="?", choices=["show"], help="show: print one full entry")
    parser.add_argument("entry_id", nargs="?", metavar="ID", help="the entry id for show")
    parser.add_argument(
        "--full", action="store_true", help="print every entry whole instead of a summary"
    )
    add_catalog_argument(parser)
    parser.set_defaults(handler=handle)


def _gate(gate: Gate | None) -> list[list[str]] | None:
    return None if gate is None else sorted(sorted(alt) for alt in gate)


def summary(entry: CatalogEntry) -> dict[str, Any]:
    return {
        "id": entry.id,
        "type": entry.type,
        "observable": entry.observable,
        "pending_owner_review": entry.pending_owner_review,
        "positive_only": entry.positive_only,
        "conditional": entry.conditional,
        "dimensions": list(entry.dimensions),
    }


def full(entry: CatalogEntry) -> dict[str, Any]:
    """The entry as written plus its effective gates (defaults resolved)."""
    return {
        **summary(entry),
        "entry": dict(entry.raw),
        "effective_gates": {
            "absence_evaluable_from": _gate(entry.absence_evaluable_from),
            "applicability_evaluable_from": _gate(entry.applicability_evaluable_from),
            "evaluable_from": _gate(entry.evaluable_from),
            "strong_evaluable_from": _gate(entry.strong_evaluable_from),
        },
        "condition_ids": list(entry.conditions),
        "evidence_channels": sorted(entry.evidence_channels),
        "evidence_metadata_fields": sorted(entry.metadata_fields),
        "name": entry.raw.get("name"),
        "summary": entry.raw.get("summary"),
    }


def handle(args: argparse.Namespace) -> int:
    catalog, origin = open_catalog(args)
    if args.action == "show":
        entry = catalog.get(args.entry_id)
        if entry is None:
            raise Refusal(
                "catalog_entry_unknown",
                f"{args.entry_id!r} is not an entry of the catalog",
                args.entry_id,
                hint="run `rvault-returns catalog` to list the entry ids",
            )
        emit({"ok": True, "catalog": origin, "fingerprint": catalog.fingerprint, **full(entry)})
        return EXIT_OK
    if args.entry_id is not None:
        raise Refusal(
            "usage_error",
            "an entry id is given only with `show`",
            args.entry_id,
            hint=f"run `rvault-returns catalog show {args.entry_id}`",
        )
    shape = full if args.full else summary
    entries = [shape(entry) for entry in sorted(catalog.entries.values(), key=lambda e: e.id)]
    emit(
        {
            "ok": True,
            "catalog": origin,
            "entry_count": len(entries),
            "entries": entries,
            "files": list(catalog.files),
            "fingerprint": catalog.fingerprint,
        }
    )
    return EXIT_OK
