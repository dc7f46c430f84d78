"""Command line of ``rvault-db``.

Each subcommand lives in its own module and registers itself here; stdout is
one JSON document, progress goes to stderr (see ``rvault_contracts.cli``).
"""

from __future__ import annotations

import argparse

from rvault_contracts import cli as contract_cli
from rvault_contracts.hints import LazyHints

from rvault_tracking_db.__about__ import __version__
from rvault_tracking_db.collector import collector_paused

# Read when a refusal first needs a hint; --version and --help never import the codes.
HINTS = LazyHints("rvault_tracking_db.codes")

PROG = "rvault-db"


# Each subcommand's module is imported only when that subcommand runs (or its
# --help is shown): --version and --help import none of them. The one-line
# helps are the ones each module registers (a mismatch fails on first use).
COMMANDS = [
    contract_cli.LazyCommand(
        "rvault_tracking_db.commands.init",
        {
            "init": "create VAULT_ROOT/tracking-database.json (dry-run by default)",
        },
    ),
    contract_cli.LazyCommand(
        "rvault_tracking_db.commands.read",
        {
            "read": "strictly read and assess the tracking database",
        },
    ),
    contract_cli.LazyCommand(
        "rvault_tracking_db.commands.status",
        {
            "status": (
                "one row per talk: status, sources, deck, video, claim, score and the next action"
            ),
        },
    ),
    contract_cli.LazyCommand(
        "rvault_tracking_db.commands.mutate",
        {
            "mutate": "apply a typed, hash-bound mutation plan (dry-run by default)",
        },
    ),
    contract_cli.LazyCommand(
        "rvault_tracking_db.commands.migrate",
        {
            "migrate": "owner preservation migration to database schema 1 / config schema 2",
        },
    ),
    contract_cli.LazyCommand(
        "rvault_tracking_db.commands.queue",
        {
            "queue": (
                "queue claims: inspect, normalize source capabilities, claim a batch, "
                "recover a batch"
            ),
        },
    ),
    contract_cli.LazyCommand(
        "rvault_tracking_db.commands.scan_shownotes",
        {
            "scan-shownotes": "scan the speaker's shownotes site and add/fill talks (report v3)",
        },
    ),
    contract_cli.LazyCommand(
        "rvault_tracking_db.commands.sources",
        {
            "sources": (
                "register where talks' evidence comes from (source-lane plan, dry-run by default)"
            ),
            "register-transcript": (
                "register a talk's vault-relative transcript (e.g. a non-YouTube talk)"
            ),
            "register-slides": (
                "record a promoted slides/ID.pdf (rvault-video promote) as slides_local_path"
            ),
            "attach-media": (
                "record a talk's own recording inside the vault (SHA-256, size, probed duration)"
            ),
            "record-deck": (
                "record a deck's pptx_catalog receipt from its pptx-extraction v4 document"
            ),
            "add-talk": "add a talk that is not on the shownotes site (with its sources)",
        },
    ),
    contract_cli.LazyCommand(
        "rvault_tracking_db.commands.goals",
        {
            "goals": "improvement goals: list, set, revise, retire, verify (dry run by default)",
        },
    ),
    contract_cli.LazyCommand(
        "rvault_tracking_db.commands.preflight",
        {
            "preflight": (
                "offline integrity gate: source identities, duplicates, artifacts, deck bindings"
            ),
        },
    ),
    contract_cli.LazyCommand(
        "rvault_tracking_db.commands.capture_identity",
        {
            "capture-identity": (
                "ask yt-dlp for each active video's provider facts; write a capture file"
            ),
        },
    ),
    contract_cli.LazyCommand(
        "rvault_tracking_db.commands.deck_bindings",
        {
            "deck-bindings": (
                "re-prove every deck binding and record the proofs that changed (dry run)"
            ),
        },
    ),
    contract_cli.LazyCommand(
        "rvault_tracking_db.commands.set_identity",
        {
            "set-identity": (
                "store a reviewed capture entry as a talk's source_identity (dry run by default)"
            ),
        },
    ),
]


def build_parser() -> argparse.ArgumentParser:
    return contract_cli.build_parser(
        PROG,
        (
            "Owner of tracking-database.json: init, strict read, status, typed mutations, "
            "source lanes, migration, queue claims and shownotes scans. Every writing command "
            "is a dry run unless --apply --expected-sha256 HEX names the bytes it reviewed."
        ),
        __version__,
        COMMANDS,
    )


def main(argv: list[str] | None = None) -> int:
    """Run one command with the cyclic collector paused.

    Every command is short and holds the whole database as one large acyclic
    tree; left running, the collector would traverse that tree again and again
    (a third of a 10,000-talk read). Reference counting frees it as usual.
    A command that completes ends the process at once (``cli.finish``).
    """
    with collector_paused():
        return contract_cli.console_main(build_parser, argv, HINTS)
