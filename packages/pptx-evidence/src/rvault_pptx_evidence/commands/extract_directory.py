"""``rvault-pptx extract --directory ROOT [--exclude NAME ...] [--db DB]``.

Thin: validates the exclusion list (one path component each), takes the
default from the database config through tracking-db's owner read, runs
``batch.run_batch`` and prints the envelope. A whole-root or protocol failure
prints the failure envelope and exits 2.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rvault_contracts import cli as contract_cli

from rvault_pptx_evidence.batch import EXCLUSION_INVALID, BatchFailure, BatchRequest, run_batch
from rvault_pptx_evidence.batch_contract import valid_component
from rvault_pptx_evidence.ocr_channels import OCR_DISABLED, OCR_ENABLED


def _database_exclusions(db: str) -> list[str]:
    from rvault_tracking_db.api import read_database

    result = read_database(db)
    config = (result.database or {}).get("config") or {}
    exclusions = config.get("pptx_directory_exclusions")
    if not isinstance(exclusions, list):
        raise contract_cli.Refusal(
            EXCLUSION_INVALID,
            "the database config has no pptx_directory_exclusions list (config v2);"
            " run rvault-db migrate, or pass --exclude",
            db,
        )
    return exclusions


def exclusions_for(args: argparse.Namespace) -> list[str]:
    if args.exclude is not None:
        exclusions = list(args.exclude)
    elif args.db is not None:
        exclusions = _database_exclusions(args.db)
    else:
        exclusions = []
    for name in exclusions:
        if not valid_component(name):
            raise contract_cli.Refusal(
                EXCLUSION_INVALID,
                f"exclusion {name!r} must be one directory name (no '/', '\\\\', '.', '..')",
                None,
            )
    return exclusions


def handle_directory(args: argparse.Namespace) -> int:
    request = BatchRequest(
        root=Path(args.directory),
        exclusions=exclusions_for(args),
        ocr_mode=OCR_DISABLED if args.no_ocr else OCR_ENABLED,
    )
    try:
        envelope = run_batch(request, contract_cli.progress)
    except BatchFailure as failure:
        body = dict(failure.envelope)
        error = body.pop("error")
        body.pop("ok")
        raise contract_cli.Refusal(error["code"], error["message"], error["path"], **body) from None
    contract_cli.progress(
        f"rvault-pptx: {len(envelope['results'])} decks extracted,"
        f" {len(envelope['skipped'])} skipped; complete={str(envelope['complete']).lower()}"
    )
    contract_cli.emit(envelope)
    return contract_cli.EXIT_OK
