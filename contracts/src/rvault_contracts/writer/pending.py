"""Whether a bundle awaits its journal's recovery: the one writer question a reader asks.

Readers (``rvault-db status``, the transcript and video owners' readers)
only need to know whether an interrupted bundle left its journal beside a
lock target; that is one ``lstat``. It lives apart from the transaction
machinery (:mod:`.bundle`, :mod:`.journal`, staging, locks) so a read-only
command does not import the write path to ask it.
"""

from __future__ import annotations

import os
from pathlib import Path


def _journal_name(lock_target: Path) -> str:
    """The intent journal's name beside ``lock_target`` (``.<name>.bundle-journal``)."""
    return f".{lock_target.name}.bundle-journal"


def pending_bundle(lock_target: str | os.PathLike[str]) -> Path | None:
    """The journal of an interrupted bundle transaction locked on ``lock_target``, if any.

    For readers: a bundle torn by a kill between its renames holds a mix of
    old and new files until the journal is settled, so its digests disagree
    for a reason that is neither tampering nor staleness. A reader reports
    such a bundle as *recovery pending* (naming what settles it) instead of a
    hash mismatch. Only ``lstat``: no lock is taken, nothing is created, a
    symbolic link is never followed.
    """
    target = Path(lock_target)
    journal = target.parent / _journal_name(target)
    try:
        os.lstat(journal)
    except OSError:
        return None
    return journal
