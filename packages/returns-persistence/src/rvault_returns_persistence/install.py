"""Step 5 of persist: the merged talks installed as one candidate, bound to the snapshot.

The owner (tracking-db) builds the candidate bytes: its assessment of the
whole database, the untouched talks spliced byte for byte. The session of
``api.apply_protocol`` installs them through the writer protocol bound to the
snapshot persist read, or, in a dry run, installs nothing; either way the
outcome names the input and output digests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rvault_contracts.writer import FaultHook
from rvault_tracking_db import api as tracking

from rvault_returns_persistence.database import Snapshot
from rvault_returns_persistence.merge import Merged

DRY_RUN_STATE = "dry_run"


@dataclass(frozen=True)
class Installed:
    candidate: dict[str, Any]  # the post-batch database (installed or not)
    dry_run: bool  # nothing was installed
    outcome: dict[str, Any]  # the session's mode, digests, durability and warnings


def install(
    current: Any, snapshot: Snapshot, merged: list[Merged], fault: FaultHook | None
) -> Installed:
    """Install the candidate in ``current`` (the apply session); a dry run installs nothing."""
    replacements = {m.member.index: m.talk for m in merged}
    candidate, data = tracking.persist_write.candidate_bytes(snapshot.read, replacements)
    write = current.install(data, fault=fault)  # None for a dry run
    outcome = current.outcome(data, write, dry_run_state=DRY_RUN_STATE)
    return Installed(candidate, write is None, outcome)
