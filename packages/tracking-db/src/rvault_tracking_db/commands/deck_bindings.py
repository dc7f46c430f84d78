"""``rvault-db deck-bindings DB [--apply --expected-sha256 HEX]``: the deck-binding sweep.

Re-proves every stored deck binding from its catalog receipt's extraction
and records each proof that changed through ``set_deck_binding`` (dry run by
default); prints ``db-source-report`` v1. Contradicted bindings are listed on
stderr, never recorded.
"""

from __future__ import annotations

import argparse
from typing import Any

from rvault_tracking_db import apply_protocol


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "deck-bindings",
        help="re-prove every deck binding and record the proofs that changed (dry run)",
        description=(
            "Re-reads each deck's extraction named by its pptx_catalog receipt, proves the "
            "binding against the talk as it is now and records each changed proof "
            "(set_deck_binding). A contradicted binding is never recorded."
        ),
    )
    parser.add_argument("database", help="path of tracking-database.json")
    apply_protocol.add_arguments(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from rvault_contracts.cli import emit, finish

    from rvault_tracking_db.apply_protocol import ApplyRequest
    from rvault_tracking_db.sources.deck_sweep_shortcut import DeckSweepRequest
    from rvault_tracking_db.sources.run import run_sources

    request = ApplyRequest.from_args(args)
    emit(run_sources(args.database, DeckSweepRequest().build, request, command="deck-bindings"))
    return finish(0)
