"""Command line of ``rvault-returns``.

Each subcommand lives in its own module and registers itself here; stdout is
one JSON document, progress goes to stderr (see ``rvault_contracts.cli``).
"""

from __future__ import annotations

import argparse

from rvault_contracts import cli as contract_cli
from rvault_contracts.hints import LazyHints

from rvault_returns_persistence.__about__ import __version__

# Read when a refusal first needs a hint; --version and --help never import the codes.
HINTS = LazyHints("rvault_returns_persistence.codes")

PROG = "rvault-returns"


# Each subcommand's module is imported only when that subcommand runs (or its
# --help is shown): --version and --help import none of them. The one-line
# helps are the ones each module registers (a mismatch fails on first use).
COMMANDS = [
    contract_cli.LazyCommand(
        "rvault_returns_persistence.commands.validate",
        {
            "validate": "validate a batch of worker returns (the deterministic gate)",
        },
    ),
    contract_cli.LazyCommand(
        "rvault_returns_persistence.commands.scaffold",
        {
            "scaffold": "print a return v5 skeleton for a talk's active claim",
        },
    ),
    contract_cli.LazyCommand(
        "rvault_returns_persistence.commands.catalog",
        {
            "catalog": (
                "validate the pattern catalog; print its fingerprint and entries (show ID: one)"
            ),
        },
    ),
    contract_cli.LazyCommand(
        "rvault_returns_persistence.commands.feedback",
        {
            "feedback": (
                "aggregate the catalog feedback of current and historical returns (read-only)"
            ),
        },
    ),
    contract_cli.LazyCommand(
        "rvault_returns_persistence.commands.persist",
        {
            "persist": (
                "persist a whole validated batch into the tracking database (dry run; --apply)"
            ),
        },
    ),
]


def build_parser() -> argparse.ArgumentParser:
    return contract_cli.build_parser(
        PROG,
        (
            "The deterministic gate for AI worker returns: "
            "pattern catalog, return scaffolds, validation (read-only) and persist (the one "
            "command that writes: a whole batch into the tracking database)."
        ),
        __version__,
        COMMANDS,
    )


def main(argv: list[str] | None = None) -> int:
    return contract_cli.console_main(build_parser, argv, HINTS)
