"""The handler behind ``rvault-db status`` (imported on use)."""

from __future__ import annotations

import argparse
import sys

from rvault_contracts.cli import emit, finish

from rvault_tracking_db.reader import read_database
from rvault_tracking_db.status import build_status, render_table


def run_status(args: argparse.Namespace) -> int:
    report = build_status(read_database(args.database))
    chosen = args.format or ("table" if sys.stdout.isatty() else "json")
    if chosen == "table":
        sys.stdout.write(render_table(report))
        sys.stdout.flush()
    else:
        emit(report)
    return finish(0)
