"""The handler behind ``rvault-db init`` (imported on use)."""

from __future__ import annotations

import argparse
import os
import stat
from pathlib import Path
from typing import Any

from rvault_contracts.cli import Refusal, emit, finish

from rvault_tracking_db.mutations import parse_plan, run_mutation
from rvault_tracking_db.mutations.plan import INITIALIZE

DATABASE_NAME = "tracking-database.json"


def init_config(args: argparse.Namespace) -> dict[str, Any]:
    """The config the options describe (lexically absolute paths, nothing resolved)."""
    config: dict[str, Any] = {}
    if args.shownotes_source is not None:
        source: dict[str, Any] = {
            "type": args.shownotes_type,
            "path_or_url": os.path.abspath(args.shownotes_source),  # noqa: PTH100 - lexical
        }
        if args.talks_subdir is not None:
            source["talks_subdir"] = args.talks_subdir
        config["shownotes"] = {"enabled": True, "source": source}
    if args.pptx_source is not None:
        config["pptx_source_dir"] = os.path.abspath(args.pptx_source)  # noqa: PTH100
    return config


def run_init(args: argparse.Namespace) -> int:
    root = Path(args.vault_root)
    try:
        mode = root.stat().st_mode
    except OSError:
        mode = None
    if mode is None or not stat.S_ISDIR(mode):
        raise Refusal(
            "vault_root_missing",
            f"{args.vault_root} is not an existing directory",
            "VAULT_ROOT",
            hint=f"create it first: mkdir -p {args.vault_root}",
        )
    plan = parse_plan(
        {"schema_version": 1, "mutations": [{"kind": INITIALIZE, "config": init_config(args)}]}
    )
    report = run_mutation(
        root / DATABASE_NAME, plan, apply=args.apply, expected=args.expected_sha256
    )
    emit(report)
    return finish(0)
