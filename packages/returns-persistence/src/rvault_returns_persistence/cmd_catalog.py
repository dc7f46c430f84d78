"""``rvault-returns catalog [--catalog DIR]``: the active catalog and its fingerprint.

A queue claim binds its adherence baseline to one catalog fingerprint
(``rvault-db queue claim --catalog-fingerprint``); this prints the exact value
the validator will compute, together with a per-entry summary a worker or a
reviewer can read, so nobody hashes catalog files by hand.
"""

from __future__ import annotations

import argparse

from rvault_contracts.cli import EXIT_OK, emit

from rvault_returns_persistence.cmd_common import add_catalog_argument, open_catalog


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "catalog", help="validate the pattern catalog and print its fingerprint and entries"
    )
    add_catalog_argument(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    catalog, origin = open_catalog(args)
    entries = [
        {
            "id": entry.id,
            "type": entry.type,
            "observable": entry.observable,
            "pending_owner_review": entry.pending_owner_review,
            "positive_only": entry.positive_only,
            "conditional": entry.conditional,
            "dimensions": list(entry.dimensions),
        }
        for entry in sorted(catalog.entries.values(), key=lambda e: e.id)
    ]
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
