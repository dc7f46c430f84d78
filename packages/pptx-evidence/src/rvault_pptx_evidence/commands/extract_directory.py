"""``rvault-pptx extract --directory ROOT [--exclude NAME ...] [--exclusions-file FILE]``.

Thin: validates the exclusion list (one path component each), given by the
caller as ``--exclude`` names or in ``--exclusions-file``, runs
``batch.run_batch`` and prints the envelope. A whole-root or protocol failure
prints the failure envelope and exits 2.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rvault_contracts import cli as contract_cli
from rvault_contracts.bounded_read import read_bounded
from rvault_contracts.strict_json import StrictJSONError, loads_strict

from rvault_pptx_evidence.batch import EXCLUSION_INVALID, BatchFailure, BatchRequest, run_batch
from rvault_pptx_evidence.batch_contract import valid_component
from rvault_pptx_evidence.ocr_channels import OCR_DISABLED, OCR_ENABLED

#: An exclusions file is a short list of names; anything larger is not one.
MAX_EXCLUSIONS_FILE_BYTES = 1 << 20
#: The member of the exclusions file (the database config's name for the list).
EXCLUSIONS_KEY = "pptx_directory_exclusions"


def _file_exclusions(path: str) -> list[str]:
    """``pptx_directory_exclusions`` of ``--exclusions-file``: a strict-JSON object.

    The caller decides the exclusions. For a vault that is its database
    config, so the file may be that config object itself (``rvault-db read
    DB | jq .database.config``; other members are ignored): this owner reads
    no other owner's artifact and depends on no other owner.
    """
    source = read_bounded(Path(path), MAX_EXCLUSIONS_FILE_BYTES, label="exclusions file")
    try:
        document = loads_strict(source.data)
    except StrictJSONError as exc:
        raise contract_cli.Refusal(
            EXCLUSION_INVALID, f"the exclusions file is not strict JSON: {exc.message}", path
        ) from None
    names = document.get(EXCLUSIONS_KEY)
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise contract_cli.Refusal(
            EXCLUSION_INVALID,
            f"the exclusions file has no {EXCLUSIONS_KEY} array of names",
            path,
        )
    return names


def exclusions_for(args: argparse.Namespace) -> list[str]:
    if args.exclude is not None:
        exclusions = list(args.exclude)
    elif args.exclusions_file is not None:
        exclusions = _file_exclusions(args.exclusions_file)
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
