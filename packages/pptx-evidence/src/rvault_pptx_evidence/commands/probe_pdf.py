"""``rvault-pptx probe-pdf PDF``: the bounded PDF probe, in its own worker.

Prints the pptx-pdf-probe v1 record (digest, size and page count of one
stable generation) or refuses with a stable ``pdf_*`` code.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rvault_contracts import cli as contract_cli

from rvault_pptx_evidence.limits import PDF_PROBE
from rvault_pptx_evidence.source import check_path
from rvault_pptx_evidence.worker import run_operation


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "probe-pdf",
        help="probe a rendered PDF (bounded, strict, complete page walk) in a worker",
        description=(
            "Probe one PDF in a supervised worker: byte ceiling, strict parse (no repair),"
            " complete page-tree walk. Exit 0 success, 2 refused input, 1 internal error."
        ),
    )
    parser.add_argument("pdf", help="the PDF file (a regular file, not a symlink)")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    pdf = Path(args.pdf)
    check_path(pdf, "PDF")
    run = run_operation("probe_pdf", pdf, {}, limits=PDF_PROBE)
    contract_cli.emit(run.document)
    return contract_cli.EXIT_OK
