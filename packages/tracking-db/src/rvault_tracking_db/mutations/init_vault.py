"""``rvault-db init``: a new vault's tracking database through ``mutate``'s transaction.

The ``initialize_database`` plan built from the request's config runs
through :func:`~rvault_tracking_db.mutations.run_mutation`, so the bytes are
exactly those of the plan route (dry run unless ``apply``; ``--apply
--expected-sha256 missing`` creates the file).
"""

from __future__ import annotations

import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.cli import Refusal

from rvault_tracking_db.mutations.plan import INITIALIZE, parse_plan
from rvault_tracking_db.mutations.transaction import run_mutation

DATABASE_NAME = "tracking-database.json"


@dataclass(frozen=True)
class InitRequest:
    vault_root: str
    """The vault directory as typed (relative to the working directory); it must exist."""
    config: dict[str, Any]
    apply: bool = False
    expected_sha256: str | None = None


def init_vault(request: InitRequest) -> dict[str, Any]:
    """The mutation report of creating ``VAULT_ROOT/tracking-database.json``."""
    root = Path(request.vault_root)
    try:
        mode = root.stat().st_mode
    except OSError:
        mode = None
    if mode is None or not stat.S_ISDIR(mode):
        raise Refusal(
            "vault_root_missing",
            f"{request.vault_root} is not an existing directory",
            "VAULT_ROOT",
            hint=f"create it first: mkdir -p {request.vault_root}",
        )
    plan = parse_plan(
        {"schema_version": 1, "mutations": [{"kind": INITIALIZE, "config": request.config}]}
    )
    return run_mutation(
        root / DATABASE_NAME, plan, apply=request.apply, expected=request.expected_sha256
    )
