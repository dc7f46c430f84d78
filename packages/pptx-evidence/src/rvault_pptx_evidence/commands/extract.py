"""``rvault-pptx extract (DECK.pptx | --directory ROOT) [options]``.

Prints the schema-v5 extraction document (or, with ``--out``, the write
report of installing it); with ``--directory`` the schema-v2 batch envelope
(``batch``). Every extraction, PDF probe and scan runs in a supervised worker
process; the inputs are only ever read.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from rvault_contracts import cli as contract_cli


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "extract",
        help="extract schema-v5 native deck evidence from one .pptx",
        description=(
            "Extract schema-v5 evidence from one .pptx in an isolated worker. "
            "Exit 0 success, 2 refused input (stable error code), 1 internal error."
        ),
    )
    parser.add_argument("deck", nargs="?", help="the .pptx file (a regular file, not a symlink)")
    parser.add_argument(
        "--directory",
        metavar="ROOT",
        help="extract every .pptx below ROOT; prints the pptx-directory-batch v2 envelope",
    )
    parser.add_argument(
        "--exclude",
        action="append",
        default=None,
        metavar="NAME",
        help="with --directory: skip directories with this exact name (case-insensitive);"
        " repeatable; replaces --exclusions-file",
    )
    parser.add_argument(
        "--exclusions-file",
        metavar="FILE",
        help="with --directory: a JSON object whose pptx_directory_exclusions array names the"
        " directories to skip (a vault's database config will do: rvault-db read DB | jq"
        " .database.config)",
    )
    parser.add_argument(
        "--rendered-pdf",
        metavar="PDF",
        help="a PDF rendered from this deck; binds rendered_page_inspection into the audit",
    )
    parser.add_argument(
        "--inspected-pages",
        metavar="RANGES",
        help="with --rendered-pdf: the pages actually inspected, PAGE|START-END[,...]",
    )
    parser.add_argument(
        "--no-ocr",
        action="store_true",
        help=(
            "do not OCR picture/background blobs; every readable"
            " asset gets an explicit skipped receipt"
        ),
    )
    parser.add_argument("--out", help="write the document here through the writer protocol")
    parser.add_argument(
        "--source-root",
        help=(
            "record pptx_path relative to this directory (default:"
            " relative to the working directory)"
        ),
    )
    parser.set_defaults(handler=handle)


def display_path(deck: Path, source_root: str | None) -> str:
    """The ``pptx_path`` recorded in the document: relative, ``/``-separated."""
    base = Path(source_root) if source_root else Path.cwd()
    absolute = Path(os.path.normpath(deck.absolute()))
    try:
        return absolute.relative_to(Path(os.path.normpath(base.absolute()))).as_posix()
    except ValueError:
        return absolute.name


def _usage(code: str, message: str) -> contract_cli.Refusal:
    return contract_cli.Refusal(code, message, None)


def handle(args: argparse.Namespace) -> int:
    if (args.deck is None) == (args.directory is None):
        raise _usage("usage_error", "give exactly one of DECK or --directory ROOT")
    if args.directory is not None:
        if args.rendered_pdf or args.inspected_pages or args.source_root or args.out:
            raise _usage(
                "usage_error",
                "--rendered-pdf, --inspected-pages, --source-root and --out apply to one DECK",
            )
        from rvault_pptx_evidence.commands.extract_directory import handle_directory

        return handle_directory(args)
    if args.exclude is not None or args.exclusions_file is not None:
        raise _usage("usage_error", "--exclude and --exclusions-file apply to --directory")
    if (args.rendered_pdf is None) != (args.inspected_pages is None):
        raise _usage("usage_error", "--rendered-pdf and --inspected-pages are given together")
    # Imported once the command line is known good, as the directory mode's are: the
    # worker, OCR and digest machinery is for an extraction, not for --help or a usage error.
    from rvault_pptx_evidence.extract_deck import ExtractRequest, extract_deck
    from rvault_pptx_evidence.ocr_channels import OCR_DISABLED, OCR_ENABLED

    request = ExtractRequest(
        deck=Path(args.deck),
        pptx_path=display_path(Path(args.deck), args.source_root),
        ocr_mode=OCR_DISABLED if args.no_ocr else OCR_ENABLED,
        out=Path(args.out) if args.out else None,
        rendered_pdf=Path(args.rendered_pdf) if args.rendered_pdf else None,
        inspected_pages=args.inspected_pages,
    )
    contract_cli.emit(extract_deck(request))
    return contract_cli.EXIT_OK
