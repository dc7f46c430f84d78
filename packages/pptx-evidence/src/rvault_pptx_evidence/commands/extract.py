"""``rvault-pptx extract (DECK.pptx | --directory ROOT) [options]``.

Prints the schema-v5 extraction document (or, with ``--out``, the write
report of installing it); with ``--directory`` the schema-v2 batch envelope
(``batch``). Every extraction, PDF probe and scan runs in a supervised worker
process; the inputs are only ever read.
"""

from __future__ import annotations

import argparse
import os
import stat
from pathlib import Path
from typing import Any

from rvault_contracts import cli as contract_cli
from rvault_contracts.canonical import artifact_bytes

from rvault_pptx_evidence.audit import parse_page_ranges
from rvault_pptx_evidence.ocr_channels import OCR_DISABLED, OCR_ENABLED
from rvault_pptx_evidence.source import check_path
from rvault_pptx_evidence.worker import run_isolated

OUTPUT_IS_INPUT = "output_is_input"
OUTPUT_DIRECTORY_MISSING = "output_directory_missing"


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


def _precheck(deck: Path) -> None:
    """Cheap refusals before a worker is started: the same single ``lstat`` check
    the worker's reader makes (which then re-checks with ``O_NOFOLLOW``), so an
    unreadable path is ``input_unreadable``, never an internal error."""
    check_path(deck)


def _same_file(deck: Path, out: Path) -> bool:
    if deck.absolute() == out.absolute():
        return True
    try:
        return out.exists() and deck.samefile(out)
    except OSError:
        return False


def _is_directory(path: Path) -> bool:
    """``Path.is_dir`` raises on a directory the process may not search; that is
    a missing output directory for us, not an internal error."""
    try:
        return stat.S_ISDIR(path.stat().st_mode)
    except OSError:
        return False


def _report_ocr(document: dict[str, Any]) -> None:
    """One stderr line: how many assets were OCRed, or why none was."""
    channels = [
        c
        for slide in document["per_slide_visual"]
        for c in slide["text_channels"]
        if c["channel"] in ("picture_ocr", "background_image_ocr")
    ]
    receipts = [r for c in channels for r in c["ocr_receipts"]]
    if any(c["reason"] == "ocr_engine_unavailable" for c in channels):
        contract_cli.progress(
            "rvault-pptx: tesseract is not installed (apt-get install tesseract-ocr);"
            " OCR receipts say ocr_engine_unavailable"
        )
    elif any(r["attempted"] for r in receipts):
        trusted = sum(1 for r in receipts if r["trustworthy_text"])
        contract_cli.progress(
            f"rvault-pptx: OCR receipts {len(receipts)}, trustworthy {trusted},"
            f" failed {sum(1 for r in receipts if r['result_status'] == 'failed')}"
        )


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
    if args.inspected_pages is not None:
        parse_page_ranges(args.inspected_pages)  # refused before any worker runs
    deck = Path(args.deck)
    _precheck(deck)
    if args.rendered_pdf is not None:
        check_path(Path(args.rendered_pdf), "PDF")
    out = Path(args.out) if args.out else None
    if out is not None and _same_file(deck, out):
        raise contract_cli.Refusal(
            OUTPUT_IS_INPUT, "--out names the source deck; the deck is never rewritten", str(out)
        )
    if out is not None and not _is_directory(out.parent):
        # Refused before the worker runs: a long extraction would otherwise end in io_error.
        raise contract_cli.Refusal(
            OUTPUT_DIRECTORY_MISSING,
            "--out must name a file in an existing directory",
            str(out.parent),
        )
    ocr_mode = OCR_DISABLED if args.no_ocr else OCR_ENABLED
    run = run_isolated(
        deck,
        display_path(deck, args.source_root),
        ocr_mode=ocr_mode,
        rendered_pdf=Path(args.rendered_pdf) if args.rendered_pdf else None,
        inspected_pages=args.inspected_pages,
    )
    contract_cli.progress(
        f"rvault-pptx: {run.document['slide_count']} slides;"
        f" worker peak_rss_kib={run.worker_peak_rss_kib} "
        f"supervisor peak_rss_kib={run.supervisor_peak_rss_kib}"
    )
    _report_ocr(run.document)
    if out is None:
        contract_cli.emit(run.document)
        return contract_cli.EXIT_OK
    # Imported here: only --out needs the writer, and the 1-slide path is latency-bound.
    from rvault_contracts.writer import install, read_snapshot, writer_lock

    with writer_lock(out) as lock:
        snapshot = read_snapshot(out)
        report = install(out, artifact_bytes(run.document), expected=snapshot, lock=lock)
    contract_cli.emit(
        {
            "ok": True,
            "out": str(out),
            "schema_version": run.document["schema_version"],
            "pipeline_version": run.document["pipeline_version"],
            "input_fingerprint": run.document["input_fingerprint"],
            "slide_count": run.document["slide_count"],
            "write_report": report.to_dict(),
        }
    )
    return contract_cli.EXIT_OK
